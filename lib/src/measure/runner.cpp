// The measurement engine (docs/measurement.md): setup → verify every variant against the
// baseline → sample the verified ones in interleaved rounds (sampling.hpp) → derive throughput, floor, speedup.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <random>

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include "device/nvml.hpp"
#include "gpubench/ceilings_cache.hpp"
#include "gpubench/cuda.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/result_regions.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/stats.hpp"
#include "gpubench/sampling.hpp"
#include "gpubench/warming.hpp"
#include "measure/cuda_executor.hpp"
#include "measure/device_kernels.hpp"
#include "measure/device_verify.hpp"
#include "measure/gpu_busy_timer.hpp"
#include "measure/metrics_pass.hpp"
#include "measure/output_regions.hpp"
#include "cuda/pinned_cache.hpp"

namespace gpubench {

run_options run_options::quick() {
  run_options o;
  o.stopping.max_noise = 0.02;
  o.stopping.min_samples = 5;
  o.stopping.min_time_s = 0.01;
  o.stopping.timeout_s = 0.2;
  o.warmup_runs = 0;  // the verification run just before sampling is the warm-up
  o.rounds = 1;  // a smoke test: compare judges such a run on its samples and the fitted model alone
  o.max_rounds = 1;
  return o;
}

namespace {

using clock_type = std::chrono::steady_clock;

/// Streams in the pool re-placement draws from (runner's constructor).
constexpr std::size_t kRoundStreams = 160;

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
  std::deque<cuda_stream> streams;           // the pool fresh rounds draw from (cuda_executor::begin_round)
  std::vector<cudaStream_t> stream_handles;  // the same, as the executor borrows them
  std::optional<cuda_event> start_event, stop_event;
  detail::device_tools tools;
  // The stream of the current state: a round may move it (tools.stream), so everything else that
  // runs a state follows it rather than keeping a copy.
  cudaStream_t& stream = tools.stream;
  device_buffer<unsigned char> flush_buffer;  // >= 2x L2, read before each cold sample
  device_buffer<unsigned long long> flush_sink;
  std::optional<detail::nvml> nvml;
  device_buffer<unsigned long long> probe_device;
  pinned_buffer<unsigned long long> probe_host;
  std::unique_ptr<detail::gpu_busy_timer> busy;  // not in --profile mode: ncu/nsys own CUPTI then
  // Host copies of outputs for verification, reused across variants and sizes: fresh GiB-sized
  // buffers cost page faults on every size (on the VMs we measure on, ~0.4 s per GiB).
  host_array reference, got;
  // When the baseline's result lives on the run's GPU, its copy stays there and every variant is
  // checked by a kernel (measure/device_verify.cu): no output crosses PCIe. Allocated for one
  // size's verification and freed before sampling, so sampling sees the memory it always did.
  device_buffer<std::byte> reference_device, got_device;
  element_type reference_type = element_type::f32;
  std::size_t reference_count = 0;
  bool reference_on_host = false;
  std::unique_ptr<detail::metrics_pass> metrics;  // run --metrics only

  /// Poisons the output (every region of it: gpubench/result_regions.hpp) and runs once.
  /// `flush`: read the L2 out before the run (outside its NVTX range), as before a cold sample,
  /// so that a profiler watching --profile sees the kernels start from the cache state the timed
  /// samples start from (ncu --cache-control none then times each kernel of a chain after its
  /// predecessor's dirty lines, as a run does; docs/measurement.md, "Against Nsight Compute").
  /// Returns how the run's time split: on the host until `run` returned, then waiting for the GPU.
  run_split run_once_for_output(const variant_def& v, pair_state& state, const std::string& range_name,
                                const std::vector<output_view>& regions, bool flush) {
    detail::poison_regions(regions, stream);
    if (flush) {
      state.flush_other_gpus(stream);
      detail::read_flush(flush_buffer.get(), flush_buffer.bytes(), flush_sink.get(), stream);
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    nvtx_range range(range_name);
    const auto start = clock_type::now();
    v.run(state, stream);
    GPUBENCH_CUDA(cudaGetLastError());
    const auto returned = clock_type::now();
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));
    return {std::chrono::duration<double>(returned - start).count(), seconds_since(returned)};
  }

  /// A device buffer of `bytes`, or an empty one when the GPU has no room (verification then
  /// takes the host path).
  static device_buffer<std::byte> device_room(std::size_t bytes) {
    try {
      return device_buffer<std::byte>(bytes);
    } catch (const cuda_error& e) {
      if (!e.out_of_memory()) throw;
      cudaGetLastError();
      return {};
    }
  }

  /// Keeps the baseline's result as the reference (on the GPU when it lives there) and checks it.
  verification keep_reference(const std::vector<output_view>& regions) {
    reference_device = {};
    reference_on_host = false;
    const std::size_t bytes = result_bytes(regions);
    reference_type = regions.front().type;
    reference_count = bytes / size_of(reference_type);
    if (bytes > 0 && detail::all_on_current_gpu(regions)) reference_device = device_room(bytes);
    if (reference_device.get() != nullptr) {
      detail::gather_on_device(regions, reference_device.get(), stream);
      const comparison_tally t = detail::tally_on_device(reference_device.get(), nullptr, reference_count, reference_type, stream);
      return judge_reference(t.elements, t.non_finite, t.first_bad);
    }
    detail::read_back_regions(regions, reference);
    reference_on_host = true;
    return check_reference(reference);
  }

  /// A variant's result against the reference: on the GPU when both live there, else on the host.
  verification check_against_reference(const std::vector<output_view>& regions, const tolerance& tol) {
    const std::size_t bytes = result_bytes(regions);
    const element_type type = regions.front().type;
    if (reference_device.get() != nullptr && detail::all_on_current_gpu(regions) && type == reference_type &&
        bytes == reference_count * size_of(reference_type)) {
      const void* out = regions.front().data;
      if (regions.size() > 1) {  // several regions: gathered into one array, as the reference was
        if (got_device.bytes() < bytes) got_device = device_room(bytes);
        out = got_device.get();
        if (out != nullptr) detail::gather_on_device(regions, got_device.get(), stream);
      }
      if (out != nullptr) {
        const comparison_tally t = detail::tally_on_device(out, reference_device.get(), reference_count, type, stream);
        const bool any_bad = t.first_bad < t.elements;
        return judge(t, tol, any_bad ? detail::device_element(out, type, t.first_bad) : 0.0,
                     any_bad ? detail::device_element(reference_device.get(), type, t.first_bad) : 0.0);
      }
    }
    if (!reference_on_host) {  // the reference was kept on the GPU, this result is elsewhere
      reference.type = reference_type;
      reference.bytes.resize(reference_count * size_of(reference_type));
      GPUBENCH_CUDA(cudaMemcpy(reference.bytes.data(), reference_device.get(), reference.bytes.size(), cudaMemcpyDeviceToHost));
      reference_on_host = true;
    }
    if (regions.size() == 1 && regions.front().where == memory_space::host) {  // checked where it lies
      const output_view& r = regions.front();
      return compare(host_view{r.type, {static_cast<const std::byte*>(r.data), r.count * size_of(r.type)}}, reference, tol);
    }
    detail::read_back_regions(regions, got);
    return compare(got, reference, tol);
  }

  /// Samples the size's verified variants over the rounds (gpubench/sampling.hpp).
  void measure_size(const pair_def& def, const size_point& z, const setup_context& ctx,
                    std::unique_ptr<pair_state>& state, std::vector<record*> recs, run_observer& obs);

  void run_size(const pair_def& def, const size_point& z, run_observer& obs, std::vector<record>& out);

  /// Makes the size's executor, names its samples and runs `sample` on it; when the executor's
  /// own set-up fails, every slot not yet failed says so and nothing is timed.
  void with_executor(const pair_def& def, const size_point& z, const setup_context& ctx,
                     std::unique_ptr<pair_state>& state, const std::vector<record*>& recs,
                     std::vector<measure_slot>& slots, time_source& source,
                     const std::function<void(sample_executor&)>& sample);

  struct swept_size;
  /// Whether a pair's sizes take their later rounds in sweeps across the run (runner::run).
  [[nodiscard]] bool swept(const pair_def& def) const {
    return def.timing == timing_method::host_wall && !opt.profile_mode && opt.rounds > 1;
  }
  /// Sets a swept size up, verifies it and takes its first round on the verified state.
  std::unique_ptr<swept_size> start_swept(const pair_def& def, const size_point& z, run_observer& obs);
  /// Takes one round of a swept size on a fresh state; after its last, goodput and counters.
  void visit_swept(swept_size& s, int round, run_observer& obs);
  /// The swept size's records, final: timed, derived, told to the observer.
  void finish_swept(swept_size& s, run_observer& obs);
  /// Takes round `round` of `slots` on an executor made for it; what failed goes into the slots
  /// or the sequence's note.
  void take_round(const pair_def& def, const size_point& z, const setup_context& ctx,
                  std::unique_ptr<pair_state>& state, std::vector<record*>& recs, std::vector<measure_slot>& slots,
                  round_sequence& sequence, int round, run_observer& obs, time_source& source);

  /// The size's records before anything runs: ids, work, tolerance, timing method.
  std::vector<record> new_records(const pair_def& def, const size_point& z, const work& w) const;
  /// Builds the size's state and, when `verify`, runs every variant once into a poisoned output,
  /// verified against the baseline; the records say what failed. Returns the state (null when
  /// setup failed).
  /// `splits`, when given, gets each variant's verifying run as it split (run_split; zeros for a
  /// variant not run).
  std::unique_ptr<pair_state> set_up_and_verify(const pair_def& def, const size_point& z, const setup_context& ctx,
                                                run_observer& obs, std::vector<record>& recs, bool verify = true,
                                                std::vector<run_split>* splits = nullptr);
  /// The timed records' source, clocks, status and summary once their slots are sampled.
  void settle_timed(std::vector<measure_slot>& slots, const std::vector<record*>& recs, time_source source,
                    const std::string& note);
  /// Goodput (pairs that declare it, when `goodput`) and counters (run --metrics), after timing.
  void goodput_and_metrics(const pair_def& def, pair_state& state, std::vector<record>& recs, run_observer& obs,
                           bool goodput);

  struct open_size_state;
  std::unique_ptr<open_size_state> open;  ///< the size a worker holds open, if any
  /// Frees an open size's state once the stream is done with it (open_size_state::hold_between_rounds).
  void release_state(open_size_state& o);
  /// The open size's executor, made on first use (a round, or the preparation of one).
  void start_executor(open_size_state& o);

  /// The GPU's kernel time in a few traced runs of `v` over its untraced timed median `wall_s`
  /// (gpubench/record.hpp, goodput_info).
  goodput_info measure_goodput(const variant_def& v, pair_state& state, double wall_s) {
    constexpr int kRuns = 5;
    goodput_info g;
    if (!(wall_s > 0)) {
      g.reason = "not measured: the variant has no timed median";
      return g;
    }
    if (!busy) busy = std::make_unique<detail::gpu_busy_timer>();
    busy->enable_kernels_only(true);
    if (!busy->available()) {
      g.reason = "CUPTI activity records unavailable: " + busy->unavailable_reason();
      return g;
    }
    std::vector<double> kernel, wall;
    try {
      // One untimed run first: CUPTI instruments each kernel on its first launch under tracing.
      v.run(state, stream);
      GPUBENCH_CUDA(cudaStreamSynchronize(stream));
      for (int k = 0; k < kRuns; ++k) {
        busy->begin(nullptr);
        const auto t0 = clock_type::now();
        v.run(state, stream);
        GPUBENCH_CUDA(cudaStreamSynchronize(stream));
        const double w = seconds_since(t0);
        const std::optional<double> busy_s = busy->collect();
        if (!busy_s) throw runtime_error("CUPTI delivered no kernel record (or dropped some)");
        wall.push_back(w);
        kernel.push_back(*busy_s);
      }
    } catch (const std::exception& e) {
      cudaGetLastError();
      busy->enable_kernels_only(false);
      g.reason = std::string("not measured: ") + e.what();
      return g;
    }
    busy->enable_kernels_only(false);
    g.runs = kRuns;
    g.kernel_s = summarize(kernel).median;
    g.wall_traced_s = summarize(wall).median;
    g.wall_s = wall_s;
    g.fraction = g.kernel_s / g.wall_s;
    return g;
  }
};

/// One size held open by `gpubench worker` (runner::open_size).
struct runner::impl::open_size_state {
  const pair_def* def = nullptr;
  size_point z;
  setup_context ctx;
  std::unique_ptr<pair_state> state;
  std::vector<record> records;  ///< as verified, untimed
  std::unique_ptr<detail::cuda_executor> executor;
  bool hold_between_rounds = true;  ///< runner::open_size
  /// Each variant's last sample so far, by variant index: a round's records hold its samples
  /// alone, and a fresh round skips the warm-up of a variant whose samples are long.
  std::vector<double> last_sample_s;
  /// The variants verified here whose run is worth repeating in the build's other workers
  /// (worth_warming): runner::cheap_to_warm.
  std::vector<std::string> cheap_to_warm;
};

void runner::impl::start_executor(open_size_state& o) {
  if (o.executor) return;
  o.executor = std::make_unique<detail::cuda_executor>(*o.def, o.z, o.ctx, o.state, tools);
  std::vector<std::string> names(o.def->variants.size());
  for (std::size_t i = 0; i < o.records.size(); ++i) names[i] = o.records[i].id();
  o.executor->name_samples(std::move(names));
}

void runner::impl::release_state(open_size_state& o) {
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  o.state.reset();
}

namespace {
/// The theoretical per-direction rate of the link from `dev` to the next GPU, the pair chapter 8
/// uses (ceilings::peer_bytes_per_s); 0 with one GPU. Over PCIe peer-to-peer, the slower GPU's
/// PCIe rate.
double peer_rate_to_next(const device_info& dev, int count) {
  if (count < 2) return 0;
  const device_info next = query_device((dev.ordinal + 1) % count);
  const std::vector<peer_link> links = query_peer_links({dev, next});
  if (links.empty()) return 0;
  const double pcie = std::min(theoretical_ceilings(dev).pcie_bytes_per_s, theoretical_ceilings(next).pcie_bytes_per_s);
  return links.front().peer_bytes_per_s(pcie);
}
}  // namespace

runner::runner(int device_ordinal, run_options options) : impl_(std::make_unique<impl>()) {
  impl_->opt = std::move(options);
  const int count = device_count();
  if (count == 0) throw runtime_error(no_device_message());
  if (device_ordinal < 0 || device_ordinal >= count)
    throw usage_error(fmt::format("--device {}: this machine has {} CUDA device(s), numbered 0..{}", device_ordinal,
                                  count, count - 1));
  GPUBENCH_CUDA(cudaSetDevice(device_ordinal));
  GPUBENCH_CUDA(cudaFree(nullptr));  // create the context now, not inside the first measurement
  // The driver hands out streams in blocks (of about 21 on an H100), and a block draws once how
  // fast its launches follow a flush. 160 streams span several blocks, and each fresh round draws
  // one (docs/measurement.md, "Re-streaming"); creating them takes a few milliseconds.
  const bool restream = impl_->opt.restream && impl_->opt.replace_memory && !impl_->opt.profile_mode;
  const std::size_t pool = restream ? kRoundStreams : 1;
  for (std::size_t i = 0; i < pool; ++i) impl_->stream_handles.push_back(impl_->streams.emplace_back().get());
  impl_->stream = impl_->stream_handles.front();
  impl_->dev = query_device(device_ordinal);
  // Measured ceilings (gpubench device --ceilings) when this GPU has them cached, else theoretical.
  if (auto cached = load_cached_ceilings(impl_->dev)) impl_->ceil = *cached;
  else impl_->ceil = theoretical_ceilings(impl_->dev);
  impl_->ceil.peer_bytes_per_s = peer_rate_to_next(impl_->dev, count);
  impl_->flush_buffer = device_buffer<unsigned char>(std::max<std::uint64_t>(2 * impl_->dev.l2_bytes, 8u << 20));
  impl_->flush_sink = device_buffer<unsigned long long>(1);
  impl_->nvml.emplace();
  impl_->probe_device = device_buffer<unsigned long long>(2);
  impl_->probe_host = pinned_buffer<unsigned long long>(2);
  if (!impl_->opt.profile_mode && impl_->opt.gpu_busy_time) impl_->busy = std::make_unique<detail::gpu_busy_timer>();
  detail::device_tools& t = impl_->tools;
  t.round_streams = impl_->stream_handles;
  t.start = impl_->start_event.emplace().get();
  t.stop = impl_->stop_event.emplace().get();
  t.flush = &impl_->flush_buffer;
  t.flush_sink = impl_->flush_sink.get();
  if (impl_->nvml->available()) {
    t.nv = &*impl_->nvml;
    t.nv_device = impl_->nvml->device_by_pci_bus_id(impl_->dev.pci_bus_id);
  }
  t.probe_device = impl_->probe_device.get();
  t.probe_host = impl_->probe_host.get();
  t.busy = impl_->busy.get();
  t.replace_memory = impl_->opt.replace_memory;
  if (!impl_->opt.metrics.empty() && !impl_->opt.profile_mode)
    impl_->metrics = std::make_unique<detail::metrics_pass>(device_ordinal, impl_->opt.metrics, impl_->opt.metrics_per_kernel);
  if (impl_->opt.seed == 0) impl_->opt.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
}

runner::~runner() {
  impl_.reset();
  detail::pinned_trim();  // the cached pinned blocks, while CUDA is still up
}

const device_info& runner::device() const { return impl_->dev; }
const ceilings& runner::device_ceilings() const { return impl_->ceil; }
const run_options& runner::options() const { return impl_->opt; }
std::string runner::metrics_unavailable() const { return impl_->metrics ? impl_->metrics->unavailable() : std::string(); }
std::string runner::gpu_busy_unavailable() const {
  if (impl_->opt.profile_mode) return {};
  if (!impl_->opt.gpu_busy_time) return "not asked for (--gpu-busy)";
  if (!impl_->busy) return "not started";
  return impl_->busy->unavailable_reason();
}

namespace {
/// The schedule's options for one size: rounds (more where rounds redraw what differs between
/// processes), warm-ups, rests and the record's budget.
schedule_options schedule_for(const run_options& opt, const pair_def& def, const size_point& z) {
  schedule_options so;
  so.rounds = opt.rounds;
  const bytes_path path = def.work_model ? def.work_model(z).path : bytes_path::dram;
  if (rounds_redraw_process_noise(def.timing == timing_method::host_wall, path)) so.max_rounds = opt.max_rounds;
  so.warmup_runs = opt.warmup_runs;
  so.rest_ratio = opt.rest_ratio;
  so.total = opt.stopping;
  return so;
}

/// Sampling progress for the observer, every ~100 ms at most.
sampling_progress progress_to(run_observer& obs, const std::vector<record*>& recs) {
  return [&obs, &recs, last = clock_type::now()](std::size_t slot, std::size_t n, int /*round*/, double noise,
                                                 double elapsed) mutable {
    if (seconds_since(last) < 0.1) return;
    obs.sampling(*recs[slot], n, noise, elapsed);
    last = clock_type::now();
  };
}

/// The slot of each record to time, by its variant's index in the pair.
std::vector<measure_slot> slots_for(const pair_def& def, const std::vector<record*>& recs) {
  std::vector<measure_slot> slots;
  for (record* r : recs) {
    std::size_t v = 0;
    while (def.variants[v].name != r->variant) ++v;
    slots.push_back({v, &r->timing, {}});
  }
  return slots;
}
}  // namespace

void runner::impl::settle_timed(std::vector<measure_slot>& slots, const std::vector<record*>& recs, time_source source,
                                const std::string& note) {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    record& r = *recs[i];
    r.timing.source = source;
    r.timing.clock_source = tools.nv != nullptr && tools.nv_device ? "nvml" : "clock64";
    if (!slots[i].error.empty() || r.timing.samples_s.empty()) {
      cudaGetLastError();
      r.status = record_status::error;
      r.reason = slots[i].error.empty() ? "no samples" : slots[i].error;
      r.stats.reset();
      continue;
    }
    if (!note.empty()) r.reason = note;
    r.stats = summarize(r.timing.samples_s);
  }
}

void runner::impl::with_executor(const pair_def& def, const size_point& z, const setup_context& ctx,
                                 std::unique_ptr<pair_state>& state, const std::vector<record*>& recs,
                                 std::vector<measure_slot>& slots, time_source& source,
                                 const std::function<void(sample_executor&)>& sample) {
  try {
    detail::cuda_executor ex(def, z, ctx, state, tools);
    source = ex.source();
    std::vector<std::string> names(def.variants.size());
    for (std::size_t i = 0; i < recs.size(); ++i) names[slots[i].variant] = recs[i]->id();
    ex.name_samples(std::move(names));
    sample(ex);
  } catch (const std::exception& e) {  // the executor's own set-up (CUPTI) failed: nothing timed
    cudaGetLastError();
    for (auto& s : slots)
      if (s.error.empty()) s.error = fmt::format("failed to start sampling: {}", e.what());
  }
}

void runner::impl::measure_size(const pair_def& def, const size_point& z, const setup_context& ctx,
                                std::unique_ptr<pair_state>& state, std::vector<record*> recs, run_observer& obs) {
  std::vector<measure_slot> slots = slots_for(def, recs);
  const schedule_options so = schedule_for(opt, def, z);
  std::string note;
  time_source source = time_source::cuda_events;
  with_executor(def, z, ctx, state, recs, slots, source, [&](sample_executor& ex) {
    note = measure_rounds(ex, slots, so, progress_to(obs, recs));
    if (!note.empty()) cudaGetLastError();  // a failed fresh state (out of memory) is not sticky: clear it
  });
  settle_timed(slots, recs, source, note);
}

std::vector<record> runner::impl::new_records(const pair_def& def, const size_point& z, const work& w) const {
  std::vector<record> out;
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
    if (!v.config.empty()) r.tuning = tuning_result{v.config, 0};
    out.push_back(std::move(r));
  }
  return out;
}

std::unique_ptr<pair_state> runner::impl::set_up_and_verify(const pair_def& def, const size_point& z,
                                                            const setup_context& ctx, run_observer& obs,
                                                            std::vector<record>& recs, bool verify,
                                                            std::vector<run_split>* splits) {
  if (splits) splits->assign(recs.size(), run_split{});
  const auto fail_all = [&](record_status s, const std::string& why) {
    for (record& r : recs) {
      r.status = s;
      r.reason = why;
    }
  };
  // Setup: fresh random inputs for this size. Out of memory skips the size, not the run.
  std::unique_ptr<pair_state> state;
  const auto setup_start = clock_type::now();
  try {
    obs.phase("setting up");
    state = def.setup(z, ctx);
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
  for (record& r : recs) r.timing.setup_s = setup_s;
  if (!state) return state;
  const auto selected = [&](std::size_t i) {
    const auto& only = opt.only_variants;
    return only.empty() || std::find(only.begin(), only.end(), def.variants[i].name) != only.end();
  };
  if (!verify) {
    // Another worker process of the same build verifies the size (gpubench/worker_protocol.hpp,
    // open's "verify"); this one needs only the state to take its rounds on.
    for (std::size_t i = 0; i < def.variants.size(); ++i) {
      record& r = recs[i];
      r.check.result = disposition::not_verified;
      r.check.message = "set up only: another worker process of this build verified it";
      if (!selected(i)) {
        r.status = record_status::skipped;
        r.reason = i == 0 ? "the reference only, not timed (--variant)" : "not selected (--variant)";
      }
    }
    return state;
  }

  // Verification: every variant on the same inputs into a poisoned output, against the baseline.
  obs.phase("verifying");
  bool reference_ok = false;
  for (std::size_t i = 0; i < def.variants.size(); ++i) {
    record& r = recs[i];
    if (i > 0 && !selected(i)) {
      r.status = record_status::skipped;
      r.reason = "not selected (--variant)";
      r.check.result = disposition::not_verified;
      r.check.message = "not run";
      continue;
    }
    const auto verify_start = clock_type::now();
    try {
      const std::vector<output_view> regions = result_regions(*state, def.variants[i].name);
      const run_split split = run_once_for_output(def.variants[i], *state, r.id(), regions,
                                                  opt.profile_mode && def.cache == cache_mode::cold);
      if (splits) (*splits)[i] = split;
      // What the pair's State says about this variant's launch (registers, occupancy): computed
      // in its constructor, read here, outside any timing.
      r.facts = state->facts(def.variants[i].name);
      if (i == 0) {
        r.check = keep_reference(regions);
        reference_ok = r.check.result == disposition::reference;
      } else if (reference_ok) {
        r.check = check_against_reference(regions, r.tol);
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
    // An unnamed baseline was only the reference: verified, not timed.
    if (i == 0 && !selected(0) && r.status == record_status::passed) {
      r.status = record_status::skipped;
      r.reason = "the reference only, not timed (--variant)";
    }
  }
  reference_device = {};  // sampling gets the GPU's memory back
  got_device = {};
  return state;
}

void runner::impl::goodput_and_metrics(const pair_def& def, pair_state& state, std::vector<record>& recs,
                                       run_observer& obs, bool goodput) {
  // Goodput: after timing, so CUPTI's kernel instrumentation never touches a timed sample.
  if (goodput && def.goodput) {
    obs.phase("measuring goodput");
    for (std::size_t i = 0; i < def.variants.size(); ++i)
      if (recs[i].status == record_status::passed)
        recs[i].goodput = measure_goodput(def.variants[i], state, recs[i].stats ? recs[i].stats->median : 0.0);
  }
  // Hardware metrics: a separate pass after all timing of this size.
  if (metrics) {
    obs.phase("collecting metrics");
    for (std::size_t i = 0; i < def.variants.size(); ++i)
      if (recs[i].status == record_status::passed)
        metrics->collect(def.variants[i], state, recs[i], stream, flush_buffer.get(), flush_buffer.bytes());
  }
}

void runner::impl::run_size(const pair_def& def, const size_point& z, run_observer& obs, std::vector<record>& out) {
  const work w = def.work_model(z);
  obs.size_begin(def, z, w, ceil);
  std::vector<record> recs = new_records(def, z, w);
  const setup_context ctx{stream, derive_seed(opt.seed, fnv1a(def.id() + z.to_string()))};
  std::unique_ptr<pair_state> state = set_up_and_verify(def, z, ctx, obs, recs);
  if (state && !opt.profile_mode) {
    std::vector<record*> timed;
    for (record& r : recs)
      if (r.status == record_status::passed) timed.push_back(&r);
    if (!timed.empty()) measure_size(def, z, ctx, state, std::move(timed), obs);
  }
  // A later round's fresh state may have failed to build (out of memory): then there is no state
  // left to measure goodput or collect counters on, and the records say why in their reason.
  if (state) goodput_and_metrics(def, *state, recs, obs, !opt.profile_mode);
  state.reset();
  for (std::size_t i = 0; i < recs.size(); ++i) derive(recs[i], ceil, i == 0 ? nullptr : &recs[0]);
  if (def.grid) rank_tuning(recs);  // the tuned configuration of this size
  obs.size_end(def, recs);
  out.insert(out.end(), std::make_move_iterator(recs.begin()), std::make_move_iterator(recs.end()));
}

/// A host-timed size between its rounds (runner::run): its records so far, and its state only
/// while a round runs on it.
struct runner::impl::swept_size {
  const pair_def* def = nullptr;
  size_point z;
  setup_context ctx;
  std::vector<record> recs;
  std::vector<record*> timed;  ///< into recs: the verified records the rounds time
  std::vector<measure_slot> slots;
  std::optional<round_sequence> sequence;  ///< none when nothing is timed (setup or verification failed)
  std::unique_ptr<pair_state> state;
  time_source source = time_source::host_wall;
  bool finished = false;  ///< the last round taken and goodput measured
};

void runner::impl::take_round(const pair_def& def, const size_point& z, const setup_context& ctx,
                              std::unique_ptr<pair_state>& state, std::vector<record*>& recs,
                              std::vector<measure_slot>& slots, round_sequence& sequence, int round, run_observer& obs,
                              time_source& source) {
  with_executor(def, z, ctx, state, recs, slots, source, [&](sample_executor& ex) {
    if (!sequence.take(ex, round, progress_to(obs, recs))) cudaGetLastError();  // a failed fresh state is not sticky
  });
}

std::unique_ptr<runner::impl::swept_size> runner::impl::start_swept(const pair_def& def, const size_point& z,
                                                                    run_observer& obs) {
  auto s = std::make_unique<swept_size>();
  s->def = &def;
  s->z = z;
  s->ctx = setup_context{stream, derive_seed(opt.seed, fnv1a(def.id() + z.to_string()))};
  s->recs = new_records(def, z, def.work_model(z));
  obs.sweep_round(def, z, 0, opt.rounds);
  s->state = set_up_and_verify(def, z, s->ctx, obs, s->recs);
  for (record& r : s->recs)
    if (r.status == record_status::passed) s->timed.push_back(&r);
  if (s->state && !s->timed.empty()) {
    s->slots = slots_for(def, s->timed);
    s->sequence.emplace(s->slots, schedule_for(opt, def, z));
    visit_swept(*s, 0, obs);
  } else {
    s->state.reset();
    s->finished = true;
  }
  return s;
}

void runner::impl::visit_swept(swept_size& s, int round, run_observer& obs) {
  if (round > 0) obs.sweep_round(*s.def, s.z, round, s.sequence->options().rounds);
  take_round(*s.def, s.z, s.ctx, s.state, s.timed, s.slots, *s.sequence, round, obs, s.source);
  if (s.sequence->wants(round + 1)) {
    // Between visits the size holds no memory; its next round builds a fresh state.
    s.state.reset();
    return;
  }
  settle_timed(s.slots, s.timed, s.source, s.sequence->finish());
  // The last round's state, as run_size measures goodput on its last: none when it failed to build.
  if (s.state) goodput_and_metrics(*s.def, *s.state, s.recs, obs, true);
  s.state.reset();
  s.finished = true;
}

void runner::impl::finish_swept(swept_size& s, run_observer& obs) {
  obs.size_begin(*s.def, s.z, s.def->work_model(s.z), ceil);
  for (std::size_t i = 0; i < s.recs.size(); ++i) derive(s.recs[i], ceil, i == 0 ? nullptr : &s.recs[0]);
  if (s.def->grid) rank_tuning(s.recs);
  obs.size_end(*s.def, s.recs);
}

std::vector<record> runner::run(const std::vector<const pair_def*>& pairs, run_observer& observer) {
  // Each pair's records, in the pairs' order; a host-timed pair's fill in once its sweeps end.
  std::vector<std::vector<record>> by_pair(pairs.size());
  // Host-timed pairs take their first round of each size in place (right after verification, on
  // the verified state) and their later rounds in sweeps once the other pairs are done
  // (sweep_rounds): a slow spell of the host, which lasts a second or two, then reaches one round
  // of a size instead of all of them (docs/measurement.md, "Host-timed rounds in sweeps").
  std::vector<std::pair<std::size_t, std::vector<std::unique_ptr<impl::swept_size>>>> swept;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const pair_def& def = *pairs[p];
    // The same list `run` counts for its progress line (gpubench/size.hpp).
    const std::vector<size_point> sizes =
        planned_sizes(def.axes, impl_->opt.smallest, impl_->opt.axis_overrides, def.id());
    if (impl_->swept(def)) {
      auto& held = swept.emplace_back(p, std::vector<std::unique_ptr<impl::swept_size>>{}).second;
      for (const auto& z : sizes) held.push_back(impl_->start_swept(def, z, observer));
      continue;
    }
    observer.pair_begin(def);
    for (const auto& z : sizes) impl_->run_size(def, z, observer, by_pair[p]);
    observer.pair_end(def);
  }
  std::vector<impl::swept_size*> order;
  std::vector<round_sequence*> sequences;
  for (auto& [p, held] : swept)
    for (auto& s : held) {
      order.push_back(s.get());
      sequences.push_back(s->finished ? nullptr : &*s->sequence);
    }
  sweep_rounds(sequences, 1, [&](std::size_t i, int round) { impl_->visit_swept(*order[i], round, observer); });
  for (auto& [p, held] : swept) {
    observer.pair_begin(*pairs[p]);
    for (auto& s : held) {
      impl_->finish_swept(*s, observer);
      by_pair[p].insert(by_pair[p].end(), std::make_move_iterator(s->recs.begin()),
                        std::make_move_iterator(s->recs.end()));
    }
    observer.pair_end(*pairs[p]);
  }
  std::vector<record> out;
  for (auto& recs : by_pair)
    out.insert(out.end(), std::make_move_iterator(recs.begin()), std::make_move_iterator(recs.end()));
  return out;
}

std::vector<record> runner::open_size(const pair_def& def, const size_point& z, run_observer& observer,
                                      bool hold_between_rounds, bool verify) {
  close_size();
  auto open = std::make_unique<impl::open_size_state>();
  open->def = &def;
  open->z = z;
  open->ctx = setup_context{impl_->stream, derive_seed(impl_->opt.seed, fnv1a(def.id() + z.to_string()))};
  const work w = def.work_model(z);
  open->records = impl_->new_records(def, z, w);
  std::vector<run_split> splits;
  open->state = impl_->set_up_and_verify(def, z, open->ctx, observer, open->records, verify, &splits);
  for (std::size_t i = 0; verify && i < open->records.size(); ++i)
    if (open->records[i].status == record_status::passed && worth_warming(splits[i], w.path))
      open->cheap_to_warm.push_back(open->records[i].variant);
  open->hold_between_rounds = hold_between_rounds;
  if (!hold_between_rounds) impl_->release_state(*open);
  impl_->open = std::move(open);
  return impl_->open->records;
}

std::vector<std::string> runner::cheap_to_warm() const {
  return impl_->open ? impl_->open->cheap_to_warm : std::vector<std::string>{};
}

int runner::warm_open_size(const std::vector<std::string>& variants) {
  if (!impl_->open) throw usage_error("no size is open");
  impl::open_size_state& o = *impl_->open;
  if (!o.state) return 0;  // not held between rounds: each round builds its own
  int ran = 0;
  for (std::size_t i = 0; i < o.def->variants.size(); ++i) {
    const variant_def& v = o.def->variants[i];
    if (o.records[i].status != record_status::passed ||
        std::find(variants.begin(), variants.end(), v.name) == variants.end())
      continue;
    try {
      v.run(*o.state, impl_->stream);
      GPUBENCH_CUDA(cudaGetLastError());
      GPUBENCH_CUDA(cudaStreamSynchronize(impl_->stream));
    } catch (...) {
      cudaGetLastError();  // a failed warm-up must not leave its error for the next round to find
      throw;
    }
    ++ran;
  }
  return ran;
}

bool runner::prepare_open_round(int round) {
  if (!impl_->open) throw usage_error("no size is open");
  impl::open_size_state& o = *impl_->open;
  try {
    impl_->start_executor(o);
    o.executor->prepare_round(round);
    return true;
  } catch (const std::exception&) {
    cudaGetLastError();  // the round builds the state again and reports what fails
    return false;
  }
}

std::vector<record> runner::measure_open_round(int round, int planned, const std::vector<std::string>& variants,
                                               int cpu, bool added, std::optional<int> turn) {
  if (!impl_->open) throw usage_error("no size is open");
  impl::open_size_state& o = *impl_->open;
  std::vector<record> out;
  std::vector<record*> recs;
  out.reserve(variants.size());
  for (const std::string& name : variants) {
    const auto it =
        std::find_if(o.records.begin(), o.records.end(), [&](const record& r) { return r.variant == name; });
    if (it == o.records.end() || it->status != record_status::passed)
      throw usage_error(fmt::format("variant '{}' is not a verified variant of the open size", name));
    record r = *it;
    r.timing.samples_s.clear();
    r.timing.rounds.clear();
    out.push_back(std::move(r));
  }
  for (record& r : out) recs.push_back(&r);
  std::vector<measure_slot> slots = slots_for(*o.def, recs);
  o.last_sample_s.resize(o.def->variants.size(), 0.0);
  for (measure_slot& s : slots) s.earlier_sample_s = o.last_sample_s[s.variant];
  schedule_options so = schedule_for(impl_->opt, *o.def, o.z);
  so.sampling_cpu = cpu;
  so.turn = turn;
  time_source source = time_source::cuda_events;
  std::string note;
  try {
    impl_->start_executor(o);
    source = o.executor->source();
    for (auto& s : slots) {
      s.timing->stopped = stop_reason::converged;
      s.timing->wall_s = 0;
    }
    const int shares = std::max(1, planned);
    const stopping_criteria criteria = added ? so.total.added_round(shares) : so.total.per_round(shares);
    if (const auto failed = measure_round(*o.executor, slots, so, round, criteria)) {
      cudaGetLastError();
      for (auto& s : slots)
        if (s.error.empty()) s.error = fmt::format("a fresh state for this round failed: {}", *failed);
    }
    drop_failed_slots(slots);
    for (const measure_slot& s : slots)
      if (!s.timing->samples_s.empty()) o.last_sample_s[s.variant] = s.timing->samples_s.back();
    if (!o.hold_between_rounds) impl_->release_state(o);
  } catch (const std::exception& e) {  // the executor's own set-up (CUPTI) failed: nothing timed
    cudaGetLastError();
    for (auto& s : slots)
      if (s.error.empty()) s.error = fmt::format("failed to start sampling: {}", e.what());
  }
  impl_->settle_timed(slots, recs, source, note);
  return out;
}

std::vector<record> runner::finish_open_size(const std::vector<std::pair<std::string, double>>& medians) {
  if (!impl_->open) throw usage_error("no size is open");
  impl::open_size_state& o = *impl_->open;
  std::vector<record> recs = o.records;
  bool any = false;
  for (record& r : recs) {
    const auto it = std::find_if(medians.begin(), medians.end(), [&](const auto& m) { return m.first == r.variant; });
    if (r.status != record_status::passed || it == medians.end()) continue;
    r.stats = summary{.count = 1, .median = it->second};  // what goodput divides by
    any = true;
  }
  if (any && (o.def->goodput || impl_->metrics)) {
    o.executor.reset();  // CUPTI's activity API is the executor's while it lives
    if (!o.state) {
      o.ctx.stream = impl_->stream;  // a round may have moved the stream since the size opened
      o.state = o.def->setup(o.z, o.ctx);
      GPUBENCH_CUDA(cudaStreamSynchronize(impl_->stream));
    }
    run_observer quiet;
    impl_->goodput_and_metrics(*o.def, *o.state, recs, quiet, true);
  }
  // The summary was only lent to goodput: the reply carries no samples, so it carries no summary.
  for (record& r : recs) r.stats.reset();
  return recs;
}

void runner::close_size() {
  if (!impl_->open) return;
  impl_->open->executor.reset();
  impl_->open->state.reset();
  impl_->open.reset();
  cudaGetLastError();
}

}  // namespace gpubench
