#pragma once
/// Writers of results for people and for other tools. Each returns the whole document as a
/// string; the caller writes it (atomically) where asked. CUDA-free.
#include <functional>
#include <string>
#include <string_view>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"

namespace gpubench {

/// What a Google Benchmark export holds for each passed record.
enum class gbench_rows {
  aggregates,  ///< four "aggregate" rows: mean, median, stddev, cv (as --benchmark_report_aggregates_only)
  samples,     ///< one "iteration" row per sample (as --benchmark_repetitions=N without aggregates)
};
/// Google Benchmark JSON (as `--benchmark_format=json` writes it): a context block and, per passed
/// record, the rows `rows` says, named by record id, `real_time`/`cpu_time` in `time_unit`, plus
/// flat counters (bytes_per_second, items_per_second, ...). Google Benchmark's compare.py,
/// github-action-benchmark and Bencher read it unchanged.
std::string export_gbench(const profile& p, gbench_rows rows = gbench_rows::aggregates);
/// The same document, handed to `sink` piece by piece as it is made (a million sample rows never
/// sit in memory at once).
void write_gbench(const profile& p, gbench_rows rows, const std::function<void(std::string_view)>& sink);
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
