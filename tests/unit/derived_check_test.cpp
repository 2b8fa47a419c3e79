/// Derived fields are recomputed on reading (lib/src/profile/derived_check.hpp): a stored
/// throughput, floor, speedup, tuning rank or derived counter that disagrees with the samples, the
/// work model, the ceilings or the raw counters is refused, naming the field; one within rounding
/// is replaced by the recomputed value, so every output shows the same numbers.
#include <cmath>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpubench/profile.hpp"
#include "test_support.hpp"

namespace {

using ojson = nlohmann::ordered_json;

ojson seed(const char* name) {
  std::ifstream in(std::string(GPUBENCH_SOURCE_DIR "/tests/fuzz/corpus/") + name);
  return ojson::parse(in);
}

/// `edit` applied to the seed, then read: the message (exit 2) or "" when it reads.
std::string read_edited(const char* name, const std::function<void(ojson&)>& edit) {
  ojson j = seed(name);
  edit(j);
  try {
    (void)gpubench::profile_from_json(j, "edited.json");
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage);
    return e.what();
  }
  return {};
}

void expect_refused(const char* name, const std::function<void(ojson&)>& edit, const std::string& field) {
  const std::string m = read_edited(name, edit);
  EXPECT_NE(m.find("edited.json: " + field), std::string::npos) << m;
  EXPECT_NE(m.find("recomputed on reading"), std::string::npos) << m;
}

constexpr const char* kPair = "seed-h100-ch01-r2.json";  // a transfer's baseline and optimized variant

TEST(derived_check, every_seed_reads_as_written) {
  for (const char* name : {kPair, "seed-ch06-tuning.json", "seed-h100-ch03-metrics.json", "seed-h100-ch05.json",
                           "seed-h100-ch01-measured.json"})
    EXPECT_EQ(read_edited(name, [](ojson&) {}), "") << name;
}

TEST(derived_check, forged_figures_are_refused_naming_the_field) {
  expect_refused(
      kPair, [](ojson& j) { j["records"][1]["speedup_vs_baseline"] = 42.0; }, "records[1].speedup_vs_baseline: 42");
  expect_refused(
      kPair, [](ojson& j) { j["records"][1]["speedup_vs_baseline"] = nullptr; },
      "records[1].speedup_vs_baseline: null");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["speedup_vs_baseline"] = 1.0; }, "records[0].speedup_vs_baseline: 1");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["throughput"]["bytes_per_s"] = 9.9e12; },
      "records[0].throughput.bytes_per_s");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["throughput"]["flops_per_s"] = 1.0; }, "records[0].throughput.flops_per_s");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["floor"]["fraction"] = 0.99; }, "records[0].floor.fraction: 0.99");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["floor"]["time_s"] = 1e-9; }, "records[0].floor.time_s");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["floor"]["bound"] = "dram"; }, "records[0].floor.bound");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["floor"]["suspect"] = true; }, "records[0].floor.suspect");
  expect_refused(
      kPair, [](ojson& j) { j["records"][0]["floor"] = nullptr; }, "records[0].floor");
  // Ceilings are the floors' other input: lowering one moves every floor it bounds.
  expect_refused(
      kPair, [](ojson& j) { j["ceilings"]["pcie_bytes_per_s"] = 1e9; }, "records[0].floor");
}

TEST(derived_check, rounding_is_allowed_and_the_recomputed_value_is_kept) {
  ojson j = seed(kPair);
  const double stored = j["records"][1]["speedup_vs_baseline"].get<double>();
  j["records"][1]["speedup_vs_baseline"] = stored * (1 + 1e-8);
  const gpubench::profile p = gpubench::profile_from_json(j, "edited.json");
  ASSERT_TRUE(p.records[1].speedup.has_value());
  EXPECT_DOUBLE_EQ(*p.records[1].speedup, p.records[0].stats->median / p.records[1].stats->median);
}

TEST(derived_check, tuning_ranks_follow_the_medians) {
  ojson j = seed("seed-ch06-tuning.json");
  std::size_t first = 0, second = 0;
  for (std::size_t i = 0; i < j["records"].size(); ++i)
    if (j["records"][i].contains("tuning") && j["records"][i]["tuning"]["rank"] == 1) first = i;
  for (std::size_t i = 0; i < j["records"].size(); ++i)
    if (j["records"][i].contains("tuning") && j["records"][i]["tuning"]["rank"] == 2 &&
        j["records"][i]["size"] == j["records"][first]["size"])
      second = i;
  ASSERT_NE(first, second);
  expect_refused(
      "seed-ch06-tuning.json",
      [&](ojson& e) {
        e["records"][first]["tuning"]["rank"] = 2;
        e["records"][second]["tuning"]["rank"] = 1;
      },
      "records[" + std::to_string(std::min(first, second)) + "].tuning.rank");
}

TEST(derived_check, derived_counters_follow_the_raw_values) {
  const char* name = "seed-h100-ch03-metrics.json";
  ojson j = seed(name);
  std::size_t with = j["records"].size();
  for (std::size_t i = 0; i < j["records"].size(); ++i)
    if (j["records"][i].contains("metrics") && j["records"][i]["metrics"]["derived"].contains("dram_bytes")) with = i;
  ASSERT_LT(with, j["records"].size());
  expect_refused(
      name, [&](ojson& e) { e["records"][with]["metrics"]["derived"]["dram_bytes"] = 1.0; },
      "records[" + std::to_string(with) + "].metrics.derived.dram_bytes");
  expect_refused(
      name, [&](ojson& e) { e["records"][with]["metrics"]["derived"]["invented"] = 1.0; },
      "records[" + std::to_string(with) + "].metrics.derived.invented");
}

}  // namespace
