#pragma once
/// A small RAII wrapper over the CUPTI Range Profiler (cupti_range_profiler.h, cupti_profiler_host.h;
/// CUDA >= 12.6). Two parts:
///  - metric_catalog: the host API for a named chip ("GH100"). Needs no GPU and no driver, so metric
///    names and pass counts are checked offline (unit tests, `gpubench metrics --list --chip`).
///  - range_profiler: collects metrics of one piece of GPU work on the current context, replaying
///    it (user replay) until every pass is in. Never throws from collect(): failures come back in
///    the result's status and reason.
/// This header is CUDA-free; the CUPTI types stay in the implementation.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpubench/metrics.hpp"

namespace gpubench {

/// The sentence shown when counters need admin rights (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES).
extern const char* const kCounterPermissionMessage;

/// A reason not to touch the counters when this process runs under Nsight Compute, Nsight Systems,
/// nvprof or another CUDA injection tool (they hold the counters or serialise our replays), judged
/// from the environment variables those tools set; nullopt otherwise.
std::optional<std::string> external_profiler_reason();

/// The chip name of CUDA device `device` ("GH100"), or nullopt with `why` set (no device, no driver).
std::optional<std::string> device_chip_name(int device, std::string* why = nullptr);

/// What the CUPTI host API knows about one chip's metrics. Offline; RAII over a host object.
class metric_catalog {
 public:
  /// Throws runtime_error naming the chip and the chips this CUPTI supports.
  explicit metric_catalog(const std::string& chip);
  ~metric_catalog();
  metric_catalog(metric_catalog&&) noexcept;
  metric_catalog& operator=(metric_catalog&&) noexcept;

  [[nodiscard]] const std::string& chip() const;

  struct properties {
    std::string description;
    std::string unit;     ///< "byte", "nanosecond", "percent", ...
    bool counter = true;  ///< a counter (sums over kernels) rather than a ratio or throughput
  };
  /// nullopt when the chip has no such metric (or the name is malformed).
  [[nodiscard]] std::optional<properties> describe(const std::string& metric) const;
  [[nodiscard]] bool has(const std::string& metric) const { return describe(metric).has_value(); }

  /// The config image for `metrics` (all must exist on the chip) and the passes it needs. Creating
  /// one is slow (tens of ms); callers cache it. Throws runtime_error.
  struct config {
    std::vector<std::uint8_t> image;
    int passes = 0;
  };
  [[nodiscard]] config make_config(const std::vector<std::string>& metrics,
                                   const std::vector<std::uint8_t>& counter_availability = {}) const;
  [[nodiscard]] int passes(const std::vector<std::string>& metrics) const { return make_config(metrics).passes; }

  /// Chips this CUPTI build knows ("GA100", "GH100", ...).
  static std::vector<std::string> supported_chips();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// How collect() cuts the work into ranges.
enum class range_mode {
  whole,       ///< one user range around the whole workload, user replay (ratios are the workload's)
  per_kernel,  ///< one range per kernel (auto range, the variant replayed per pass); result.kernels filled, counters summed
};

/// The work to measure. `run` must leave its work finished (synchronise its stream) before it returns.
/// `prepare` runs before every pass inside the profiling session but outside the measured range
/// (after cuptiRangeProfilerStart, before the range), so that a cold-cache flush there also
/// cleans whatever starting the session left dirty in L2 (docs/counters.md, "The flush runs inside
/// the session"). In per-kernel mode every kernel between start and stop becomes a range: the first
/// `prepare_kernels` ranges of each pass are prepare's and are left out of the result.
struct profiled_work {
  std::string name;                 ///< the range's name
  std::function<void()> prepare;    ///< e.g. flush L2 and synchronise; may be empty
  std::function<void()> run;
  std::size_t prepare_kernels = 0;  ///< kernels `prepare` launches per pass (exactly)
};

/// The Range Profiler on the CUDA context current on the calling thread, for device `device`.
class range_profiler {
 public:
  /// Initialises CUPTI's profiler and checks, once, that counters can be read here (not under
  /// ncu/nsys, permitted, a supported GPU). Never throws: see available() and reason().
  explicit range_profiler(int device);
  ~range_profiler();
  range_profiler(const range_profiler&) = delete;
  range_profiler& operator=(const range_profiler&) = delete;

  [[nodiscard]] bool available() const;
  /// Why not available (empty when available).
  [[nodiscard]] const std::string& reason() const;
  [[nodiscard]] const std::string& chip() const;

  /// Collects `metrics` for `work`: metrics this chip lacks are left out and named in
  /// result.missing (and in result.reason unless optional); the profiler is enabled only while
  /// collecting. Fills status, reason, chip, requested, missing, passes, collection_s, values,
  /// derived and, per kernel, kernels. Never throws.
  metric_result collect(const std::vector<std::string>& metrics, const profiled_work& work,
                        range_mode mode = range_mode::whole);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace gpubench
