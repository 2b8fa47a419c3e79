/// Unit tests for gpubench/export.hpp: the Google Benchmark export (rows, units, values, and the
/// keys and JSON types of the real libbenchmark's JSONReporter), Bencher BMF, CSV, markdown,
/// the comparison reports (JUnit well-formedness and escaping, JSON counts) and write_text_file.
#include "gpubench/export.hpp"

#include <benchmark/benchmark.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/stats.hpp"
#include "gpubench/text_file.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using gpubench::profile;
using gpubench::record;
using gpubench::record_status;
using ojson = nlohmann::ordered_json;

record make_record(const std::string& pair, const std::string& variant, std::int64_t n, std::vector<double> samples,
                   record_status status = record_status::passed) {
  record r;
  r.chapter = 3;
  r.pair = pair;
  r.variant = variant;
  r.size = gpubench::size_point({{"n", n}, {"dir", std::string("h2d")}});
  r.status = status;
  r.declared = {1.0e6, 2.0e6, gpubench::bytes_path::dram, gpubench::flop_kind::fp32, 8, "block"};
  r.timing.samples_s = std::move(samples);
  if (!r.timing.samples_s.empty()) {
    r.stats = gpubench::summarize(r.timing.samples_s);
    r.bytes_per_s = r.declared.bytes / r.stats->median;
    r.flops_per_s = r.declared.flops / r.stats->median;
    r.s_per_item = r.stats->median / r.declared.items;
    r.floor = gpubench::floor_info{1e-7, "dram", 1e-7 / r.stats->median, false};
  }
  return r;
}

/// Three passed records in two families (copy/baseline at two sizes, copy/optimized at one),
/// with medians in the ns, µs and ms ranges, plus a skipped and a failed record.
profile small_profile() {
  profile p;
  p.complete = true;
  p.prov.gpubench_version = "0.1.0";
  p.prov.git_sha = "abc123";
  p.prov.started_at = "2026-11-22T02:30:42Z";
  p.prov.hostname = "bench-07";
  p.prov.device.name = "NVIDIA H200";
  p.prov.device.uuid = "GPU-22c0b710";
  p.prov.device.sm_count = 132;
  p.prov.device.sm_clock_max_mhz = 1980;
  p.prov.device.l2_bytes = 62914560;
  p.records.push_back(make_record("copy", "baseline", 1024, {2.0e-6, 2.5e-6, 1.5e-6}));         // µs
  p.records.push_back(make_record("copy", "baseline", 64, {400e-9, 500e-9, 450e-9, 420e-9}));   // ns
  p.records.push_back(make_record("copy", "optimized", 1024, {5e-3, 6e-3}));                    // ms
  p.records.back().speedup = 2.0e-6 / 5.5e-3;
  record skipped = make_record("copy", "optimized", 64, {}, record_status::skipped);
  skipped.reason = "out of memory";
  p.records.push_back(skipped);
  record failed = make_record("copy", "tiled", 1024, {}, record_status::failed);
  failed.reason = "wrong result, \"mismatch\" at 3";
  p.records.push_back(failed);
  return p;
}

double per_second(const std::string& unit) {
  if (unit == "ns") return 1e9;
  if (unit == "us") return 1e6;
  if (unit == "ms") return 1e3;
  ADD_FAILURE() << "unexpected time_unit " << unit;
  return 1;
}

// ---------------------------------------------------------------------------------- gbench

TEST(export_gbench, one_row_per_sample_of_each_passed_record) {
  const profile p = small_profile();
  const ojson j = ojson::parse(gpubench::export_gbench(p, gpubench::gbench_rows::samples));
  ASSERT_TRUE(j["benchmarks"].is_array());
  EXPECT_EQ(j["benchmarks"].size(), 3u + 4u + 2u);  // skipped and failed records have no rows

  std::map<std::string, std::vector<ojson>> by_name;
  for (const auto& row : j["benchmarks"]) by_name[row["name"].get<std::string>()].push_back(row);
  ASSERT_EQ(by_name.size(), 3u);
  const std::string expected_units[] = {"us", "ns", "ms"};
  for (std::size_t k = 0; k < 3; ++k) {
    const record& r = p.records[k];
    const auto& rows = by_name[r.id()];
    ASSERT_EQ(rows.size(), r.timing.samples_s.size()) << r.id();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const ojson& row = rows[i];
      EXPECT_EQ(row["run_name"], r.id());
      EXPECT_EQ(row["run_type"], "iteration");
      EXPECT_EQ(row["repetitions"], r.timing.samples_s.size());
      EXPECT_EQ(row["repetition_index"], i);
      EXPECT_EQ(row["threads"], 1);
      EXPECT_EQ(row["iterations"], 1);
      const std::string unit = row["time_unit"].get<std::string>();
      EXPECT_EQ(unit, expected_units[k]) << r.id();  // the same for every row of a record
      const double s = r.timing.samples_s[i];
      EXPECT_NEAR(row["real_time"].get<double>() / per_second(unit), s, s * 1e-12);
      EXPECT_NEAR(row["cpu_time"].get<double>() / per_second(unit), s, s * 1e-12);
      EXPECT_NEAR(row["bytes_per_second"].get<double>(), r.declared.bytes / s, r.declared.bytes / s * 1e-12);
      EXPECT_NEAR(row["items_per_second"].get<double>(), r.declared.items / s, r.declared.items / s * 1e-12);
      EXPECT_DOUBLE_EQ(row["gpubench_fraction_of_floor"].get<double>(), r.floor->fraction);
    }
  }
  // Families are (chapter, pair, variant); instances are sizes, numbered within the family.
  EXPECT_EQ(by_name[p.records[0].id()][0]["family_index"], 0);
  EXPECT_EQ(by_name[p.records[0].id()][0]["per_family_instance_index"], 0);
  EXPECT_EQ(by_name[p.records[1].id()][0]["family_index"], 0);
  EXPECT_EQ(by_name[p.records[1].id()][0]["per_family_instance_index"], 1);
  EXPECT_EQ(by_name[p.records[2].id()][0]["family_index"], 1);
  EXPECT_EQ(by_name[p.records[2].id()][0]["per_family_instance_index"], 0);
}

TEST(export_gbench, context_describes_the_gpu) {
  const ojson c = ojson::parse(gpubench::export_gbench(small_profile()))["context"];
  EXPECT_EQ(c["date"], "2026-11-22T02:30:42+00:00");
  EXPECT_EQ(c["host_name"], "bench-07");
  EXPECT_EQ(c["executable"], "gpubench");
  EXPECT_EQ(c["num_cpus"], 132);
  EXPECT_EQ(c["mhz_per_cpu"], 1980);
  EXPECT_EQ(c["library_build_type"], "release");
  ASSERT_EQ(c["caches"].size(), 1u);
  EXPECT_EQ(c["caches"][0]["type"], "Unified");
  EXPECT_EQ(c["caches"][0]["level"], 2);
  EXPECT_EQ(c["caches"][0]["size"], 62914560);
  EXPECT_EQ(c["gpu_name"], "NVIDIA H200");
  EXPECT_EQ(c["gpu_uuid"], "GPU-22c0b710");
  EXPECT_EQ(c["gpubench_version"], "0.1.0");
  EXPECT_EQ(c["git_sha"], "abc123");
}

TEST(export_gbench, real_profile_rows) {
  const profile p = gpubench::read_profile(GPUBENCH_SOURCE_DIR "/profiles/reference/h200-ch01.json");
  std::size_t samples = 0, passed = 0;
  for (const record& r : p.records)
    if (r.status == record_status::passed) samples += r.timing.samples_s.size(), ++passed;
  const ojson j = ojson::parse(gpubench::export_gbench(p, gpubench::gbench_rows::samples));
  EXPECT_EQ(j["benchmarks"].size(), samples);
  EXPECT_EQ(j["context"]["gpu_name"], "NVIDIA H200");
  // By default four aggregates per record, whatever its sample count.
  EXPECT_EQ(ojson::parse(gpubench::export_gbench(p))["benchmarks"].size(), 4 * passed);
}

TEST(export_gbench, aggregates_of_each_passed_record_by_default) {
  const profile p = small_profile();
  const ojson j = ojson::parse(gpubench::export_gbench(p));
  ASSERT_EQ(j["benchmarks"].size(), 3u * 4u);  // skipped and failed records have none
  const char* const names[] = {"mean", "median", "stddev", "cv"};
  for (std::size_t k = 0; k < 3; ++k) {
    const record& r = p.records[k];
    const gpubench::summary s = gpubench::summarize(r.timing.samples_s);
    for (std::size_t a = 0; a < 4; ++a) {
      const ojson& row = j["benchmarks"][4 * k + a];
      EXPECT_EQ(row["name"], r.id() + "_" + names[a]);
      EXPECT_EQ(row["run_name"], r.id());
      EXPECT_EQ(row["run_type"], "aggregate");
      EXPECT_EQ(row["aggregate_name"], names[a]);
      EXPECT_EQ(row["aggregate_unit"], a == 3 ? "percentage" : "time");
      EXPECT_EQ(row["repetitions"], r.timing.samples_s.size());
      EXPECT_EQ(row["iterations"], r.timing.samples_s.size());
      const double unit = per_second(row["time_unit"].get<std::string>());
      const double want = a == 0   ? s.mean * unit
                          : a == 1 ? s.median * unit
                          : a == 2 ? s.stdev * unit
                                   : s.stdev / s.mean;
      EXPECT_NEAR(row["real_time"].get<double>(), want, std::abs(want) * 1e-12) << row;
      EXPECT_EQ(row["cpu_time"], row["real_time"]);
    }
    // Rates aggregate the per-sample rates, as Google Benchmark's do: their mean is the mean of
    // work / sample, not work / mean.
    double mean_rate = 0;
    for (const double t : r.timing.samples_s)
      mean_rate += r.declared.bytes / t / static_cast<double>(r.timing.samples_s.size());
    EXPECT_NEAR(j["benchmarks"][4 * k]["bytes_per_second"].get<double>(), mean_rate, mean_rate * 1e-12);
  }
}

TEST(export_gbench, streamed_pieces_make_the_same_document) {
  const profile p = small_profile();
  for (const auto rows : {gpubench::gbench_rows::aggregates, gpubench::gbench_rows::samples}) {
    std::string streamed;
    std::size_t pieces = 0;
    gpubench::write_gbench(p, rows, [&](std::string_view piece) {
      streamed.append(piece);
      ++pieces;
    });
    EXPECT_EQ(streamed, gpubench::export_gbench(p, rows));
    EXPECT_GT(pieces, 10u);  // row by row, never the whole document at once
  }
}

/// The JSON type of a value, as a reader of Google Benchmark output sees it.
std::string kind(const nlohmann::json& v) {
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

void expect_superset(const nlohmann::json& theirs, const nlohmann::json& ours, const std::string& where) {
  ASSERT_TRUE(theirs.is_object()) << where;
  ASSERT_TRUE(ours.is_object()) << where;
  for (auto it = theirs.begin(); it != theirs.end(); ++it) {
    ASSERT_TRUE(ours.contains(it.key())) << where << ": Google Benchmark writes '" << it.key() << "', we do not";
    EXPECT_EQ(kind(ours[it.key()]), kind(it.value())) << where << "." << it.key();
  }
}

/// Runs a trivial benchmark through the real library's JSONReporter and checks that every key
/// of its context, of a cache entry and of a benchmark row is in our export with the same type.
TEST(export_gbench, has_every_key_of_google_benchmarks_json_reporter) {
  benchmark::RegisterBenchmark("gpubench_compat", [](benchmark::State& state) {
    std::int64_t x = 0;
    for (auto _ : state) benchmark::DoNotOptimize(x += 1);
    state.SetBytesProcessed(state.iterations() * 64);  // so the row has bytes_per_second
    state.SetItemsProcessed(state.iterations());       // and items_per_second
  });
  // libbenchmark 1.7.1 takes --benchmark_min_time as plain seconds (1.8 added the "s" suffix).
  char arg0[] = "export_test";
  char arg1[] = "--benchmark_min_time=0.001";
  char* argv[] = {arg0, arg1, nullptr};
  int argc = 2;
  benchmark::Initialize(&argc, argv);
  std::ostringstream out, err;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  ASSERT_EQ(ran, 1u) << err.str();

  const auto theirs = nlohmann::json::parse(out.str());
  const auto ours = nlohmann::json::parse(gpubench::export_gbench(small_profile(), gpubench::gbench_rows::samples));
  expect_superset(theirs, ours, "top level");
  expect_superset(theirs["context"], ours["context"], "context");
  if (!theirs["context"]["caches"].empty())
    expect_superset(theirs["context"]["caches"][0], ours["context"]["caches"][0], "context.caches[0]");
  ASSERT_FALSE(theirs["benchmarks"].empty());
  ASSERT_FALSE(ours["benchmarks"].empty());
  for (const auto& row : ours["benchmarks"]) expect_superset(theirs["benchmarks"][0], row, "benchmarks[i]");
  EXPECT_EQ(ours["benchmarks"][0]["run_type"], theirs["benchmarks"][0]["run_type"]);  // "iteration"
}

/// The default export's aggregate rows against the real library's: a benchmark with repetitions and
/// --benchmark_report_aggregates_only, whose rows must all be in ours with the same keys and types,
/// in the same order of aggregates.
TEST(export_gbench, aggregates_have_every_key_of_google_benchmarks_aggregates) {
  benchmark::RegisterBenchmark("gpubench_compat_aggregates", [](benchmark::State& state) {
    std::int64_t x = 0;
    for (auto _ : state) benchmark::DoNotOptimize(x += 1);
    state.SetBytesProcessed(state.iterations() * 64);
    state.SetItemsProcessed(state.iterations());
  })->Repetitions(3);
  char arg0[] = "export_test";
  char arg1[] = "--benchmark_min_time=0.001";
  char arg2[] = "--benchmark_report_aggregates_only=true";
  char* argv[] = {arg0, arg1, arg2, nullptr};
  int argc = 3;
  benchmark::Initialize(&argc, argv);
  std::ostringstream out, err;
  benchmark::JSONReporter reporter;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  ASSERT_EQ(ran, 1u) << err.str();

  const auto theirs = nlohmann::json::parse(out.str());
  const auto ours = nlohmann::json::parse(gpubench::export_gbench(small_profile()));
  ASSERT_EQ(theirs["benchmarks"].size(), 4u) << theirs.dump(1);
  for (std::size_t a = 0; a < 4; ++a) {
    const auto& row = theirs["benchmarks"][a];
    EXPECT_EQ(row["run_type"], "aggregate");
    expect_superset(row, ours["benchmarks"][a], "benchmarks[" + std::to_string(a) + "]");
    EXPECT_EQ(ours["benchmarks"][a]["aggregate_name"], row["aggregate_name"]);
    EXPECT_EQ(ours["benchmarks"][a]["aggregate_unit"], row["aggregate_unit"]);
    // Google Benchmark names an aggregate "<run_name>_<aggregate>", as ours are.
    EXPECT_EQ(row["name"].get<std::string>(),
              row["run_name"].get<std::string>() + "_" + row["aggregate_name"].get<std::string>());
  }
}

// ---------------------------------------------------------------------------------- BMF

TEST(export_bmf, latency_and_throughput_of_passed_records) {
  const profile p = small_profile();
  const ojson j = ojson::parse(gpubench::export_bmf(p));
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j.size(), 3u);  // passed records only
  for (std::size_t k = 0; k < 3; ++k) {
    const record& r = p.records[k];
    ASSERT_TRUE(j.contains(r.id())) << r.id();
    const ojson& m = j[r.id()];
    ASSERT_EQ(m.size(), 2u);
    EXPECT_DOUBLE_EQ(m["latency"]["value"].get<double>(), r.stats->median * 1e9);
    EXPECT_DOUBLE_EQ(m["latency"]["lower_value"].get<double>(), r.stats->min * 1e9);
    EXPECT_DOUBLE_EQ(m["latency"]["upper_value"].get<double>(), r.stats->max * 1e9);
    EXPECT_DOUBLE_EQ(m["throughput"]["value"].get<double>(), r.declared.bytes / r.stats->median);
    EXPECT_LE(m["throughput"]["lower_value"].get<double>(), m["throughput"]["value"].get<double>());
    EXPECT_GE(m["throughput"]["upper_value"].get<double>(), m["throughput"]["value"].get<double>());
  }
  EXPECT_FALSE(j.contains(p.records[3].id()));
}

TEST(export_bmf, no_work_no_throughput) {
  profile p = small_profile();
  p.records[0].declared = {};
  const ojson j = ojson::parse(gpubench::export_bmf(p));
  EXPECT_FALSE(j[p.records[0].id()].contains("throughput"));
  EXPECT_TRUE(j[p.records[0].id()].contains("latency"));
}

// ---------------------------------------------------------------------------------- CSV, markdown

/// Splits RFC 4180 text into records of fields (quoted fields may hold commas, quotes, newlines).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') rows.back().back() += '"', ++i;
      else if (c == '"') quoted = false;
      else rows.back().back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.emplace_back(1);
      ++i;
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back() == std::vector<std::string>(1)) rows.pop_back();  // after the last CRLF
  return rows;
}

TEST(export_csv, header_and_one_row_per_record_with_rfc4180_quoting) {
  profile p = small_profile();
  p.records[4].reason = "differs, \"badly\"";
  const std::string text = gpubench::export_csv(p);
  EXPECT_NE(text.find(",\"differs, \"\"badly\"\"\","), std::string::npos) << text;
  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 1 + p.records.size());
  EXPECT_EQ(rows[0][0], "id");
  EXPECT_EQ(rows[0][8], "median_s");
  for (const auto& row : rows) EXPECT_EQ(row.size(), rows[0].size());
  EXPECT_EQ(rows[1][0], p.records[0].id());  // holds a comma: "[n=1024,dir=h2d]"
  EXPECT_EQ(std::stod(rows[1][8]), p.records[0].stats->median);  // full precision
  EXPECT_EQ(rows[5][6], "differs, \"badly\"");
  EXPECT_EQ(rows[4][5], "skipped");
  EXPECT_EQ(rows[4][8], "");  // not timed: no median
}

TEST(export_markdown, a_table_per_pair) {
  profile p = small_profile();
  record other = make_record("scan", "baseline", 1024, {1e-3, 1.1e-3, 0.9e-3});
  p.records.push_back(other);
  const std::string md = gpubench::export_markdown(p);
  const std::string header = "| variant | size | median ± noise | throughput | % of floor | speedup | status |";
  std::size_t tables = 0;
  for (auto pos = md.find(header); pos != std::string::npos; pos = md.find(header, pos + 1)) ++tables;
  EXPECT_EQ(tables, 2u) << md;
  EXPECT_NE(md.find("### ch03/copy"), std::string::npos) << md;
  EXPECT_NE(md.find("### ch03/scan"), std::string::npos) << md;
  EXPECT_NE(md.find("| baseline | n=1024,dir=h2d | 2.000 µs ± "), std::string::npos) << md;
  EXPECT_NE(md.find("skipped: out of memory"), std::string::npos) << md;
  EXPECT_NE(md.find("NVIDIA H200"), std::string::npos);
}

// ---------------------------------------------------------------------------------- comparison

gpubench::record_comparison rc(const std::string& variant, gpubench::verdict v, double ratio, bool critical = false) {
  gpubench::record_comparison r;
  r.chapter = 1;
  r.pair = "batched_gemm";
  r.variant = variant;
  r.size = "batch=40";
  r.id = "ch01/batched_gemm/" + variant + "[batch=40]";
  r.base_median = 1e-4;
  r.new_median = 1e-4 * ratio;
  r.ratio = {ratio, ratio * 0.98, ratio * 1.02};
  r.result = v;
  r.critical = critical;
  return r;
}

gpubench::comparison sample_comparison() {
  using gpubench::verdict;
  gpubench::comparison c;
  c.base_source = "base.json";
  c.new_source = "new <&> \"quoted\".json";
  c.base_device = c.new_device = "NVIDIA H200";
  c.interval_confidence = 0.99;
  c.records.push_back(rc("baseline", verdict::same, 1.0));
  c.records.push_back(rc("optimized", verdict::slower, 1.3, true));
  c.records.push_back(rc("pointer_array", verdict::slower, 1.08));
  c.records.push_back(rc("a<b>&\"c\"", verdict::faster, 0.7));
  auto inconclusive = rc("tiled", verdict::inconclusive, 1.04);
  inconclusive.note = "too noisy: 7% > 5% <base>";
  c.records.push_back(inconclusive);
  c.speedups.push_back({"ch01/batched_gemm/optimized[batch=40]", 3.0, 2.4, {0.8, 0.78, 0.82}, verdict::slower});
  c.only_in_base = {"ch01/old/baseline[n=1]"};
  c.only_in_new = {"ch01/new/baseline[n=1]", "ch01/new/optimized[n=1]"};
  return c;
}

TEST(comparison_markdown, summary_line_table_and_lists) {
  const std::string md = gpubench::comparison_markdown(sample_comparison());
  EXPECT_EQ(md.substr(0, md.find('\n')),
            "**2 slower (1 critical), 1 faster, 1 same, 1 inconclusive** — NVIDIA H200 vs NVIDIA H200");
  EXPECT_NE(md.find("| id | base | new | ratio [low, high] | verdict |"), std::string::npos) << md;
  EXPECT_NE(md.find("1.300 [1.274, 1.326]"), std::string::npos) << md;
  EXPECT_NE(md.find("⚠ **slower (critical)**"), std::string::npos) << md;
  EXPECT_NE(md.find("✓ faster"), std::string::npos) << md;
  EXPECT_NE(md.find("Only in base"), std::string::npos) << md;
  EXPECT_NE(md.find("Only in new"), std::string::npos) << md;
  EXPECT_NE(md.find("`ch01/new/optimized[n=1]`"), std::string::npos) << md;
  EXPECT_NE(md.find("speedup shrank"), std::string::npos) << md;
  EXPECT_EQ(md.find("timed differently"), std::string::npos) << md;
}

TEST(comparison_markdown, says_when_records_were_judged_on_the_raw_event_span) {
  gpubench::comparison c = sample_comparison();
  c.records[0].figures_differ = true;
  c.records[1].figures_differ = true;
  const std::string md = gpubench::comparison_markdown(c);
  EXPECT_NE(md.find("> ⚠ 2 records were timed differently in base and new"), std::string::npos) << md;
  EXPECT_NE(md.find("judged on the raw CUDA-event spans both keep."), std::string::npos) << md;
}

TEST(comparison_markdown, says_when_base_and_new_ran_on_different_chips_of_one_model) {
  gpubench::comparison c = sample_comparison();
  EXPECT_TRUE(gpubench::comparison_json(c).at("devices").at("same_gpu").is_null());  // no UUIDs recorded
  EXPECT_EQ(gpubench::comparison_markdown(c).find("different GPUs of the same model"), std::string::npos);
  c.base_gpu_uuid = "GPU-a";
  c.new_gpu_uuid = "GPU-b";
  EXPECT_EQ(gpubench::comparison_json(c).at("devices").at("same_gpu"), false);
  EXPECT_NE(gpubench::comparison_markdown(c).find("> ⚠ base and new ran on two different GPUs of the same model"),
            std::string::npos);
  c.new_gpu_uuid = "GPU-a";
  EXPECT_EQ(gpubench::comparison_json(c).at("devices").at("same_gpu"), true);
}

TEST(comparison_markdown, says_when_the_runs_rested_differently) {
  gpubench::comparison c = sample_comparison();
  EXPECT_EQ(gpubench::comparison_markdown(c).find("rested differently"), std::string::npos);
  c.new_rest = 1.0;
  const std::string md = gpubench::comparison_markdown(c);
  EXPECT_NE(md.find("> ⚠ base and new rested differently between samples (run --rest 0 vs 1)"), std::string::npos) << md;
  const auto j = gpubench::comparison_json(c);
  EXPECT_EQ(j.at("rest_ratio").at("base"), 0.0);
  EXPECT_EQ(j.at("rest_ratio").at("new"), 1.0);
  EXPECT_EQ(j.at("rest_ratio").at("history_left_out"), 0u);
  c.base_rest.reset();
  EXPECT_TRUE(gpubench::comparison_json(c).at("rest_ratio").at("base").is_null());
}

/// A small XML well-formedness check: tags nest and close, attribute values are quoted and hold
/// no '<', and every '&' starts an entity. Returns "" or the first problem.
std::string xml_problem(const std::string& x, std::map<std::string, int>* opened = nullptr) {
  const auto entity_ok = [&](std::size_t i) {
    for (const char* e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"})
      if (x.compare(i, std::char_traits<char>::length(e), e) == 0) return true;
    return false;
  };
  std::vector<std::string> stack;
  std::size_t i = 0;
  while (i < x.size()) {
    if (x[i] == '&' && !entity_ok(i)) return "bare & at " + std::to_string(i);
    if (x[i] != '<') {
      ++i;
      continue;
    }
    if (x.compare(i, 2, "<?") == 0) {
      const auto end = x.find("?>", i);
      if (end == std::string::npos) return "unterminated <?";
      i = end + 2;
      continue;
    }
    const bool closing = x.compare(i, 2, "</") == 0;
    std::size_t j = i + (closing ? 2 : 1);
    const std::size_t name_start = j;
    while (j < x.size() && (std::isalnum(static_cast<unsigned char>(x[j])) || x[j] == '_' || x[j] == '-')) ++j;
    const std::string name = x.substr(name_start, j - name_start);
    if (name.empty()) return "empty tag name at " + std::to_string(i);
    if (closing) {
      if (stack.empty() || stack.back() != name) return "</" + name + "> does not close the open element";
      stack.pop_back();
      if (x[j] != '>') return "junk in </" + name + ">";
      i = j + 1;
      continue;
    }
    // attributes
    while (true) {
      while (j < x.size() && x[j] == ' ') ++j;
      if (j >= x.size()) return "unterminated <" + name;
      if (x[j] == '>' || x.compare(j, 2, "/>") == 0) break;
      const std::size_t eq = x.find('=', j);
      if (eq == std::string::npos || x[eq + 1] != '"') return "unquoted attribute in <" + name;
      const std::size_t close = x.find('"', eq + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + name;
      for (std::size_t k = eq + 2; k < close; ++k) {
        if (x[k] == '<') return "'<' in an attribute of <" + name + ">";
        if (x[k] == '&' && !entity_ok(k)) return "bare & in an attribute of <" + name + ">";
      }
      j = close + 1;
    }
    if (opened) ++(*opened)[name];
    if (x[j] == '>') {
      stack.push_back(name);
      i = j + 1;
    } else {
      i = j + 2;  // self-closing
    }
  }
  if (!stack.empty()) return "<" + stack.back() + "> never closed";
  return "";
}

TEST(comparison_junit, well_formed_with_failures_and_skips) {
  const std::string x = gpubench::comparison_junit(sample_comparison());
  std::map<std::string, int> opened;
  EXPECT_EQ(xml_problem(x, &opened), "") << x;
  EXPECT_EQ(opened["testsuites"], 1);
  EXPECT_EQ(opened["testsuite"], 1);
  EXPECT_EQ(opened["testcase"], 5);
  EXPECT_EQ(opened["failure"], 2);
  EXPECT_EQ(opened["skipped"], 1);
  EXPECT_NE(x.find("<testsuite name=\"gpubench compare\" tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"1\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("classname=\"ch01.batched_gemm\" name=\"optimized[batch=40]\""), std::string::npos) << x;
  // Escaping: <>&" in a name, a note and a property.
  EXPECT_NE(x.find("name=\"a&lt;b&gt;&amp;&quot;c&quot;[batch=40]\""), std::string::npos) << x;
  EXPECT_NE(x.find("too noisy: 7% &gt; 5% &lt;base&gt;"), std::string::npos) << x;
  EXPECT_NE(x.find("new &lt;&amp;&gt; &quot;quoted&quot;.json"), std::string::npos) << x;
  // The checker itself catches what it should.
  EXPECT_NE(xml_problem("<a><b></a></b>"), "");
  EXPECT_NE(xml_problem("<a x=\"1 < 2\"/>"), "");
  EXPECT_NE(xml_problem("<a>&</a>"), "");
}

TEST(comparison_junit, control_characters_never_reach_the_xml) {
  auto c = sample_comparison();
  c.records[0].variant = std::string("v\x01\x1b") + "x";
  const std::string x = gpubench::comparison_junit(c);
  EXPECT_EQ(x.find('\x01'), std::string::npos);
  EXPECT_EQ(x.find('\x1b'), std::string::npos);
  EXPECT_EQ(xml_problem(x), "");
}

TEST(comparison_json, counts_round_trip) {
  const auto c = sample_comparison();
  const ojson j = ojson::parse(gpubench::comparison_json(c).dump());
  EXPECT_EQ(j["counts"]["records"], 5);
  EXPECT_EQ(j["counts"]["slower"], 2);
  EXPECT_EQ(j["counts"]["critical"], 1);
  EXPECT_EQ(j["counts"]["faster"], 1);
  EXPECT_EQ(j["counts"]["same"], 1);
  EXPECT_EQ(j["counts"]["inconclusive"], 1);
  EXPECT_EQ(j["counts"]["only_in_base"], 1);
  EXPECT_EQ(j["counts"]["only_in_new"], 2);
  ASSERT_EQ(j["records"].size(), 5u);
  EXPECT_EQ(j["records"][1]["verdict"], "slower");
  EXPECT_EQ(j["records"][1]["critical"], true);
  EXPECT_DOUBLE_EQ(j["records"][1]["ratio"]["estimate"].get<double>(), 1.3);
  EXPECT_EQ(j["records"][4]["note"], "too noisy: 7% > 5% <base>");
  EXPECT_EQ(j["speedups"][0]["verdict"], "slower");
  EXPECT_EQ(j["only_in_new"][1], "ch01/new/optimized[n=1]");
  EXPECT_EQ(j["devices"]["same"], true);
  EXPECT_DOUBLE_EQ(j["options"]["threshold"].get<double>(), 0.05);
  // The counts agree with the records they summarize.
  std::map<std::string, int> tally;
  for (const auto& r : j["records"]) ++tally[r["verdict"].get<std::string>()];
  for (const auto& [verdict, n] : tally) EXPECT_EQ(j["counts"][verdict], n) << verdict;
}

// ---------------------------------------------------------------------------------- write_text_file

class write_text_file_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpubench_export_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(write_text_file_test, replaces_the_file_and_leaves_no_temporary) {
  const fs::path file = dir_ / "out.md";
  gpubench::write_text_file(file.string(), "first\n");
  gpubench::write_text_file(file.string(), "second\n");
  std::ifstream in(file);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
}  // namespace

TEST_F(write_text_file_test, read_only_file_is_refused_unless_forced) {
  const fs::path file = dir_ / "out.md";
  std::ofstream(file) << "mine";
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);  // chmod 444
  const std::string msg = usage_message([&] { gpubench::write_text_file(file.string(), "new"); });
  EXPECT_NE(msg.find("read-only"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--force"), std::string::npos) << msg;
  EXPECT_EQ(read_all(file), "mine");
  EXPECT_NE(usage_message([&] { gpubench::check_writable(file); }).find("read-only"), std::string::npos);
  EXPECT_NO_THROW(gpubench::check_writable(file, true));
  gpubench::write_text_file(file.string(), "new", /*force=*/true);
  EXPECT_EQ(read_all(file), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(write_text_file_test, symlink_is_refused_unless_forced_then_written_through) {
  fs::create_directories(dir_ / "real");
  std::ofstream(dir_ / "real" / "target.md") << "mine";
  fs::create_symlink("real/target.md", dir_ / "link.md");
  const std::string msg = usage_message([&] { gpubench::write_text_file((dir_ / "link.md").string(), "new"); });
  EXPECT_NE(msg.find("symbolic link"), std::string::npos) << msg;
  EXPECT_NE(usage_message([&] { gpubench::check_writable(dir_ / "link.md"); }).find("symbolic link"), std::string::npos);
  EXPECT_EQ(read_all(dir_ / "real" / "target.md"), "mine");
  gpubench::write_text_file((dir_ / "link.md").string(), "new", /*force=*/true);
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.md"));  // the link stays, the file it names is replaced
  EXPECT_EQ(read_all(dir_ / "real" / "target.md"), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator()), 1);
  // A dangling link is a link all the same.
  fs::create_symlink("real/absent.md", dir_ / "dangling.md");
  EXPECT_NE(usage_message([&] { gpubench::write_text_file((dir_ / "dangling.md").string(), "x"); }).find("symbolic link"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "real" / "absent.md"));
}

TEST_F(write_text_file_test, a_fifo_is_never_replaced) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const bool force : {false, true}) {
    const std::string msg = usage_message([&] { gpubench::write_text_file(fifo.string(), "x", force); });
    EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(write_text_file_test, a_file_named_like_a_temporary_is_left_alone) {
  // Older gpubench used "<name>.tmp.<pid>"; a file of the user's by that name must survive.
  const fs::path theirs = dir_ / ("out.md.tmp." + std::to_string(::getpid()));
  std::ofstream(theirs) << "mine";
  gpubench::write_text_file((dir_ / "out.md").string(), "new");
  EXPECT_EQ(read_all(theirs), "mine");
  EXPECT_EQ(read_all(dir_ / "out.md"), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

TEST_F(write_text_file_test, missing_directory_is_a_runtime_error_naming_the_path) {
  try {
    gpubench::write_text_file((dir_ / "nope" / "out.xml").string(), "x");
    ADD_FAILURE() << "no exception";
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::runtime_failure);
    EXPECT_NE(std::string(e.what()).find("out.xml"), std::string::npos) << e.what();
  }
}

}  // namespace
