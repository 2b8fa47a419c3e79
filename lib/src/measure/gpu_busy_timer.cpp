// CUPTI activity records as a sample clock (gpu_busy_timer.hpp).
#include "measure/gpu_busy_timer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <mutex>
#include <utility>
#include <vector>

#include <cupti_activity.h>

#include "cupti/profiler/cupti_call.hpp"

namespace gpubench::detail {

namespace {

struct interval {
  std::uint64_t start, end;
};

// CUPTI hands buffers to plain C callbacks, possibly from its own thread: one process-wide sink.
struct activity_sink {
  std::mutex lock;
  std::vector<interval> intervals;
  const char* exclude = nullptr;  // kernel names containing this are the engine's, not the variant's
  bool dropped = false;           // CUPTI reported dropped records: a sample cannot be trusted
};
activity_sink& sink() {
  static activity_sink s;
  return s;
}

constexpr std::size_t kBufferBytes = 1 << 20;  // ~5000 kernel records; CUPTI asks for more as needed

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  // CUPTI wants 8-byte alignment; aligned_alloc gives more.
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(64, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, std::uint32_t stream, std::uint8_t* buffer, std::size_t /*size*/,
                               std::size_t valid) {
  activity_sink& s = sink();
  {
    std::lock_guard g(s.lock);
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
          if (s.exclude != nullptr && k->name != nullptr && std::strstr(k->name, s.exclude) != nullptr) break;
          s.intervals.push_back({k->start, k->end});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(rec);
          s.intervals.push_back({m->start, m->end});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(rec);
          s.intervals.push_back({m->start, m->end});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(rec);
          s.intervals.push_back({m->start, m->end});
          break;
        }
        default: break;
      }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) s.dropped = true;
  }
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};

/// Total length of the union of the intervals (sorted in place).
std::uint64_t union_length(std::vector<interval>& v) {
  std::sort(v.begin(), v.end(), [](const interval& a, const interval& b) { return a.start < b.start; });
  std::uint64_t total = 0, cur_start = 0, cur_end = 0;
  bool open = false;
  for (const interval& i : v) {
    if (i.end <= i.start) continue;  // an incomplete record (no end timestamp) adds nothing
    if (open && i.start <= cur_end) {
      cur_end = std::max(cur_end, i.end);
      continue;
    }
    if (open) total += cur_end - cur_start;
    cur_start = i.start, cur_end = i.end, open = true;
  }
  if (open) total += cur_end - cur_start;
  return total;
}

}  // namespace

gpu_busy_timer::gpu_busy_timer() {
  try {
    GPUBENCH_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  } catch (const cupti_failure& e) {
    reason_ = e.what();
  }
}

gpu_busy_timer::~gpu_busy_timer() {
  if (enabled_) enable(false);
  if (available()) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void gpu_busy_timer::enable(bool on) { set(on, false); }
void gpu_busy_timer::enable_kernels_only(bool on) { set(on, true); }

void gpu_busy_timer::set(bool on, bool kernels_only) {
  if (!available()) return;
  if (!on) {
    if (!enabled_) return;
    kernels_only = kernels_only_;  // disable what was enabled
  } else if (enabled_) {
    if (kernels_only == kernels_only_) return;
    set(false, kernels_only_);  // switching modes: off first
    if (!available()) return;
  }
  const std::size_t kinds = kernels_only ? 1 : std::size(kKinds);  // kKinds[0] is the kernel kind
  try {
    for (std::size_t i = 0; i < kinds; ++i) {
      if (on) GPUBENCH_CUPTI(cuptiActivityEnable(kKinds[i]));
      else GPUBENCH_CUPTI(cuptiActivityDisable(kKinds[i]));
    }
    enabled_ = on;
    kernels_only_ = kernels_only;
    if (!on) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // leave nothing for a later sample
  } catch (const cupti_failure& e) {
    for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
    enabled_ = false;
    reason_ = e.what();
  }
}

void gpu_busy_timer::begin(const char* exclude_kernel) {
  if (!enabled_) return;
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  activity_sink& s = sink();
  std::lock_guard g(s.lock);
  s.intervals.clear();
  s.dropped = false;
  s.exclude = exclude_kernel;  // from now on, also for buffers CUPTI completes on its own thread
}

std::optional<double> gpu_busy_timer::collect() {
  if (!enabled_) return std::nullopt;
  // Forced: the work is complete (the caller synchronized), so every record has its timestamps.
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  activity_sink& s = sink();
  std::lock_guard g(s.lock);
  if (s.intervals.empty() || s.dropped) return std::nullopt;
  const std::uint64_t ns = union_length(s.intervals);
  s.intervals.clear();
  if (ns == 0) return std::nullopt;
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace gpubench::detail
