#pragma once
// GPU busy time of one sample from CUPTI activity records: the union of the [start, end] intervals
// of the kernels, copies and memsets that ran between begin() and collect(), minus the engine's
// own L2 flush. CUDA events around a launch add their own span (about 1-2 us on H100/H200) and any
// launch gaps between a variant's kernels; these timestamps do not, and they measure what Nsight
// Compute's summed gpu__time_duration does (docs/measurement.md, "GPU busy time").
#include <memory>
#include <optional>
#include <string>

namespace gpubench::detail {

class gpu_busy_timer {
 public:
  /// Registers the activity buffers. When CUPTI refuses (another tool such as nsys owns the
  /// activity API, an old driver, ...) the timer is unavailable and says why; nothing throws.
  gpu_busy_timer();
  ~gpu_busy_timer();
  gpu_busy_timer(const gpu_busy_timer&) = delete;
  gpu_busy_timer& operator=(const gpu_busy_timer&) = delete;

  [[nodiscard]] bool available() const { return reason_.empty(); }
  [[nodiscard]] const std::string& unavailable_reason() const { return reason_; }

  /// Turns recording of kernels, copies and memsets on or off (on only while a device-timed pair
  /// samples: tracing costs host time per call, which host-timed pairs would measure). A failure
  /// makes the timer unavailable.
  void enable(bool on);
  /// The same with only kernel activity recorded (goodput: the GPU's compute time). Copies and
  /// memsets then cost nothing extra on the host and count nothing.
  void enable_kernels_only(bool on);
  /// Drops every record so far: the next collect() sees only work enqueued after this call,
  /// leaving out kernels whose name contains `exclude_kernel` (the engine's flush; may be null).
  void begin(const char* exclude_kernel);
  /// After the sample's work has completed (its stream synchronized): the busy time in seconds
  /// of the records since begin(); nothing when no record arrived or CUPTI dropped some.
  std::optional<double> collect();

 private:
  void set(bool on, bool kernels_only);
  std::string reason_;
  bool enabled_ = false;
  bool kernels_only_ = false;
};

}  // namespace gpubench::detail
