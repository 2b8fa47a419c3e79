// The measurement engine (DESIGN.md §3): setup → verify every variant against the baseline →
// sample the verified ones until the median is steady → derive throughput, floor and speedup.
#include <chrono>
#include <cstring>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include "device/nvml.hpp"
#include "gpubench/ceilings.hpp"
#include "gpubench/cuda.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/stats.hpp"
#include "measure/device_kernels.hpp"
#include "measure/metrics_pass.hpp"

namespace gpubench {

run_options run_options::quick() {
  run_options o;
  o.max_noise = 0.02;
  o.min_samples = 5;
  o.min_time_s = 0.01;
  o.timeout_s = 0.2;
  o.warmup_runs = 0;  // the verification run just before sampling is the warm-up
  return o;
}

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

/// One NVTX range for the lifetime of the object, named like the record id, so ncu/nsys users
/// can filter on `ch01/pair/variant[size]`.
class nvtx_range {
 public:
  explicit nvtx_range(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~nvtx_range() { nvtxRangePop(); }
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
};

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

}  // namespace

struct runner::impl {
  run_options opt;
  device_info dev;
  ceilings ceil;
  // Created after cudaSetDevice (in runner's constructor), not with impl: on the chosen device,
  // and only once we know there is one.
  std::optional<cuda_stream> owned_stream;
  std::optional<cuda_event> start_event, stop_event;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  device_buffer<unsigned char> flush_buffer;  // >= 2x L2, so a memset over it evicts everything
  int flush_value = 0;
  std::optional<detail::nvml> nvml;
  std::optional<detail::nvml::device_handle> nvml_device;
  device_buffer<unsigned long long> probe_device;
  pinned_buffer<unsigned long long> probe_host;
  // Host copies of outputs for verification, reused across variants and sizes: fresh GiB-sized
  // buffers cost page faults on every size (on the VMs we measure on, ~0.4 s per GiB).
  host_array reference, got;
  std::unique_ptr<detail::metrics_pass> metrics;  // run --metrics only

  void flush_l2() {
    flush_value = (flush_value + 1) & 0xff;  // a different value each time: nothing can skip it
    GPUBENCH_CUDA(cudaMemsetAsync(flush_buffer.get(), flush_value, flush_buffer.bytes(), stream));
  }

  /// SM clock now and whether a thermal/HW slowdown is active (outside the timed region).
  void read_clock(timing_data& t) {
    if (nvml_device) {
      const auto mhz = nvml->sm_clock_mhz(*nvml_device);
      const auto reasons = nvml->clock_event_reasons(*nvml_device);
      t.sm_clock_mhz.push_back(mhz ? *mhz : 0.0);
      t.throttled.push_back(reasons && detail::nvml::is_slowdown(*reasons) ? 1 : 0);
      t.clock_source = "nvml";
    } else {
      t.sm_clock_mhz.push_back(detail::probe_sm_clock_mhz(stream, probe_device.get(), probe_host.get()));
      t.throttled.push_back(0);  // unknown without NVML; the clock itself is still recorded
      t.clock_source = "clock64";
    }
  }

  /// One timed execution of a variant, seconds.
  double sample(const pair_def& def, const variant_def& v, pair_state& state) {
    if (def.cache == cache_mode::cold) flush_l2();
    if (def.timing == timing_method::host_wall) {
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      const auto t0 = clock_type::now();
      v.run(state, stream);
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      const double s = seconds_since(t0);
      GPUBENCH_CUDA(cudaGetLastError());
      return s;
    }
    // The flush is still running when the events and the work are enqueued, so the first launch's
    // latency hides behind it and the events bracket the GPU's work (plus any launch gaps inside it).
    GPUBENCH_CUDA(cudaEventRecord(start, stream));
    v.run(state, stream);
    GPUBENCH_CUDA(cudaEventRecord(stop, stream));
    GPUBENCH_CUDA(cudaEventSynchronize(stop));
    GPUBENCH_CUDA(cudaGetLastError());
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms) * 1e-3;
  }

  /// Poisons the output, runs once, and copies the output into `into`.
  void run_once_for_output(const variant_def& v, pair_state& state, const std::string& range_name, host_array& into) {
    const output_view out = state.output(v.name);
    const std::size_t bytes = out.count * size_of(out.type);
    if (out.where == memory_space::device) GPUBENCH_CUDA(cudaMemsetAsync(out.data, 0xff, bytes, stream));
    else std::memset(out.data, 0xff, bytes);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    {
      nvtx_range range(range_name);
      v.run(state, stream);
      GPUBENCH_CUDA(cudaGetLastError());
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    }
    into.type = out.type;
    into.bytes.resize(bytes);
    if (out.where == memory_space::device) GPUBENCH_CUDA(cudaMemcpy(into.bytes.data(), out.data, bytes, cudaMemcpyDeviceToHost));
    else std::memcpy(into.bytes.data(), out.data, bytes);
  }

  void sample_until_steady(const pair_def& def, const variant_def& v, pair_state& state, record& r,
                           run_observer& obs) {
    auto& t = r.timing;
    const auto t0 = clock_type::now();
    for (int i = 0; i < opt.warmup_runs; ++i) v.run(state, stream);  // clocks up, caches and TLBs settled
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    GPUBENCH_CUDA(cudaGetLastError());
    auto last_report = t0;
    double noise = std::numeric_limits<double>::infinity();
    nvtx_range range(r.id());
    while (true) {
      t.samples_s.push_back(sample(def, v, state));
      read_clock(t);
      const auto n = t.samples_s.size();
      const double elapsed = seconds_since(t0);
      // The noise estimate sorts the samples: recompute it every sample early, every 16th later.
      if (n >= 3 && (n < 256 || n % 16 == 0)) noise = median_rel_noise(t.samples_s);
      if (n >= static_cast<std::size_t>(opt.min_samples) && elapsed >= opt.min_time_s && noise <= opt.max_noise) {
        t.stopped = stop_reason::converged;
        break;
      }
      if (n >= static_cast<std::size_t>(opt.max_samples)) {
        t.stopped = stop_reason::max_samples;
        break;
      }
      if (elapsed >= opt.timeout_s && n >= 3) {
        t.stopped = stop_reason::timeout;
        break;
      }
      if (std::chrono::duration<double>(clock_type::now() - last_report).count() > 0.1) {
        obs.sampling(r, n, noise, elapsed);
        last_report = clock_type::now();
      }
    }
    t.wall_s = seconds_since(t0);
    r.stats = summarize(t.samples_s);
  }

  void run_size(const pair_def& def, const size_point& z, run_observer& obs, std::vector<record>& out);
};

runner::runner(int device_ordinal, run_options options) : impl_(std::make_unique<impl>()) {
  impl_->opt = std::move(options);
  const int count = device_count();
  if (count == 0) throw runtime_error(no_device_message());
  if (device_ordinal < 0 || device_ordinal >= count)
    throw usage_error(fmt::format("--device {}: this machine has {} CUDA device(s), numbered 0..{}", device_ordinal,
                                  count, count - 1));
  GPUBENCH_CUDA(cudaSetDevice(device_ordinal));
  GPUBENCH_CUDA(cudaFree(nullptr));  // create the context now, not inside the first measurement
  impl_->stream = impl_->owned_stream.emplace().get();
  impl_->start = impl_->start_event.emplace().get();
  impl_->stop = impl_->stop_event.emplace().get();
  impl_->dev = query_device(device_ordinal);
  // Measured ceilings (gpubench device --ceilings) when this GPU has them cached, else theoretical.
  if (auto cached = load_cached_ceilings(impl_->dev)) impl_->ceil = *cached;
  else impl_->ceil = theoretical_ceilings(impl_->dev);
  impl_->flush_buffer = device_buffer<unsigned char>(std::max<std::uint64_t>(2 * impl_->dev.l2_bytes, 8u << 20));
  impl_->nvml.emplace();
  if (impl_->nvml->available()) impl_->nvml_device = impl_->nvml->device_by_pci_bus_id(impl_->dev.pci_bus_id);
  impl_->probe_device = device_buffer<unsigned long long>(2);
  impl_->probe_host = pinned_buffer<unsigned long long>(2);
  if (!impl_->opt.metrics.empty() && !impl_->opt.profile_mode)
    impl_->metrics = std::make_unique<detail::metrics_pass>(device_ordinal, impl_->opt.metrics, impl_->opt.metrics_per_kernel);
  if (impl_->opt.seed == 0) impl_->opt.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
}

runner::~runner() = default;

const device_info& runner::device() const { return impl_->dev; }
const ceilings& runner::device_ceilings() const { return impl_->ceil; }
const run_options& runner::options() const { return impl_->opt; }
std::string runner::metrics_unavailable() const { return impl_->metrics ? impl_->metrics->unavailable() : std::string(); }

void runner::impl::run_size(const pair_def& def, const size_point& z, run_observer& obs, std::vector<record>& out) {
  const std::size_t first = out.size();
  const work w = def.work_model(z);
  obs.size_begin(def, z, w, ceil);
  for (const auto& v : def.variants) {
    record r;
    r.chapter = def.chapter;
    r.pair = def.name;
    r.variant = v.name;
    r.size = z;
    r.declared = w;
    if (v.options.flops_kind) r.declared.flops_kind = *v.options.flops_kind;
    r.tol = v.options.check.value_or(def.check);
    r.timing.method = def.timing;
    r.timing.cache = def.cache;
    out.push_back(std::move(r));
  }
  auto recs = [&](std::size_t i) -> record& { return out[first + i]; };
  const auto fail_all = [&](record_status s, const std::string& why) {
    for (std::size_t i = 0; i < def.variants.size(); ++i) {
      recs(i).status = s;
      recs(i).reason = why;
    }
  };

  // Setup: fresh random inputs for this size. Out of memory skips the size, not the run.
  std::unique_ptr<pair_state> state;
  const auto setup_start = clock_type::now();
  try {
    obs.phase("setting up");
    state = def.setup(z, setup_context{stream, derive_seed(opt.seed, fnv1a(def.id() + z.to_string()))});
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  } catch (const not_supported& e) {
    state.reset();
    cudaGetLastError();
    fail_all(record_status::skipped, fmt::format("not supported on this GPU: {}", e.what()));
  } catch (const cuda_error& e) {
    state.reset();
    cudaGetLastError();  // allocation failures are not sticky; clear so the next size starts clean
    if (e.out_of_memory()) fail_all(record_status::skipped, fmt::format("out of memory at this size: {}", e.what()));
    else fail_all(record_status::error, e.what());
  } catch (const std::bad_alloc&) {
    state.reset();
    fail_all(record_status::skipped, "out of host memory at this size");
  } catch (const std::exception& e) {
    state.reset();
    cudaGetLastError();
    fail_all(record_status::error, fmt::format("setup failed: {}", e.what()));
  }

  const double setup_s = seconds_since(setup_start);
  for (std::size_t i = 0; i < def.variants.size(); ++i) recs(i).timing.setup_s = setup_s;
  if (state) {
    // Verification: every variant on the same inputs into a poisoned output, against the baseline.
    obs.phase("verifying");
    bool reference_ok = false;
    for (std::size_t i = 0; i < def.variants.size(); ++i) {
      record& r = recs(i);
      const auto verify_start = clock_type::now();
      try {
        run_once_for_output(def.variants[i], *state, r.id(), i == 0 ? reference : got);
        if (i == 0) {
          r.check = check_reference(reference);
          reference_ok = r.check.result == disposition::reference;
        } else if (reference_ok) {
          r.check = compare(got, reference, r.tol);
        } else {
          r.check.result = disposition::not_verified;
          r.check.message = "the baseline failed its own check, so nothing could be verified against it";
        }
        if (r.check.result == disposition::incorrect || r.check.result == disposition::not_verified) {
          r.status = record_status::failed;
          r.reason = r.check.message;
        } else if (opt.profile_mode) {
          r.status = record_status::profiled;
          r.timing.stopped = stop_reason::single_run;
        }
      } catch (const not_supported& e) {
        cudaGetLastError();
        r.status = record_status::skipped;
        r.reason = fmt::format("not supported on this GPU: {}", e.what());
        r.check.result = disposition::not_verified;
        r.check.message = "the variant cannot run on this GPU";
        if (i == 0) reference_ok = false;
      } catch (const std::exception& e) {
        cudaGetLastError();
        r.status = record_status::error;
        r.reason = e.what();
        r.check.result = disposition::not_verified;
        r.check.message = "the variant raised an error";
        if (i == 0) reference_ok = false;
      }
      r.timing.verify_s = seconds_since(verify_start);
    }

    if (!opt.profile_mode)
      for (std::size_t i = 0; i < def.variants.size(); ++i) {
        record& r = recs(i);
        if (r.status != record_status::passed) continue;
        try {
          sample_until_steady(def, def.variants[i], *state, r, obs);
        } catch (const std::exception& e) {
          cudaGetLastError();
          r.status = record_status::error;
          r.reason = fmt::format("failed while sampling: {}", e.what());
          r.stats.reset();
        }
      }
    // Hardware metrics: a separate pass after all timing of this size (DESIGN.md §3; issue 5).
    if (metrics) {
      obs.phase("collecting metrics");
      for (std::size_t i = 0; i < def.variants.size(); ++i)
        if (recs(i).status == record_status::passed)
          metrics->collect(def.variants[i], *state, recs(i), stream, flush_buffer.get(), flush_buffer.bytes());
    }
  }
  state.reset();
  for (std::size_t i = 0; i < def.variants.size(); ++i) derive(recs(i), ceil, i == 0 ? nullptr : &recs(0));
  obs.size_end(def, std::vector<record>(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()));
}

std::vector<record> runner::run(const std::vector<const pair_def*>& pairs, run_observer& observer) {
  std::vector<record> out;
  for (const auto* def : pairs) {
    observer.pair_begin(*def);
    const auto axes = impl_->opt.smallest ? smallest_sizes(def->axes) : def->axes;
    for (const auto& z : expand(apply_overrides(axes, impl_->opt.axis_overrides, def->id())))
      impl_->run_size(*def, z, observer, out);
    observer.pair_end(*def);
  }
  return out;
}

}  // namespace gpubench
