/// Regression tests for what fuzzing the profile reader found (tests/fuzz/profile_reader_fuzz.cpp,
/// docs/profile-schema.md "Fuzzing the reader"). Each test names the finding.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/stats.hpp"

namespace {

using ojson = nlohmann::ordered_json;

gpubench::profile one_record_profile() {
  gpubench::profile p;
  p.prov.device.name = "NVIDIA H200";
  gpubench::record r;
  r.chapter = 1;
  r.pair = "copy";
  r.variant = "baseline";
  r.size = gpubench::size_point({{"n", std::int64_t{1024}}});
  r.check.elements = 1024;
  r.timing.samples_s = {2e-6, 2.1e-6, 1.9e-6};
  r.timing.sm_clock_mhz = {1980, 1980, 1980};
  r.timing.throttled = {0, 1, 0};
  r.stats = gpubench::summarize(r.timing.samples_s);
  p.records.push_back(r);
  return p;
}

// Finding 1: the first seed (a profile written by to_json) did not read back from memory:
// to_json writes `throttled` as signed integers, which the reader rejected ("must be 0 or 1")
// because only parsed text stores non-negative integers as unsigned.
TEST(profile_fuzz_regression, to_json_reads_back_without_a_text_round_trip) {
  const gpubench::profile p = one_record_profile();
  const gpubench::profile back = gpubench::profile_from_json(gpubench::to_json(p), "memory");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.records[0].timing.throttled, (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(back.records[0].check.elements, 1024u);
}

TEST(profile_fuzz_regression, signed_counts_in_memory_are_still_checked) {
  ojson j = gpubench::to_json(one_record_profile());
  j["records"][0]["verification"]["elements"] = std::int64_t{7};  // signed but non-negative: fine
  EXPECT_EQ(gpubench::profile_from_json(j, "memory").records[0].check.elements, 7u);
  j["records"][0]["verification"]["elements"] = std::int64_t{-7};
  EXPECT_THROW((void)gpubench::profile_from_json(j, "memory"), gpubench::error);
  j = gpubench::to_json(one_record_profile());
  j["records"][0]["timing"]["throttled"][1] = std::int64_t{2};
  EXPECT_THROW((void)gpubench::profile_from_json(j, "memory"), gpubench::error);
  j["records"][0]["timing"]["throttled"][1] = std::int64_t{-1};
  EXPECT_THROW((void)gpubench::profile_from_json(j, "memory"), gpubench::error);
  j["records"][0]["timing"]["throttled"][1] = 1.0;  // a float is not 0 or 1
  EXPECT_THROW((void)gpubench::profile_from_json(j, "memory"), gpubench::error);
}

// The seeds cut from the committed profiles (scripts/fuzz-seed-corpus.py) must load: a seed the
// reader rejects only teaches the fuzzer the first check.
TEST(profile_fuzz_regression, every_seed_cut_from_a_committed_profile_loads) {
  namespace fs = std::filesystem;
  std::size_t seeds = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUBENCH_SOURCE_DIR) / "tests/fuzz/corpus")) {
    if (entry.path().filename().string().rfind("seed-", 0) != 0) continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_FALSE(gpubench::read_profile(entry.path()).records.empty());
    ++seeds;
  }
  EXPECT_GE(seeds, 10u);
}

}  // namespace
