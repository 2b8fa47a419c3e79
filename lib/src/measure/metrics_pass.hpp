#pragma once
// The metrics pass of a size (run --metrics): after every variant of the size is timed, replay each
// verified variant under the CUPTI Range Profiler. Kept apart from runner.cpp so that the timing
// loop never sees CUPTI, and so that the engine calls it in a few lines.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpubench/cuda.hpp"
#include "gpubench/record.hpp"
#include "gpubench/registry.hpp"

namespace gpubench {
class range_profiler;
}

namespace gpubench::detail {

class metrics_pass {
 public:
  /// Starts CUPTI's profiler on `device` (its context current). Never throws; see unavailable().
  metrics_pass(int device, std::vector<std::string> metrics, bool per_kernel);
  ~metrics_pass();
  metrics_pass(const metrics_pass&) = delete;
  metrics_pass& operator=(const metrics_pass&) = delete;

  /// Why no metric will be collected in this run (empty when they can be).
  [[nodiscard]] const std::string& unavailable() const;

  /// Sets r.metrics: the variant replayed once per pass on `stream`, with the L2 flushed before
  /// every pass by reading `flush_buffer` (>= 2x L2) outside the profiled range, then the
  /// work-model cross-check. Never throws.
  void collect(const variant_def& v, pair_state& state, record& r, stream_t stream, const void* flush_buffer,
               std::size_t flush_bytes);

 private:
  std::vector<std::string> metrics_;
  bool per_kernel_ = false;
  std::unique_ptr<range_profiler> profiler_;
  std::unique_ptr<device_buffer<unsigned long long>> sink_;  // read_flush's never-written output
};

}  // namespace gpubench::detail
