#pragma once
// The compact hardware-metrics view under a record in the console (run --metrics). CUDA-free.
#include <string>
#include <vector>

#include "gpubench/metrics.hpp"

namespace gpubench::detail {

/// Lines (without indentation or colour) for a collected result: traffic and FLOPs, then
/// utilisation and cache behaviour; each only with what was collected. Empty when nothing was.
std::vector<std::string> metrics_lines(const metric_result& m);

}  // namespace gpubench::detail
