#pragma once
/// Writers of results for people and for other tools. Each returns the whole document as a
/// string; the caller writes it (atomically) where asked. CUDA-free.
#include <string>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"

namespace gpubench {

/// Google Benchmark JSON (as `--benchmark_format=json` writes it): a context block and one
/// `"run_type": "iteration"` row per sample, named by record id, `real_time`/`cpu_time` in
/// `time_unit`, plus flat counters (bytes_per_second, items_per_second, ...). Google
/// Benchmark's compare.py, github-action-benchmark and Bencher read it unchanged.
std::string export_gbench(const profile& p);
/// Bencher Metric Format: {record id: {"latency": {value, lower_value, upper_value} (ns), "throughput": ...}}.
std::string export_bmf(const profile& p);
/// One row per record: id, status, median and summary statistics, throughput, floor, speedup.
std::string export_csv(const profile& p);
/// A markdown table per pair (fits a CI job summary).
std::string export_markdown(const profile& p);

/// The comparison as a markdown report (summary line, table of records, lists of unmatched).
std::string comparison_markdown(const comparison& c);
/// JUnit XML: one testcase per record; slower → failure, inconclusive → skipped.
std::string comparison_junit(const comparison& c);
/// The comparison as machine-readable JSON.
nlohmann::ordered_json comparison_json(const comparison& c);

}  // namespace gpubench
