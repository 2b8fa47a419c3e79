// One run's speedups with intervals (gpubench/speedup_interval.hpp): hand-computed on made-up
// rounds, equal to compare_profiles()' own estimate of each side's speedup on a committed profile,
// and read against the same band as compare reads time ratios.
#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/speedup_interval.hpp"
#include "gpubench/stats.hpp"

using namespace gpubench;

namespace {

record timed(const std::string& variant, double seconds, timing_method method = timing_method::cuda_events) {
  record r;
  r.chapter = 1;
  r.pair = "p";
  r.variant = variant;
  r.size = size_point({{"n", 1}});
  r.declared.path = bytes_path::dram;
  r.timing.method = method;
  r.timing.source = method == timing_method::host_wall ? time_source::host_wall : time_source::cuda_events_net;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 10; ++i) r.timing.samples_s.push_back(seconds);
    round_info ri;
    ri.samples = 10;
    r.timing.rounds.push_back(ri);
  }
  r.stats = summarize(r.timing.samples_s);
  return r;
}

}  // namespace

// Constant samples: no round or sample variance, so the interval is the two records' fitted
// between-process floors alone (0.8% each for device-timed records, docs/measurement.md).
TEST(SpeedupInterval, HandComputedFromTheProcessFloors) {
  const auto s = speedup_interval(timed("baseline", 2e-3), timed("fast", 1e-3));
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->estimate, 2.0, 1e-12);
  const double half = 1.959964 * std::sqrt(2.0) * 0.008;
  EXPECT_NEAR(std::log(s->high / s->estimate), half, 1e-5);
  EXPECT_NEAR(std::log(s->estimate / s->low), half, 1e-5);
  // 90% instead of 95%: the z of 1.645.
  const auto narrow = speedup_interval(timed("baseline", 2e-3), timed("fast", 1e-3), 0.90);
  EXPECT_NEAR(std::log(narrow->high / narrow->estimate), 1.644854 * std::sqrt(2.0) * 0.008, 1e-5);
  // Host-timed work moves ~14% between processes: its interval is that much wider.
  const auto host = speedup_interval(timed("baseline", 2e-3, timing_method::host_wall),
                                     timed("fast", 1e-3, timing_method::host_wall));
  EXPECT_NEAR(std::log(host->high / host->estimate), 1.959964 * std::sqrt(2.0) * 0.14, 1e-4);
}

TEST(SpeedupInterval, RoundsThatDisagreeWidenIt) {
  record b = timed("baseline", 2e-3), v = timed("fast", 1e-3);
  for (std::size_t i = 10; i < 20; ++i) v.timing.samples_s[i] = 1.2e-3;  // round 2 ran 20% slower
  v.stats = summarize(v.timing.samples_s);
  const auto s = speedup_interval(b, v);
  ASSERT_TRUE(s.has_value());
  // Per-round log speedups ln 2, ln(2/1.2), ln 2: their mean, and their spread / 3 as the variance.
  const double r0 = std::log(2.0), r1 = std::log(2 / 1.2), mean = (2 * r0 + r1) / 3;
  EXPECT_NEAR(std::log(s->estimate), mean, 1e-12);
  const double ss = 2 * (r0 - mean) * (r0 - mean) + (r1 - mean) * (r1 - mean);
  EXPECT_NEAR(std::log(s->high / s->estimate), 1.959964 * std::sqrt(ss / 2 / 3 + 2 * 0.008 * 0.008), 1e-5);
}

TEST(SpeedupInterval, NothingWithoutTwoTimedRecords) {
  record failed = timed("broken", 1e-3);
  failed.status = record_status::failed;
  EXPECT_FALSE(speedup_interval(timed("baseline", 2e-3), failed).has_value());
  record empty = timed("empty", 1e-3);
  empty.timing.samples_s.clear();
  EXPECT_FALSE(speedup_interval(empty, timed("fast", 1e-3)).has_value());
  EXPECT_FALSE(speedup_interval(timed("baseline", 2e-3), timed("fast", 1e-3), 1.5).has_value());
}

// compare_profiles() estimates each side's speedup the same way: on a committed profile the two
// agree on every variant's speedup.
TEST(SpeedupInterval, AgreesWithCompareOnEachSide) {
  const profile base = read_profile(std::string(GPUBENCH_SOURCE_DIR) + "/profiles/reference/h200-ch01.json");
  const profile next = read_profile(std::string(GPUBENCH_SOURCE_DIR) + "/profiles/reference/h200-ch01-r2.json");
  const comparison c = compare_profiles(base, next, {});
  ASSERT_FALSE(c.speedups.empty());
  // Each size's baseline: its first record in profile order.
  std::map<std::string, const record*> baseline_of;
  for (const record& r : base.records) baseline_of.try_emplace(r.pair + "[" + r.size.to_string() + "]", &r);
  std::size_t checked = 0;
  for (const speedup_comparison& s : c.speedups) {
    const auto variant =
        std::find_if(base.records.begin(), base.records.end(), [&](const record& r) { return r.id() == s.id; });
    ASSERT_NE(variant, base.records.end()) << s.id;
    const record* baseline = baseline_of.at(variant->pair + "[" + variant->size.to_string() + "]");
    const auto mine = speedup_interval(*baseline, *variant);
    ASSERT_TRUE(mine.has_value()) << s.id;
    EXPECT_NEAR(mine->estimate / s.base_speedup, 1.0, 1e-12) << s.id;
    EXPECT_LT(mine->low, mine->estimate);
    EXPECT_GT(mine->high, mine->estimate);
    ++checked;
  }
  EXPECT_EQ(checked, c.speedups.size());
}

TEST(SpeedupInterval, VerdictAgainstTheSameBand) {
  EXPECT_EQ(speedup_verdict({2.0, 1.9, 2.1}, 0.05), verdict::faster);
  EXPECT_EQ(speedup_verdict({0.5, 0.45, 0.55}, 0.05), verdict::slower);
  EXPECT_EQ(speedup_verdict({1.01, 0.99, 1.03}, 0.05), verdict::same);
  EXPECT_EQ(speedup_verdict({1.04, 1.0, 1.08}, 0.05), verdict::inconclusive);
}
