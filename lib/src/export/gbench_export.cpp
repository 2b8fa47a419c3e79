/// Google Benchmark JSON (`--benchmark_format=json`, checked against libbenchmark 1.7.1's
/// JSONReporter by tests/unit/export_test.cpp): tools that read Google Benchmark output —
/// compare.py, github-action-benchmark, Bencher's google_benchmark adapter — read a profile
/// exported this way unchanged.
///
/// Mapping. A benchmark "family" is a (chapter, pair, variant); its instances are the sizes, so
/// a record is one family instance, named by its id, and its samples are its repetitions. By
/// default each passed record gives four `"run_type": "aggregate"` rows (mean, median, stddev,
/// cv), as `--benchmark_repetitions=N --benchmark_report_aggregates_only=true` writes them: the
/// export grows with the records, not the samples, and compare.py compares the aggregates.
/// On request (gbench_rows::samples) every sample is instead one `"run_type": "iteration"` row
/// (iterations 1, repetitions = sample count, repetition_index = sample index), as
/// `--benchmark_repetitions=N` writes them before its aggregates; compare.py then runs its U test
/// on the samples. Rows are streamed: memory holds one row at a time. A GPU sample has no
/// separate CPU time, so cpu_time repeats real_time.
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {
namespace {

using ojson = nlohmann::ordered_json;

/// A number, or null where it is not finite (JSON has neither NaN nor infinity).
ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

/// Google Benchmark writes the local time with a numeric offset ("2026-11-22T02:56:59+00:00");
/// profiles keep UTC with a "Z".
std::string gbench_date(const std::string& iso_utc) {
  if (!iso_utc.empty() && iso_utc.back() == 'Z') return iso_utc.substr(0, iso_utc.size() - 1) + "+00:00";
  return iso_utc;
}

struct time_unit {
  const char* name;
  double per_second;
};

/// One unit per record, picked from its median so the numbers read well: below 1 µs in ns,
/// below 1 ms in µs, otherwise ms.
time_unit unit_for(const record& r) {
  const double m = r.stats ? r.stats->median : median(r.timing.samples_s);
  if (m < 1e-6) return {"ns", 1e9};
  if (m < 1e-3) return {"us", 1e6};
  return {"ms", 1e3};
}

ojson context_json(const profile& p) {
  const device_info& d = p.prov.device;
  ojson c = ojson::object();
  c["date"] = gbench_date(p.prov.started_at);
  c["host_name"] = p.prov.hostname;
  c["executable"] = "gpubench";
  // The processors the benchmarks ran on are the GPU's: its SMs and their peak clock stand in
  // for Google Benchmark's CPU count and MHz (the host's CPUs are not in the profile).
  c["num_cpus"] = d.sm_count;
  c["mhz_per_cpu"] = static_cast<std::int64_t>(std::llround(std::isfinite(d.sm_clock_max_mhz) ? d.sm_clock_max_mhz : 0));
  c["cpu_scaling_enabled"] = false;
  // The one cache the profile knows: the GPU's L2, shared by all SMs. Google Benchmark's cache
  // types are "Data", "Instruction" and "Unified"; the L2 holds both, so "Unified", level 2.
  ojson caches = ojson::array();
  if (d.l2_bytes > 0)
    caches.push_back({{"type", "Unified"}, {"level", 2}, {"size", d.l2_bytes}, {"num_sharing", d.sm_count}});
  c["caches"] = std::move(caches);
  c["load_avg"] = ojson::array();
  c["library_build_type"] = "release";
  // Extra keys (readers ignore what they do not know): what the numbers were measured on.
  c["gpu_name"] = d.name;
  c["gpu_uuid"] = d.uuid;
  c["gpubench_version"] = p.prov.gpubench_version;
  c["git_sha"] = p.prov.git_sha;
  return c;
}

/// The mean, median and sample standard deviation Google Benchmark reports for repetitions.
struct moments {
  double mean = 0, median = 0, stdev = 0;
};

/// Of work / sample over the samples (Google Benchmark aggregates each repetition's rate, so the
/// mean rate is not work / mean time). O(n): no sort for a million samples.
moments rate_moments(std::span<const double> samples, double work) {
  std::vector<double> rates(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) rates[i] = work / samples[i];
  moments m;
  for (const double x : rates) m.mean += x / static_cast<double>(rates.size());
  double ss = 0;
  for (const double x : rates) ss += (x - m.mean) * (x - m.mean);
  m.stdev = rates.size() > 1 ? std::sqrt(ss / static_cast<double>(rates.size() - 1)) : 0.0;
  m.median = median(rates);
  return m;
}

/// The four aggregates Google Benchmark writes for repetitions, of the times (the record's
/// summary, which the reader checked against the samples) and of each rate counter.
void aggregate_rows(const record& r, const time_unit& unit, std::int64_t family, std::int64_t instance,
                    const std::function<void(const ojson&)>& emit) {
  const auto& samples = r.timing.samples_s;
  const summary s = r.stats ? *r.stats : summarize(samples);
  const moments times{s.mean, s.median, s.stdev};
  std::vector<std::pair<const char*, moments>> rates;
  if (r.declared.bytes > 0) rates.emplace_back("bytes_per_second", rate_moments(samples, r.declared.bytes));
  if (r.declared.items > 0) rates.emplace_back("items_per_second", rate_moments(samples, r.declared.items));
  if (r.declared.flops > 0) rates.emplace_back("flops_per_second", rate_moments(samples, r.declared.flops));
  const std::string id = r.id();
  for (const std::string aggregate : {"mean", "median", "stddev", "cv"}) {
    const bool cv = aggregate == "cv";
    const auto pick = [&](const moments& m) {
      return aggregate == "mean"     ? m.mean
             : aggregate == "median" ? m.median
             : aggregate == "stddev" ? m.stdev
             : m.mean > 0            ? m.stdev / m.mean
                                     : 0.0;
    };
    ojson row = ojson::object();
    row["name"] = id + "_" + aggregate;
    row["family_index"] = family;
    row["per_family_instance_index"] = instance;
    row["run_name"] = id;
    row["run_type"] = "aggregate";
    row["repetitions"] = static_cast<std::int64_t>(samples.size());
    row["threads"] = 1;
    row["aggregate_name"] = aggregate;
    row["aggregate_unit"] = cv ? "percentage" : "time";
    row["iterations"] = static_cast<std::int64_t>(samples.size());
    // A cv is a fraction of the mean, written as is (Google Benchmark does the same).
    const double time = cv ? pick(times) : pick(times) * unit.per_second;
    row["real_time"] = num(time);
    row["cpu_time"] = num(time);
    row["time_unit"] = unit.name;
    for (const auto& [counter, m] : rates) row[counter] = num(pick(m));
    if (r.floor) row["gpubench_fraction_of_floor"] = num(r.floor->fraction);
    emit(row);
  }
}

/// A number as JSON: the shortest text that reads back to the same double (every value here is
/// finite: samples are at least 1 ns and work is bounded, docs/profile-schema.md).
std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

/// One iteration row per sample. Formatted directly rather than through a JSON object per row: a
/// million rows must be written in seconds, and only the numbers change from row to row.
void sample_rows(const record& r, const time_unit& unit, std::int64_t family, std::int64_t instance,
                 const std::function<void(std::string_view)>& row) {
  const std::string name = json_text(ojson(r.id()), -1);
  const auto& samples = r.timing.samples_s;
  const std::string head = fmt::format(R"({{"name":{0},"family_index":{1},"per_family_instance_index":{2},)"
                                       R"("run_name":{0},"run_type":"iteration","repetitions":{3},"repetition_index":)",
                                       name, family, instance, samples.size());
  const std::string unit_name = fmt::format(R"(,"time_unit":"{}")", unit.name);
  // The record's median-based figure, repeated on each of its rows.
  const std::string tail =
      r.floor ? fmt::format(R"(,"gpubench_fraction_of_floor":{}}})", json_number(r.floor->fraction)) : std::string("}");
  std::string text;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double s = samples[i];
    const std::string time = json_number(s * unit.per_second);
    text = head;
    fmt::format_to(std::back_inserter(text), R"({},"threads":1,"iterations":1,"real_time":{},"cpu_time":{})", i, time,
                   time);
    text += unit_name;
    // Flat counters, per sample, as Google Benchmark's SetBytesProcessed/SetItemsProcessed write them.
    if (r.declared.bytes > 0)
      fmt::format_to(std::back_inserter(text), R"(,"bytes_per_second":{})", json_number(r.declared.bytes / s));
    if (r.declared.items > 0)
      fmt::format_to(std::back_inserter(text), R"(,"items_per_second":{})", json_number(r.declared.items / s));
    if (r.declared.flops > 0)
      fmt::format_to(std::back_inserter(text), R"(,"flops_per_second":{})", json_number(r.declared.flops / s));
    text += tail;
    row(text);
  }
}

}  // namespace

void write_gbench(const profile& p, gbench_rows rows, const std::function<void(std::string_view)>& sink) {
  // The document by hand around the rows, each row dumped alone: nothing holds every row at once.
  sink("{\n  \"context\": ");
  sink(json_text(context_json(p), -1));
  sink(",\n  \"benchmarks\": [");
  bool first = true;
  const auto emit_text = [&](std::string_view row) {
    sink(first ? "\n    " : ",\n    ");
    sink(row);
    first = false;
  };
  const auto emit = [&](const ojson& row) { emit_text(json_text(row, -1)); };
  // family (chapter, pair, variant) -> {family_index, instances so far}, in order of appearance
  std::map<std::tuple<int, std::string, std::string>, std::pair<std::int64_t, std::int64_t>> families;
  for (const record& r : p.records) {
    if (r.status != record_status::passed || r.timing.samples_s.empty()) continue;
    auto [it, added] = families.try_emplace({r.chapter, r.pair, r.variant},
                                            static_cast<std::int64_t>(families.size()), 0);
    const std::int64_t family_index = it->second.first;
    const std::int64_t instance_index = it->second.second++;
    if (rows == gbench_rows::samples) sample_rows(r, unit_for(r), family_index, instance_index, emit_text);
    else aggregate_rows(r, unit_for(r), family_index, instance_index, emit);
  }
  sink(first ? "]\n}\n" : "\n  ]\n}\n");
}

std::string export_gbench(const profile& p, gbench_rows rows) {
  std::string out;
  write_gbench(p, rows, [&](std::string_view piece) { out.append(piece); });
  return out;
}

}  // namespace gpubench
