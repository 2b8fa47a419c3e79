// The engine for pairs that run one process per GPU (gpubench/rank_runner.hpp): the runner's
// steps (setup, verification against the baseline, interleaved rounds, derived figures) with an
// agreement across the ranks after each step, and samples timed in lockstep as nccl-tests times
// them (gpubench/rank_group.hpp). A rank never enters a collective alone: every branch it takes
// was agreed by all.
#include <algorithm>
#include <chrono>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/cuda.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/error.hpp"
#include "gpubench/rank_runner.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/result_regions.hpp"
#include "gpubench/stats.hpp"
#include "measure/device_kernels.hpp"
#include "measure/output_regions.hpp"

namespace gpubench {

namespace {

using clock_type = std::chrono::steady_clock;

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

/// One rank's side of the schedule on its GPU: the L2 read flush before each sample (untimed),
/// CUDA events around the variant's work on the run's stream.
class rank_cuda_executor final : public rank_executor {
 public:
  struct tools {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    const void* flush;
    std::size_t flush_bytes;
    unsigned long long* sink;
  };
  rank_cuda_executor(const pair_def& def, const size_point& z, const setup_context& ctx,
                     std::unique_ptr<pair_state>& state, const tools& t)
      : def_(def), z_(z), ctx_(ctx), state_(state), t_(t) {}

  void begin_round(int round) override {
    if (round == 0) return;  // round 0 samples the state verification used
    state_.reset();
    state_ = def_.setup(z_, ctx_);
    GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
  }
  void warm_up(std::size_t variant, int runs) override {
    for (int k = 0; k < runs; ++k) def_.variants[variant].run(*state_, t_.stream);
    GPUBENCH_CUDA(cudaGetLastError());
    GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
  }
  void prepare(std::size_t /*variant*/) override {
    if (def_.cache == cache_mode::cold) {
      state_->flush_other_gpus(t_.stream);
      detail::read_flush(t_.flush, t_.flush_bytes, t_.sink, t_.stream);
    }
    GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
  }
  sample_reading timed(std::size_t variant) override {
    GPUBENCH_CUDA(cudaEventRecord(t_.start, t_.stream));
    def_.variants[variant].run(*state_, t_.stream);
    GPUBENCH_CUDA(cudaGetLastError());
    GPUBENCH_CUDA(cudaEventRecord(t_.stop, t_.stream));
    GPUBENCH_CUDA(cudaEventSynchronize(t_.stop));
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, t_.start, t_.stop));
    return {.time_s = double(ms) * 1e-3};
  }
  double now_s() override { return std::chrono::duration<double>(clock_type::now().time_since_epoch()).count(); }

 private:
  const pair_def& def_;
  const size_point& z_;
  setup_context ctx_;
  std::unique_ptr<pair_state>& state_;
  tools t_;
};

/// What one rank found, agreed: the worst outcome over the ranks and each rank's reason.
struct agreed {
  int worst = 0;        ///< 0 ok, then higher is worse (the caller's scale)
  std::string reasons;  ///< "rank 1: ..." for every rank that was not ok
};
agreed agree_on(rank_group& g, int mine, const std::string& reason) {
  const double v = mine;
  agreed a;
  a.worst = int(g.max(std::span<const double>(&v, 1)).at(0));
  if (a.worst == 0) return a;
  a.reasons = rank_reasons(g.all_gather(mine == 0 ? std::string() : (reason.empty() ? "failed" : reason)));
  return a;
}

}  // namespace

struct rank_runner::impl {
  rank_group* group = nullptr;
  rank_run_options opt;
  device_info dev;
  ceilings ceil;
  std::optional<cuda_stream> stream;
  std::optional<cuda_event> start, stop;
  device_buffer<unsigned char> flush;
  device_buffer<unsigned long long> sink;
  host_array reference, got;

  void run_size(const pair_def& def, const size_point& z, std::vector<record>& out);
};

rank_runner::rank_runner(rank_group& group, rank_run_options options) : impl_(std::make_unique<impl>()) {
  impl& m = *impl_;
  m.group = &group;
  m.opt = std::move(options);
  int ordinal = 0;
  std::string failure;
  try {
    const int count = device_count();
    if (count == 0) throw runtime_error(no_device_message());
    ordinal = group.local_rank() % count;
    GPUBENCH_CUDA(cudaSetDevice(ordinal));
    GPUBENCH_CUDA(cudaFree(nullptr));  // the context now, not inside the first measurement
  } catch (const std::exception& e) {
    failure = e.what();
  }
  const agreed opened = agree_on(group, failure.empty() ? 0 : 1, failure);
  if (opened.worst != 0) throw runtime_error(opened.reasons);
  m.stream.emplace();
  m.start.emplace();
  m.stop.emplace();
  m.dev = query_device(ordinal);
  m.ceil = theoretical_ceilings(m.dev);
  m.ceil.peer_bytes_per_s = 0;  // between processes the link is not known: no floor for collectives
  m.flush = device_buffer<unsigned char>(std::max<std::uint64_t>(2 * m.dev.l2_bytes, 8u << 20));
  m.sink = device_buffer<unsigned long long>(1);
  if (m.opt.seed == 0 && group.rank() == 0)
    m.opt.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  group.broadcast(std::as_writable_bytes(std::span<std::uint64_t>(&m.opt.seed, 1)), 0);
}

rank_runner::~rank_runner() = default;
const device_info& rank_runner::device() const { return impl_->dev; }
const ceilings& rank_runner::device_ceilings() const { return impl_->ceil; }
const rank_run_options& rank_runner::options() const { return impl_->opt; }

void rank_runner::impl::run_size(const pair_def& def, const size_point& z, std::vector<record>& out) {
  rank_group& g = *group;
  const std::size_t first = out.size();
  const work w = def.work_model(z);
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
  const auto recs = [&](std::size_t i) -> record& { return out[first + i]; };
  const auto mark_all = [&](record_status s, const std::string& why) {
    for (std::size_t i = 0; i < def.variants.size(); ++i) {
      recs(i).status = s;
      recs(i).reason = why;
    }
  };

  // Setup, on every rank at once (a State may build its communicator here). 1: not supported,
  // 2: out of memory, 3: any other failure.
  std::unique_ptr<pair_state> state;
  setup_context ctx{stream->get(), derive_seed(opt.seed, fnv1a(def.id() + z.to_string())), &g};
  int code = 0;
  std::string why;
  const auto setup_start = clock_type::now();
  try {
    state = def.setup(z, ctx);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream->get()));
  } catch (const not_supported& e) {
    code = 1, why = e.what();
  } catch (const cuda_error& e) {
    code = e.out_of_memory() ? 2 : 3, why = e.what();
  } catch (const std::exception& e) {
    code = 3, why = e.what();
  }
  if (code != 0) {
    state.reset();
    cudaGetLastError();
  }
  const agreed set_up = agree_on(g, code, why);
  const double setup_s = std::chrono::duration<double>(clock_type::now() - setup_start).count();
  for (std::size_t i = 0; i < def.variants.size(); ++i) recs(i).timing.setup_s = setup_s;
  if (set_up.worst != 0) {
    state.reset();  // every rank drops its State, built or not
    if (set_up.worst == 1) mark_all(record_status::skipped, "not supported: " + set_up.reasons);
    else if (set_up.worst == 2) mark_all(record_status::skipped, "out of memory at this size: " + set_up.reasons);
    else mark_all(record_status::error, "setup failed: " + set_up.reasons);
  } else {
    // Verification: each rank checks its own result against its own baseline's; a record passes
    // only where every rank's does. 1: not verified or incorrect, 2: the variant raised an error.
    bool reference_ok = false;
    for (std::size_t i = 0; i < def.variants.size(); ++i) {
      record& r = recs(i);
      const auto verify_start = clock_type::now();
      int bad = 0;
      std::string message;
      try {
        const std::vector<output_view> regions = result_regions(*state, def.variants[i].name);
        detail::poison_regions(regions, stream->get());
        GPUBENCH_CUDA(cudaStreamSynchronize(stream->get()));
        def.variants[i].run(*state, stream->get());
        GPUBENCH_CUDA(cudaGetLastError());
        GPUBENCH_CUDA(cudaStreamSynchronize(stream->get()));
        if (i == 0) {
          detail::read_back_regions(regions, reference);
          r.check = check_reference(reference);
        } else if (reference_ok) {
          detail::read_back_regions(regions, got);
          r.check = compare(got, reference, r.tol);
        } else {
          r.check.result = disposition::not_verified;
          r.check.message = "the baseline failed its own check, so nothing could be verified against it";
        }
        if (r.check.result == disposition::incorrect || r.check.result == disposition::not_verified)
          bad = 1, message = r.check.message;
      } catch (const std::exception& e) {
        cudaGetLastError();
        bad = 2, message = e.what();
      }
      const agreed verified = agree_on(g, bad, message);
      if (verified.worst == 2) {
        r.status = record_status::error;
        r.reason = verified.reasons;
        r.check.result = disposition::not_verified;
        r.check.message = "the variant raised an error";
      } else if (verified.worst == 1) {
        r.status = record_status::failed;
        r.reason = verified.reasons;
        if (r.check.result == disposition::passed || r.check.result == disposition::reference)
          r.check.result = disposition::incorrect,
          r.check.message = "another rank's result differs: " + verified.reasons;
      }
      if (i == 0) reference_ok = verified.worst == 0;
      r.timing.verify_s = std::chrono::duration<double>(clock_type::now() - verify_start).count();
    }

    std::vector<measure_slot> slots;
    std::vector<record*> timed;
    for (std::size_t i = 0; i < def.variants.size(); ++i)
      if (recs(i).status == record_status::passed) {
        slots.push_back({i, &recs(i).timing, {}});
        timed.push_back(&recs(i));
      }
    if (!slots.empty()) {
      schedule_options so;
      so.rounds = opt.rounds;
      so.max_rounds =
          opt.rounds;  // collectives' bytes cross between GPUs: rounds do not redraw what processes differ by
      so.warmup_runs = opt.warmup_runs;
      so.total = opt.stopping;
      const rank_cuda_executor::tools t{stream->get(), start->get(),  stop->get(),
                                        flush.get(),   flush.bytes(), sink.get()};
      rank_cuda_executor local(def, z, ctx, state, t);
      lockstep_executor ex(local, g);
      const std::string note = measure_rounds(ex, slots, so);
      for (std::size_t k = 0; k < slots.size(); ++k) {
        record& r = *timed[k];
        r.timing.source = time_source::cuda_events;
        if (!slots[k].error.empty() || r.timing.samples_s.empty()) {
          r.status = record_status::error;
          r.reason = slots[k].error.empty() ? "no samples" : slots[k].error;
          r.stats.reset();
          continue;
        }
        if (!note.empty()) r.reason = note;
        r.stats = summarize(r.timing.samples_s);
      }
    }
  }
  state.reset();
  for (std::size_t i = 0; i < def.variants.size(); ++i) derive(recs(i), ceil, i == 0 ? nullptr : &recs(0));
}

std::vector<record> rank_runner::run(const std::vector<const pair_def*>& pairs,
                                     const std::function<void(const std::vector<record>&)>& size_done) {
  std::vector<record> out;
  for (const pair_def* def : pairs) {
    if (!def->one_process_per_gpu)
      throw usage_error(fmt::format("{} runs in one process: `gpubench run --pair {}`", def->id(), def->name));
    for (size_point z : planned_sizes(def->axes, impl_->opt.smallest, impl_->opt.axis_overrides, def->id())) {
      auto entries = z.entries();
      entries.emplace_back("ranks", axis_value{std::int64_t(impl_->group->size())});
      const std::size_t first = out.size();
      impl_->run_size(*def, size_point(std::move(entries)), out);
      if (size_done) size_done(std::vector<record>(out.begin() + std::ptrdiff_t(first), out.end()));
    }
  }
  return out;
}

}  // namespace gpubench
