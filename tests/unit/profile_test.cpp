/// Unit tests for gpubench/profile.hpp: JSON round trip, atomic writes, and that every kind of
/// damaged profile is rejected with exit code 2 and a message naming the file and the JSON path.
#include "gpubench/profile.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/stats.hpp"
#include "gpubench/text_file.hpp"

namespace {

namespace fs = std::filesystem;
using gpubench::profile;
using gpubench::record;
using ojson = nlohmann::ordered_json;

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// A profile with every field set to a non-default value. The size axes are deliberately not in
/// alphabetical order, to catch a reader that loses the declaration order.
profile full_profile() {
  profile p;
  p.complete = true;
  p.prov = {"0.1.0", "abc123def456", {"gpubench", "run", "--chapter", "1"}, "2026-11-22T02:30:42Z",
            "2026-11-22T02:41:07Z", "bench-07", "Linux 6.8.0", {}};
  gpubench::device_info& d = p.prov.device;
  d.ordinal = 1;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-12345678-abcd-ef01-2345-6789abcdef01";
  d.pci_bus_id = "00000000:19:00.0";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.sm_clock_max_mhz = 1980;
  d.memory_clock_mhz = 2619;
  d.memory_bus_width_bits = 5120;
  d.memory_bytes = 85'520'809'984ULL;
  d.l2_bytes = 52'428'800;
  d.shared_per_sm_bytes = 233'472;
  d.ecc_enabled = true;
  d.driver_version = 13000;
  d.runtime_version = 12090;
  d.driver_string = "580.159.04";
  d.pcie_gen_max = 5;
  d.pcie_width_max = 16;
  d.pcie_gen_current = 4;
  d.pcie_width_current = 8;
  d.power_limit_w = 700.5;
  d.nvml_available = true;
  p.options = {{"min_samples", 10}, {"max_samples", 200}, {"target_noise", 0.01}, {"cache", "cold"}};
  p.ceil = {"theoretical", 3.352e12, 2.8e10, 6.69e13, 3.34e13};

  record r;
  r.chapter = 1;
  r.pair = "batched_gemm";
  r.variant = "optimized";
  r.size = gpubench::size_point({{"m", std::int64_t{32}}, {"batch", std::int64_t{40}}, {"dir", std::string("h2d")}});
  r.status = gpubench::record_status::passed;
  r.reason = "ok, with \"quotes\", a \\ and \u00fcnicode";
  r.check = {gpubench::disposition::passed, 327680, 0, 12, 3.25e-7, 1.5e-5, "within tolerance"};
  r.tol = gpubench::tolerance::relative(1e-6);
  r.declared = {1.25e8, 6.7e9, gpubench::bytes_path::pcie, gpubench::flop_kind::tf32, 40, "matrix"};
  r.timing.method = gpubench::timing_method::host_wall;
  r.timing.cache = gpubench::cache_mode::hot;
  r.timing.stopped = gpubench::stop_reason::max_samples;
  r.timing.wall_s = 1.75;
  r.timing.setup_s = 0.25;
  r.timing.verify_s = 0.125;
  r.timing.samples_s = {1.0e-4, 1.1e-4, 0.9e-4, 1.05e-4, 0.1 + 0.2};  // 0.1+0.2 tests 17-digit output
  r.timing.sm_clock_mhz = {1980, 1980, 1965, 1980, 1755};
  r.timing.throttled = {0, 0, 0, 1, 1};
  r.timing.clock_source = "nvml";
  r.stats = gpubench::summarize(r.timing.samples_s);
  // Throughput and floor as the runner derives them: the reader recomputes them and refuses others.
  gpubench::derive(r, p.ceil, nullptr);
  gpubench::metric_result m;
  m.status = gpubench::metrics_status::collected;
  m.reason = "not available on GH100: x__y.sum";
  m.chip = "GH100";
  m.requested = {"dram__bytes_read.sum", "x__y.sum"};
  m.missing = {"x__y.sum"};
  m.passes = 3;
  m.collection_s = 0.125;
  m.values = {{"dram__bytes_read.sum", 1.25e8}, {"lts__t_sector_hit_rate.pct", 49.5}};
  m.derived = gpubench::derive_metrics(m.values);  // as the reader recomputes them
  m.warnings = {"FLOPs: counters saw more"};
  m.kernels = {{"0", {{"dram__bytes_read.sum", 1e8}}}, {"1", {{"dram__bytes_read.sum", 2.5e7}}}};
  r.metrics = m;
  p.records.push_back(r);

  // A second record with the optional parts absent and a different spelling of everything else.
  record s;
  s.chapter = 12;
  s.pair = "transfer";
  s.variant = "baseline";
  s.size = gpubench::size_point({{"mib", std::int64_t{256}}});
  s.status = gpubench::record_status::profiled;
  s.check.result = gpubench::disposition::reference;
  s.timing.stopped = gpubench::stop_reason::single_run;
  s.timing.samples_s = {2e-3, 3e-3};
  // The event span less the empty span, with the raw spans and each round's offset beside them.
  s.timing.source = gpubench::time_source::cuda_events_net;
  s.timing.span_s = {2.00125e-3, 3.0015e-3};
  s.timing.rounds = {{.samples = 1, .stopped = gpubench::stop_reason::converged, .wall_s = 0.25, .event_overhead_s = 1.25e-6},
                     {.samples = 1, .stopped = gpubench::stop_reason::timeout, .wall_s = 0.5, .process = 1,
                      .event_overhead_s = 1.5e-6}};
  s.stats = gpubench::summarize(s.timing.samples_s);  // two samples: rel_noise is +inf
  p.records.push_back(s);
  return p;
}

void expect_same(const record& a, const record& b) {
  SCOPED_TRACE(a.id());
  EXPECT_EQ(a.id(), b.id());
  EXPECT_EQ(a.chapter, b.chapter);
  EXPECT_EQ(a.pair, b.pair);
  EXPECT_EQ(a.variant, b.variant);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.check.result, b.check.result);
  EXPECT_EQ(a.check.elements, b.check.elements);
  EXPECT_EQ(a.check.non_finite, b.check.non_finite);
  EXPECT_EQ(a.check.mismatches, b.check.mismatches);
  EXPECT_EQ(a.check.rel_l2_error, b.check.rel_l2_error);
  EXPECT_EQ(a.check.max_abs_error, b.check.max_abs_error);
  EXPECT_EQ(a.check.message, b.check.message);
  EXPECT_EQ(a.tol.type, b.tol.type);
  EXPECT_EQ(a.tol.max_rel_l2, b.tol.max_rel_l2);
  EXPECT_EQ(a.declared.bytes, b.declared.bytes);
  EXPECT_EQ(a.declared.flops, b.declared.flops);
  EXPECT_EQ(a.declared.path, b.declared.path);
  EXPECT_EQ(a.declared.flops_kind, b.declared.flops_kind);
  EXPECT_EQ(a.declared.items, b.declared.items);
  EXPECT_EQ(a.declared.item_name, b.declared.item_name);
  EXPECT_EQ(a.timing.method, b.timing.method);
  EXPECT_EQ(a.timing.cache, b.timing.cache);
  EXPECT_EQ(a.timing.stopped, b.timing.stopped);
  EXPECT_EQ(a.timing.wall_s, b.timing.wall_s);
  EXPECT_EQ(a.timing.setup_s, b.timing.setup_s);
  EXPECT_EQ(a.timing.verify_s, b.timing.verify_s);
  EXPECT_EQ(a.timing.samples_s, b.timing.samples_s);
  EXPECT_EQ(a.timing.sm_clock_mhz, b.timing.sm_clock_mhz);
  EXPECT_EQ(a.timing.throttled, b.timing.throttled);
  EXPECT_EQ(a.timing.clock_source, b.timing.clock_source);
  EXPECT_EQ(a.timing.source, b.timing.source);
  EXPECT_EQ(a.timing.span_s, b.timing.span_s);
  ASSERT_EQ(a.timing.rounds.size(), b.timing.rounds.size());
  for (std::size_t i = 0; i < a.timing.rounds.size(); ++i) {
    EXPECT_EQ(a.timing.rounds[i].samples, b.timing.rounds[i].samples);
    EXPECT_EQ(a.timing.rounds[i].stopped, b.timing.rounds[i].stopped);
    EXPECT_EQ(a.timing.rounds[i].wall_s, b.timing.rounds[i].wall_s);
    EXPECT_EQ(a.timing.rounds[i].process, b.timing.rounds[i].process);
    EXPECT_EQ(a.timing.rounds[i].event_overhead_s, b.timing.rounds[i].event_overhead_s);
  }
  ASSERT_EQ(a.stats.has_value(), b.stats.has_value());
  if (a.stats) {
    const gpubench::summary &x = *a.stats, &y = *b.stats;
    EXPECT_EQ(x.count, y.count);
    for (auto m : {&gpubench::summary::min, &gpubench::summary::max, &gpubench::summary::mean,
                   &gpubench::summary::stdev, &gpubench::summary::median, &gpubench::summary::q1,
                   &gpubench::summary::q3, &gpubench::summary::p95, &gpubench::summary::p99,
                   &gpubench::summary::mad, &gpubench::summary::rel_noise})
      EXPECT_EQ(x.*m, y.*m);
  }
  EXPECT_EQ(a.bytes_per_s, b.bytes_per_s);
  EXPECT_EQ(a.flops_per_s, b.flops_per_s);
  EXPECT_EQ(a.s_per_item, b.s_per_item);
  ASSERT_EQ(a.floor.has_value(), b.floor.has_value());
  if (a.floor) {
    EXPECT_EQ(a.floor->time_s, b.floor->time_s);
    EXPECT_EQ(a.floor->bound, b.floor->bound);
    EXPECT_EQ(a.floor->fraction, b.floor->fraction);
    EXPECT_EQ(a.floor->suspect, b.floor->suspect);
  }
  EXPECT_EQ(a.speedup, b.speedup);
  ASSERT_EQ(a.metrics.has_value(), b.metrics.has_value());
  if (a.metrics) {
    const gpubench::metric_result &x = *a.metrics, &y = *b.metrics;
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.reason, y.reason);
    EXPECT_EQ(x.chip, y.chip);
    EXPECT_EQ(x.requested, y.requested);
    EXPECT_EQ(x.missing, y.missing);
    EXPECT_EQ(x.passes, y.passes);
    EXPECT_EQ(x.collection_s, y.collection_s);
    EXPECT_EQ(x.values, y.values);
    EXPECT_EQ(x.derived, y.derived);
    EXPECT_EQ(x.warnings, y.warnings);
    ASSERT_EQ(x.kernels.size(), y.kernels.size());
    for (std::size_t i = 0; i < x.kernels.size(); ++i) {
      EXPECT_EQ(x.kernels[i].name, y.kernels[i].name);
      EXPECT_EQ(x.kernels[i].values, y.kernels[i].values);
    }
  }
}

void expect_same(const profile& a, const profile& b) {
  EXPECT_EQ(a.complete, b.complete);
  EXPECT_EQ(a.prov.gpubench_version, b.prov.gpubench_version);
  EXPECT_EQ(a.prov.git_sha, b.prov.git_sha);
  EXPECT_EQ(a.prov.argv, b.prov.argv);
  EXPECT_EQ(a.prov.started_at, b.prov.started_at);
  EXPECT_EQ(a.prov.finished_at, b.prov.finished_at);
  EXPECT_EQ(a.prov.hostname, b.prov.hostname);
  EXPECT_EQ(a.prov.os, b.prov.os);
  const gpubench::device_info &x = a.prov.device, &y = b.prov.device;
  EXPECT_EQ(x.ordinal, y.ordinal);
  EXPECT_EQ(x.name, y.name);
  EXPECT_EQ(x.uuid, y.uuid);
  EXPECT_EQ(x.pci_bus_id, y.pci_bus_id);
  EXPECT_EQ(x.cc_major, y.cc_major);
  EXPECT_EQ(x.cc_minor, y.cc_minor);
  EXPECT_EQ(x.sm_count, y.sm_count);
  EXPECT_EQ(x.sm_clock_max_mhz, y.sm_clock_max_mhz);
  EXPECT_EQ(x.memory_clock_mhz, y.memory_clock_mhz);
  EXPECT_EQ(x.memory_bus_width_bits, y.memory_bus_width_bits);
  EXPECT_EQ(x.memory_bytes, y.memory_bytes);
  EXPECT_EQ(x.l2_bytes, y.l2_bytes);
  EXPECT_EQ(x.shared_per_sm_bytes, y.shared_per_sm_bytes);
  EXPECT_EQ(x.ecc_enabled, y.ecc_enabled);
  EXPECT_EQ(x.driver_version, y.driver_version);
  EXPECT_EQ(x.runtime_version, y.runtime_version);
  EXPECT_EQ(x.driver_string, y.driver_string);
  EXPECT_EQ(x.pcie_gen_max, y.pcie_gen_max);
  EXPECT_EQ(x.pcie_width_max, y.pcie_width_max);
  EXPECT_EQ(x.pcie_gen_current, y.pcie_gen_current);
  EXPECT_EQ(x.pcie_width_current, y.pcie_width_current);
  EXPECT_EQ(x.power_limit_w, y.power_limit_w);
  EXPECT_EQ(x.nvml_available, y.nvml_available);
  // Order-insensitive: a plain nlohmann::json has sorted the keys (read_profile keeps them).
  EXPECT_EQ(nlohmann::json::parse(a.options.dump()), nlohmann::json::parse(b.options.dump()));
  EXPECT_EQ(a.ceil.source, b.ceil.source);
  EXPECT_EQ(a.ceil.dram_bytes_per_s, b.ceil.dram_bytes_per_s);
  EXPECT_EQ(a.ceil.pcie_bytes_per_s, b.ceil.pcie_bytes_per_s);
  EXPECT_EQ(a.ceil.fp32_flops_per_s, b.ceil.fp32_flops_per_s);
  EXPECT_EQ(a.ceil.fp64_flops_per_s, b.ceil.fp64_flops_per_s);
  ASSERT_EQ(a.records.size(), b.records.size());
  for (std::size_t i = 0; i < a.records.size(); ++i) expect_same(a.records[i], b.records[i]);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

class profile_file_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("gpubench_profile_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Writes the full profile, edits its JSON with `edit`, and expects read_profile to reject it
  /// with exit code 2 and a message naming the file and containing `needle` (the JSON path).
  void expect_rejected(const std::function<void(ojson&)>& edit, const std::string& needle) {
    ojson j = gpubench::to_json(full_profile());
    edit(j);
    expect_read_fails(j.dump(2), needle);
  }
  void expect_read_fails(const std::string& text, const std::string& needle) {
    const fs::path file = dir_ / "bad.json";
    spit(file, text);
    try {
      (void)gpubench::read_profile(file);
      ADD_FAILURE() << "read_profile accepted a bad profile; expected: " << needle;
    } catch (const gpubench::error& e) {
      EXPECT_EQ(e.code(), gpubench::exit_code::usage) << e.what();
      EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }

  fs::path dir_;
};

TEST(profile_json, round_trip_keeps_every_field) {
  const profile p = full_profile();
  const ojson j = gpubench::to_json(p);
  // Through text, as read_profile would.
  expect_same(p, gpubench::profile_from_json(nlohmann::ordered_json::parse(j.dump()), "mem"));
  EXPECT_TRUE(std::isinf(p.records[1].stats->rel_noise));
}

TEST(profile_json, keys_in_documented_order) {
  const ojson j = gpubench::to_json(full_profile());
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "schema_version", "complete", "provenance", "options",
                                            "ceilings", "records"}));
  keys.clear();
  for (const auto& item : j["records"][0].items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "chapter", "pair", "variant", "size", "status", "reason",
                                            "verification", "work", "timing", "summary", "throughput",
                                            "floor", "speedup_vs_baseline", "metrics"}));
  EXPECT_FALSE(j["records"][1].contains("metrics"));  // optional: only runs with --metrics write it
  keys.clear();
  for (const auto& item : j["records"][0]["metrics"].items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"status", "reason", "chip", "passes", "collection_s", "requested",
                                            "missing", "values", "derived", "warnings", "kernels"}));
  EXPECT_EQ(j["records"][0]["size"].dump(), R"({"m":32,"batch":40,"dir":"h2d"})");
  EXPECT_EQ(j["records"][0]["id"], "ch01/batched_gemm/optimized[m=32,batch=40,dir=h2d]");
  EXPECT_TRUE(j["records"][1]["floor"].is_null());
  EXPECT_TRUE(j["provenance"]["device"]["pcie_gen_max"].is_number_integer());
}

TEST(profile_json, non_finite_values_are_written_as_null) {
  profile p = full_profile();
  record& r = p.records[0];
  // An untimed record (no summary), whose figures the reader recomputes as none: null reads back as that.
  r.stats.reset();
  r.flops_per_s = r.s_per_item = 0;
  r.floor.reset();
  r.bytes_per_s = nan;
  r.speedup = inf;
  r.check.rel_l2_error = nan;
  p.prov.device.pcie_gen_max.reset();
  p.prov.device.power_limit_w.reset();
  const ojson j = gpubench::to_json(p);
  EXPECT_TRUE(j["records"][0]["throughput"]["bytes_per_s"].is_null());
  EXPECT_TRUE(j["records"][0]["speedup_vs_baseline"].is_null());
  EXPECT_TRUE(j["records"][0]["verification"]["rel_l2_error"].is_null());
  EXPECT_TRUE(j["records"][1]["summary"]["rel_noise"].is_null());
  EXPECT_TRUE(j["provenance"]["device"]["pcie_gen_max"].is_null());
  const profile back = gpubench::profile_from_json(nlohmann::ordered_json::parse(j.dump()), "mem");
  EXPECT_EQ(back.records[0].bytes_per_s, 0);
  EXPECT_FALSE(back.records[0].speedup.has_value());
  EXPECT_TRUE(std::isinf(back.records[0].check.rel_l2_error));  // unbounded, never "exact"
  EXPECT_FALSE(back.prov.device.pcie_gen_max.has_value());
  EXPECT_FALSE(back.prov.device.power_limit_w.has_value());
}

TEST_F(profile_file_test, write_then_read_round_trips) {
  const fs::path file = dir_ / "run.json";
  const profile p = full_profile();
  gpubench::write_profile(file, p);
  const profile back = gpubench::read_profile(file);
  expect_same(p, back);
  EXPECT_EQ(p.options.dump(), back.options.dump());  // the file's key order survives
}

TEST_F(profile_file_test, atomic_write_replaces_and_leaves_no_temp_file) {
  const fs::path file = dir_ / "run.json";
  profile p = full_profile();
  p.complete = false;
  gpubench::write_profile(file, p);
  p.complete = true;
  gpubench::write_profile(file, p);  // the per-pair rewrite
  EXPECT_TRUE(gpubench::read_profile(file).complete);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir_)) names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"run.json"});
}

TEST_F(profile_file_test, write_into_missing_directory_throws_runtime_error) {
  try {
    gpubench::write_profile(dir_ / "nope" / "run.json", full_profile());
    ADD_FAILURE() << "no exception";
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::runtime_failure);
    EXPECT_NE(std::string(e.what()).find("run.json"), std::string::npos) << e.what();
  }
}

TEST_F(profile_file_test, missing_file) {
  const fs::path file = dir_ / "absent.json";
  try {
    (void)gpubench::read_profile(file);
    ADD_FAILURE() << "no exception";
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage);
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
}

TEST_F(profile_file_test, empty_file) { expect_read_fails("", "empty"); }
TEST_F(profile_file_test, not_json) { expect_read_fails("gpubench was here\n", "not valid JSON at line 1"); }
TEST_F(profile_file_test, truncated_json) {
  const fs::path good = dir_ / "good.json";
  gpubench::write_profile(good, full_profile());
  const std::string text = slurp(good);
  expect_read_fails(text.substr(0, text.size() / 2), "truncated");
}
TEST_F(profile_file_test, top_level_not_object) { expect_read_fails("[1, 2]", "top level"); }

TEST_F(profile_file_test, wrong_schema) {
  expect_rejected([](ojson& j) { j["schema"] = "some-other-tool"; }, "schema");
}
TEST_F(profile_file_test, future_schema_version) {
  expect_rejected([](ojson& j) { j["schema_version"] = 7; }, "schema_version 7 is not supported");
}
TEST_F(profile_file_test, missing_records) {
  expect_rejected([](ojson& j) { j.erase("records"); }, "missing field 'records'");
}
TEST_F(profile_file_test, missing_nested_field) {
  expect_rejected([](ojson& j) { j["records"][0]["work"].erase("flops"); }, "'records[0].work.flops'");
}
TEST_F(profile_file_test, negative_sample) {
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["samples_s"][1] = -1e-4; },
                  "records[0].timing.samples_s[1]: must be a positive, finite number of seconds");
}
// A zero sample is rejected on load, naming the field, rather than failing compare later with
// exit 1, "unexpected error".
TEST_F(profile_file_test, zero_sample_names_the_record_and_field) {
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["samples_s"][1] = 0.0; },
                  "records[0].timing.samples_s[1]: must be a positive, finite number of seconds (record "
                  "ch01/batched_gemm/optimized[m=32,batch=40,dir=h2d])");
}
// The console and exports read the summary, compare reads the samples: they must agree.
TEST_F(profile_file_test, edited_summary_is_rejected) {
  expect_rejected([](ojson& j) { j["records"][0]["summary"]["median"] = 0.5e-4; },
                  "records[0].summary.median: 5e-05 does not match the samples (their median is 0.000105)");
  expect_rejected([](ojson& j) { j["records"][0]["summary"]["min"] = 0.8e-4; }, "records[0].summary.min");
  expect_rejected([](ojson& j) { j["records"][0]["summary"]["stdev"] = 0.0; }, "records[0].summary.stdev");
  expect_rejected([](ojson& j) { j["records"][0]["summary"]["p99"] = 1.0; }, "records[0].summary.p99");
  expect_rejected([](ojson& j) { j["records"][1]["summary"]["rel_noise"] = 0.01; }, "records[1].summary.rel_noise");
}
TEST(profile_json, summary_within_rounding_is_accepted) {
  ojson j = gpubench::to_json(full_profile());
  const double median = j["records"][0]["summary"]["median"].get<double>();
  j["records"][0]["summary"]["median"] = median * (1 + 1e-9);  // printed with fewer digits by another writer
  EXPECT_NO_THROW((void)gpubench::profile_from_json(j, "mem"));
}
TEST_F(profile_file_test, names_follow_the_registry_rule) {
  // Each edit keeps the id consistent, so the name check (not the id check) is what fires.
  const auto rename = [](const char* field, const std::string& value) {
    return [=](ojson& j) {
      j["records"][0][field] = value;
      j["records"][0]["id"] = "ch01/" + (std::string(field) == "pair" ? value : "batched_gemm") + "/" +
                              (std::string(field) == "variant" ? value : "optimized") + "[m=32,batch=40,dir=h2d]";
    };
  };
  expect_rejected(rename("pair", "Batched GEMM"), R"(records[0].pair: "Batched GEMM" is not a valid name)");
  expect_rejected(rename("variant", "opt`touch x`"), R"(records[0].variant: "opt`touch x`" is not a valid name)");
  expect_rejected(rename("pair", std::string(65, 'a')), "records[0].pair");
  expect_rejected([](ojson& j) { j["records"][0]["size"] = {{"M x", 32}}; },
                  R"(records[0].size: axis "M x" is not a valid name)");
  expect_rejected([](ojson& j) { j["records"][0]["size"]["dir"] = "h2d;rm"; },
                  R"(records[0].size.dir: "h2d;rm" is not a valid label)");
  expect_rejected([](ojson& j) { j["records"][0]["size"] = ojson::object(); }, "records[0].size: must name at least one axis");
  expect_rejected([](ojson& j) { j["records"][0]["size"]["m"] = -32; }, "records[0].size.m: must not be negative");
  expect_rejected([](ojson& j) { j["records"][0]["chapter"] = 0; }, "records[0].chapter: must be a chapter number");
}
TEST_F(profile_file_test, text_is_bounded_and_free_of_control_characters) {
  expect_rejected([](ojson& j) { j["provenance"]["device"]["name"] = "H100\x1b[2J"; },
                  "provenance.device.name: contains a control character at byte 4");
  expect_rejected([](ojson& j) { j["provenance"]["device"]["name"] = "H100\u009b2J"; },  // C1 CSI
                  "provenance.device.name: contains a control character");
  expect_rejected([](ojson& j) { j["provenance"]["device"]["name"] = std::string(1'000'000, 'H'); },
                  "provenance.device.name: is 1000000 bytes long; at most 256 are allowed");
  expect_rejected([](ojson& j) { j["provenance"]["argv"][1] = std::string(4097, 'a'); },
                  "provenance.argv[1]: is 4097 bytes long; at most 4096");
  expect_rejected([](ojson& j) { j["provenance"]["argv"] = std::vector<std::string>(257, "x"); },
                  "provenance.argv: has 257 entries; at most 256 are allowed");
  expect_rejected([](ojson& j) { j["records"][0]["reason"] = "line one\nline two"; },
                  "records[0].reason: contains a control character at byte 8");
  expect_rejected([](ojson& j) { j["records"][0]["verification"]["message"] = std::string(5000, 'm'); },
                  "records[0].verification.message: is 5000 bytes long");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["warnings"][0] = "\x07" "bell"; },
                  "records[0].metrics.warnings[0]: contains a control character");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["requested"] = std::vector<std::string>(1025, "x"); },
                  "records[0].metrics.requested: has 1025 entries");
  expect_rejected([](ojson& j) { j["options"]["cache"] = "cold\r"; }, "options.cache: contains a control character");
  expect_rejected(
      [](ojson& j) {
        ojson deep = 1;
        for (int i = 0; i < 10; ++i) deep = ojson::array({deep});
        j["options"]["deep"] = deep;
      },
      "nests deeper than 8 levels");
  expect_rejected([](ojson& j) { j["options"]["many"] = std::vector<int>(5000, 1); }, "holds more than 4096 values");
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["clock_source"] = std::string(300, 'c'); },
                  "records[0].timing.clock_source: is 300 bytes long");
}
TEST_F(profile_file_test, ceiling_units_are_known) {
  expect_rejected(
      [](ojson& j) {
        j["ceilings"]["table"] = ojson::array(
            {{{"name", "dram"}, {"unit", "parsec"}, {"value", 1.0}, {"theoretical", 1.0}, {"reference", 1.0},
              {"method", "m"}}});
      },
      R"(ceilings.table[0].unit: "parsec" is not one of "B/s", "FLOP/s", "s")");
}
TEST_F(profile_file_test, repeated_record_is_rejected) {
  expect_rejected([](ojson& j) { j["records"].push_back(j["records"][0]); },
                  R"(records[2].id: "ch01/batched_gemm/optimized[m=32,batch=40,dir=h2d]" repeats records[0])");
}
// Text the writer got from elsewhere (an exception, the command line) is cleaned so it reads back.
TEST(profile_json, writer_cleans_text_so_it_reads_back) {
  profile p = full_profile();
  p.records[0].reason = "CUDA error:\nillegal address\x1b[0m";
  p.records[0].check.message = std::string(10'000, 'm');
  p.prov.argv.emplace_back("--out=a\tb");
  const profile back = gpubench::profile_from_json(nlohmann::ordered_json::parse(gpubench::to_json(p).dump()), "mem");
  EXPECT_EQ(back.records[0].reason, "CUDA error: illegal address [0m");
  EXPECT_EQ(back.records[0].check.message.size(), 4096u);
  EXPECT_EQ(back.prov.argv.back(), "--out=a b");
}
TEST_F(profile_file_test, nan_written_as_null_sample) {
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["samples_s"][2] = nullptr; },
                  "records[0].timing.samples_s[2]");
}
TEST_F(profile_file_test, sm_clock_length_mismatch) {
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["sm_clock_mhz"].push_back(1980); },
                  "records[0].timing.sm_clock_mhz: has 6 entries but samples_s has 5");
}
TEST_F(profile_file_test, throttled_not_a_flag) {
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["throttled"][0] = 2; },
                  "records[0].timing.throttled[0]");
}
TEST_F(profile_file_test, summary_count_mismatch) {
  expect_rejected([](ojson& j) { j["records"][0]["summary"]["count"] = 4; }, "records[0].summary.count");
}
TEST_F(profile_file_test, bad_enum_string_lists_allowed_values) {
  expect_rejected([](ojson& j) { j["records"][1]["status"] = "great"; },
                  R"(records[1].status: "great" is not one of "passed", "failed", "error", "skipped", "profiled")");
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["cache"] = 3; }, "records[0].timing.cache");
  expect_rejected([](ojson& j) { j["records"][0]["verification"]["tolerance"]["kind"] = "loose"; },
                  "records[0].verification.tolerance.kind");
}
TEST_F(profile_file_test, bad_metrics_are_rejected_with_their_path) {
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["values"]["dram__bytes_read.sum"] = "many"; },
                  "records[0].metrics.values.dram__bytes_read.sum: must be a finite number");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["status"] = "maybe"; },
                  R"(records[0].metrics.status: "maybe" is not one of "collected", "unavailable")");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"].erase("passes"); },
                  "records[0].metrics: missing field 'passes'");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["passes"] = -1; }, "records[0].metrics.passes");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["warnings"] = {1}; },
                  "records[0].metrics.warnings[0]: must be a string");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"]["kernels"][1].erase("values"); },
                  "records[0].metrics: missing field 'kernels[1].values'");
  expect_rejected([](ojson& j) { j["records"][0]["metrics"] = 3; }, "records[0].metrics: must be a JSON object");
}
TEST_F(profile_file_test, id_mismatch) {
  expect_rejected([](ojson& j) { j["records"][0]["id"] = "ch01/batched_gemm/optimized[m=64,batch=40,dir=h2d]"; },
                  "records[0].id");
  // Editing a field instead of the id is caught the same way.
  expect_rejected([](ojson& j) { j["records"][0]["size"]["m"] = 64; }, "records[0].id");
}
TEST_F(profile_file_test, wrong_types) {
  expect_rejected([](ojson& j) { j["complete"] = "yes"; }, "complete: must be true or false");
  expect_rejected([](ojson& j) { j["provenance"]["device"]["memory_bytes"] = -1; },
                  "provenance.device.memory_bytes");
  expect_rejected([](ojson& j) { j["records"][0]["size"]["batch"] = 1.5; }, "records[0].size.batch");
}

TEST_F(profile_file_test, check_writable_accepts_a_writable_directory_and_leaves_nothing) {
  EXPECT_NO_THROW(gpubench::check_writable(dir_ / "run.json"));
  EXPECT_TRUE(fs::is_empty(dir_));
}
TEST_F(profile_file_test, check_writable_rejects_missing_directory) {
  try {
    gpubench::check_writable(dir_ / "missing" / "run.json");
    ADD_FAILURE() << "no exception";
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage);
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
}
TEST_F(profile_file_test, check_writable_rejects_a_directory_path) {
  try {
    gpubench::check_writable(dir_);
    ADD_FAILURE() << "no exception";
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage);
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST(profile_provenance, strings) {
  EXPECT_FALSE(gpubench::version_string().empty());
  // "2026-11-22T02:30:42Z" (checked by hand: std::regex trips GCC 12 warnings under -Werror).
  const std::string now = gpubench::now_utc_iso8601();
  const std::string shape = "dddd-dd-ddTdd:dd:ddZ";
  ASSERT_EQ(now.size(), shape.size()) << now;
  for (std::size_t i = 0; i < shape.size(); ++i)
    EXPECT_TRUE(shape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(now[i])) != 0 : now[i] == shape[i]) << now;
}

}  // namespace

// The reader's checks hold for every profile gpubench has committed (their summaries match their
// samples, names and units follow the rules).
TEST(profile_io, every_committed_profile_reads) {
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_FALSE(gpubench::read_profile(entry.path()).records.empty());
    ++n;
  }
  EXPECT_GE(n, 10u);
}

// setup_s and verify_s came after the first reference profiles: those must still read, as 0.
TEST(profile_io, reference_profiles_without_phase_times_still_read) {
  const auto p = gpubench::read_profile(std::string(GPUBENCH_SOURCE_DIR) + "/profiles/reference/h100-ch01.json");
  ASSERT_FALSE(p.records.empty());
  EXPECT_EQ(p.records[0].timing.setup_s, 0);
  EXPECT_EQ(p.records[0].timing.verify_s, 0);
  EXPECT_GT(p.records[0].timing.wall_s, 0);
}

// Schema 2: the rounds must add up to the samples, and the spans line up with them.
TEST_F(profile_file_test, rounds_must_add_up_to_the_samples) {
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["rounds"] = {{{"samples", 2}, {"stop_reason", "converged"}, {"wall_s", 0.01}},
                                                                       {{"samples", 2}, {"stop_reason", "timeout"}, {"wall_s", 0.01}}}; },
                  "records[0].timing.rounds: count 4 samples in all, but samples_s has 5");
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["rounds"] = {{{"samples", 0}, {"stop_reason", "converged"}, {"wall_s", 0}}}; },
                  "records[0].timing.rounds[0].samples: must be at least 1");
  expect_rejected([](ojson& j) { j["records"][0]["timing"]["span_s"] = {1e-4}; },
                  "records[0].timing.span_s: has 1 entries but samples_s has 5");
  expect_rejected([](ojson& j) { j["records"][1]["timing"]["rounds"][0]["event_overhead_s"] = -1e-6; },
                  "records[1].timing.rounds[0].event_overhead_s: must be a finite, non-negative number");
}

// A version-1 file (before rounds and sources) reads as one round of its method's own clock.
TEST_F(profile_file_test, version_1_reads_as_one_round) {
  ojson j = to_json(full_profile());
  j["schema_version"] = 1;
  for (auto& r : j["records"]) {
    r["timing"].erase("rounds");
    r["timing"].erase("source");
  }
  const std::string path = (dir_ / "v1.json").string();
  std::ofstream(path) << j.dump();
  const profile p = gpubench::read_profile(path);
  ASSERT_FALSE(p.records.empty());
  EXPECT_TRUE(p.records[0].timing.rounds.empty());
  EXPECT_EQ(p.records[0].timing.source, p.records[0].timing.method == gpubench::timing_method::host_wall
                                            ? gpubench::time_source::host_wall
                                            : gpubench::time_source::cuda_events);
}
