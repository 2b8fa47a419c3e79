#pragma once
// The console's view of launch facts and of a tuning pair's configurations (chapter 6 on). CUDA-free.
#include <string>
#include <vector>

#include "gpubench/metrics.hpp"
#include "gpubench/record.hpp"

namespace gpubench::detail {

/// One line (no indentation, no colour) from a record's launch facts, e.g.
///   256 threads × 528 blocks · 4 blocks/SM · occupancy 50.0% theoretical, 48.7% achieved · 64 registers · local 0 B/thread
/// Known keys first, in that order; any other fact as "name value". `counters` (may be null) adds
/// the achieved occupancy when collected. Empty when there are no facts.
std::string launch_line(const launch_facts& facts, const metric_result* counters);

/// One line per configuration of a tuning pair, e.g.
///   b256_k8    #3  181.2 µs ± 0.3%  93.1% of floor  1.02×  occupancy 100.0% · 8 blocks/SM · 32 registers
/// `name_width` pads the configuration's name. A record that was not timed shows its status and reason.
std::string tuning_row(const record& r, std::size_t name_width);

/// The verdict for one size: the best configuration, its margin over the runner-up, how it
/// compares with the default, and which configurations sit within `near` of it.
std::vector<std::string> tuning_verdict(const tuning_summary& s, double near = 0.02);

}  // namespace gpubench::detail
