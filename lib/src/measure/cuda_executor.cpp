// The schedule's executor on a GPU; see cuda_executor.hpp.
#include "measure/cuda_executor.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "gpubench/stats.hpp"

#include <nvtx3/nvToolsExt.h>

#include "measure/device_kernels.hpp"

namespace gpubench::detail {

namespace {
// The read flush's kernel, by the name CUPTI reports (a substring of its mangled name).
constexpr const char* kFlushKernel = "read_flush_kernel";

/// Runs `allocate`, and returns whether it got its memory: an allocation that finds no room is
/// cleared and leaves the round as it was; any other CUDA error propagates. Re-placement's extra
/// allocations (a spacer, a moved flush buffer) are worth having, never worth failing a round for.
template <class Allocate>
bool unless_out_of_memory(Allocate&& allocate) {
  try {
    allocate();
    return true;
  } catch (const cuda_error& e) {
    if (!e.out_of_memory()) throw;
    cudaGetLastError();
    return false;
  }
}
}  // namespace

cuda_executor::cuda_executor(const pair_def& def, const size_point& z, setup_context ctx,
                             std::unique_ptr<pair_state>& state, device_tools& tools)
    : def_(def), z_(z), ctx_(ctx), state_(state), t_(tools) {
  // Rests keep long device work below the power cap (schedule_options::rest_ratio). A pair whose
  // bytes cross PCIe is paced by the link, not by the SM clock the cap lowers, so its samples go
  // back to back: with rests after its millisecond copies, pinned_transfers sampled for 7.3-8.3 s
  // of a chapter 1 run on an H200, against 4.6-4.8 s back to back (docs/measurement.md, "Samples
  // rest").
  if (def.work_model) {
    const bytes_path path = def.work_model(z).path;
    rests_ = path != bytes_path::pcie && path != bytes_path::pcie_duplex;
  }
  if (def.timing == timing_method::host_wall) {
    source_ = time_source::host_wall;
  } else {
    const bool busy = t_.busy != nullptr && t_.busy->available();
    if (busy) t_.busy->enable(true);
    source_ = busy && t_.busy->available() ? time_source::gpu_busy : time_source::cuda_events_net;
  }
}

cuda_executor::~cuda_executor() {
  if (source_ == time_source::gpu_busy) t_.busy->enable(false);
}

void cuda_executor::begin_round(int round) {
  if (prepared_round_ != round) prepare_round(round);
  prepared_round_ = -1;
  if (source_ == time_source::cuda_events_net) offset_s_ = empty_span_s();
}

void cuda_executor::prepare_round(int round) {
  prepared_round_ = -1;
  placement_ = 0;
  // Round 0 samples the verified state, where the runner kept it (runner::open_size).
  if (round > 0 || !state_) build_fresh_state();
  prepared_round_ = round;
}

void cuda_executor::build_fresh_state() {
  // The old state goes first: two GiB-sized states at once could run out of memory.
  GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
  state_.reset();
  // Re-placement: the allocator hands freed memory back from the same few places, so fresh
  // buffers alone would land where the last round's were. A spacer of a random size, allocated
  // first and freed once the state is built, moves the state's buffers to other pages, so rounds
  // sample the placement effect that otherwise shows only between processes (Stabilizer,
  // Curtsinger & Berger, ASPLOS 2013; docs/measurement.md, "Re-placement").
  // Re-streaming: the driver hands out streams in blocks, and each block draws once how fast
  // its launches follow a flush (on an H100, three 4 MiB reads took 11.2 or 11.7 us by block;
  // docs/measurement.md, "Re-streaming"). A stream from the run's pool, drawn per round, makes
  // that a between-rounds term the rounds average, not an offset every round of the process
  // shares. The state is built on it, since states may bind their stream.
  if (t_.round_streams.size() > 1)  // the runner fills the pool only with replace_memory
    t_.stream = t_.round_streams[placement_draws_() % t_.round_streams.size()];
  ctx_.stream = t_.stream;
  device_buffer<std::byte> spacer;
  if (t_.replace_memory) {
    const std::uint64_t bytes = placement_spacer_bytes(placement_draws_());
    // No room for a spacer: this round keeps the allocator's placement.
    if (unless_out_of_memory([&] { spacer = device_buffer<std::byte>(bytes); })) placement_ = bytes;
  }
  if (t_.round_streams.size() > 1) replace_flush_buffer();
  state_ = def_.setup(z_, ctx_);
  GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
}

// Where the flush buffer lies is drawn once per process unless it moves. Moved with the stream at
// each fresh round, it left chapter 2's kernels of 4.5-21 us spreading less between ab's worker
// pairs (docs/measurement.md, "Re-streaming"), so its place was part of a process's level. The new
// buffer goes behind a spacer of a random size, and the old one is freed only once the new one is
// in hand, so a round that cannot get one keeps the old.
void cuda_executor::replace_flush_buffer() {
  device_buffer<std::byte> shift;
  unless_out_of_memory([&] {  // no room: the buffer stays where it is
    shift = device_buffer<std::byte>(placement_spacer_bytes(placement_draws_()));
    *t_.flush = device_buffer<unsigned char>(t_.flush->bytes());  // built before the old one goes
  });
}

// Two events with nothing between them span about a microsecond on an H100 (1.28 us), and a
// single kernel's span exceeds Nsight Compute's gpu__time_duration by nearly the same (1.06-1.22
// us, from an empty kernel to a 24 us one; docs/measurement.md, "Device work: the event span less
// the empty span"). It differs between machines (0.89 us on another H100), so it is measured
// here, before each round, exactly as a sample is taken: the flush, then the two events.
double cuda_executor::empty_span_s() {
  constexpr int kSettle = 5, kSpans = 31;
  std::vector<double> spans;
  spans.reserve(kSpans);
  for (int i = 0; i < kSettle + kSpans; ++i) {
    if (def_.cache == cache_mode::cold) flush_l2();
    GPUBENCH_CUDA(cudaEventRecord(t_.start, t_.stream));
    GPUBENCH_CUDA(cudaEventRecord(t_.stop, t_.stream));
    GPUBENCH_CUDA(cudaEventSynchronize(t_.stop));
    float ms = 0;
    GPUBENCH_CUDA(cudaEventElapsedTime(&ms, t_.start, t_.stop));
    if (i >= kSettle) spans.push_back(static_cast<double>(ms) * 1e-3);
  }
  return median(spans);
}

void cuda_executor::warm_up(std::size_t variant, int runs) {
  for (int i = 0; i < runs; ++i) def_.variants[variant].run(*state_, t_.stream);
  GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
  GPUBENCH_CUDA(cudaGetLastError());
}

void cuda_executor::rest(double seconds) {
  if (!rests_) return;
  rest_on_device(seconds, t_.stream);
  // Waiting here puts the rest on the host clock before the next sample's, so the schedule can
  // charge it to the sample it follows (and, with gpu_busy, CUPTI's record of it comes before the
  // sample's begin()).
  GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
}

double cuda_executor::now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Reading (not writing) 2x the L2 leaves it full of clean lines: nothing of the flush is written
// back to DRAM inside the next sample. A memset left up to an L2 of dirty lines, whose write-back
// added 4-10% to 80-250 us memory-bound kernels on an H100 (docs/measurement.md, "The L2 flush").
// A multi-GPU State flushes its other GPUs first and makes the stream wait for that, so the
// samples of chapter 8 start with every GPU's L2 cold (registry.hpp, flush_other_gpus).
void cuda_executor::flush_l2() {
  state_->flush_other_gpus(t_.stream);
  read_flush(t_.flush->get(), t_.flush->bytes(), t_.flush_sink, t_.stream);
}

namespace {
/// The sample's NVTX range, named like its record id, so ncu/nsys users can filter on it.
struct nvtx_scope {
  explicit nvtx_scope(const std::string* name) : on(name != nullptr && !name->empty()) {
    if (on) nvtxRangePushA(name->c_str());
  }
  ~nvtx_scope() {
    if (on) nvtxRangePop();
  }
  nvtx_scope(const nvtx_scope&) = delete;
  nvtx_scope& operator=(const nvtx_scope&) = delete;
  bool on;
};
}  // namespace

sample_reading cuda_executor::sample(std::size_t variant) {
  const variant_def& v = def_.variants[variant];
  const nvtx_scope range(variant < names_.size() ? &names_[variant] : nullptr);
  sample_reading out;
  if (source_ == time_source::host_wall) {
    if (def_.cache == cache_mode::cold) flush_l2();
    GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
    const auto t0 = std::chrono::steady_clock::now();
    v.run(*state_, t_.stream);
    GPUBENCH_CUDA(cudaStreamSynchronize(t_.stream));
    out.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    GPUBENCH_CUDA(cudaGetLastError());
    read_clock(out);
    return out;
  }
  const bool busy = source_ == time_source::gpu_busy;
  if (busy) t_.busy->begin(kFlushKernel);
  // The flush is still running when the events and the work are enqueued, so the first launch's
  // latency hides behind it.
  if (def_.cache == cache_mode::cold) flush_l2();
  GPUBENCH_CUDA(cudaEventRecord(t_.start, t_.stream));
  v.run(*state_, t_.stream);
  GPUBENCH_CUDA(cudaEventRecord(t_.stop, t_.stream));
  GPUBENCH_CUDA(cudaEventSynchronize(t_.stop));
  GPUBENCH_CUDA(cudaGetLastError());
  float ms = 0;
  GPUBENCH_CUDA(cudaEventElapsedTime(&ms, t_.start, t_.stop));
  const double span = static_cast<double>(ms) * 1e-3;
  if (source_ == time_source::cuda_events_net) {
    // A variant shorter than the empty span (by noise) keeps a positive time: a profile's samples
    // are > 0, and such a record reads as what it is, nothing measurable.
    constexpr double kShortest = 1e-9;
    out.time_s = std::max(span - offset_s_, kShortest);
    out.span_s = span;
  } else if (busy) {
    const auto gpu = t_.busy->collect();
    // No record (dropped, or CUPTI failed mid-run): the record cannot mix figures, so fail the
    // sample loudly rather than substitute the span.
    if (!gpu) throw runtime_error("CUPTI delivered no activity record for this sample (records dropped?)");
    out.time_s = *gpu;
    out.span_s = span;
  } else {
    out.time_s = span;
  }
  read_clock(out);
  return out;
}

/// SM clock now and whether a thermal/HW slowdown is active (outside the timed region).
void cuda_executor::read_clock(sample_reading& r) {
  if (t_.nv != nullptr && t_.nv_device) {
    const auto mhz = t_.nv->sm_clock_mhz(*t_.nv_device);
    const auto reasons = t_.nv->clock_event_reasons(*t_.nv_device);
    r.sm_clock_mhz = mhz ? *mhz : 0.0;
    r.throttled = reasons && nvml::is_slowdown(*reasons);
  } else {
    r.sm_clock_mhz = probe_sm_clock_mhz(t_.stream, t_.probe_device, t_.probe_host);
  }
}

}  // namespace gpubench::detail
