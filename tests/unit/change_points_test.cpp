// E-Divisive means (gpubench/change_points.hpp) on series with known steps: the bars of
// docs/store.md, "Change points" (a +6% step in 30 runs of 1% noise found at its run, give or
// take one; nothing in a flat series of 200), over many seeds, and the statistic itself.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "gpubench/change_points.hpp"

namespace {

using namespace gpubench;

/// `n` runs of a median 1 ms with `noise` relative normal noise, times `step` from index `at` on.
std::vector<double> series(std::size_t n, double noise, std::size_t at, double step, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1e-3 * (i >= at ? step : 1.0) * (1 + noise * z(rng));
  return v;
}

TEST(ChangePoints, ASixPercentStepAtRun20Of30IsFoundThere) {
  // Runs are numbered from 1: the step at run 20 makes index 19 the first point of the new level.
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const auto found = e_divisive_means(series(30, 0.01, 19, 1.06, seed));
    ASSERT_EQ(found.size(), 1u) << "seed " << seed;
    EXPECT_GE(found[0].index, 18u) << "seed " << seed;
    EXPECT_LE(found[0].index, 20u) << "seed " << seed;
    EXPECT_LE(found[0].p_value, 0.001);
    // The shift and its interval: about +6%, the interval around the truth.
    EXPECT_NEAR(found[0].ratio, 1.06, 0.02) << "seed " << seed;
    EXPECT_LT(found[0].ratio_low, found[0].ratio);
    EXPECT_GT(found[0].ratio_high, found[0].ratio);
    EXPECT_GT(found[0].ratio_low, 1.0) << "seed " << seed;
  }
}

TEST(ChangePoints, AFlatSeriesOf200RunsHasNone) {
  for (std::uint64_t seed = 1; seed <= 50; ++seed)
    EXPECT_TRUE(e_divisive_means(series(200, 0.01, 200, 1.0, 1000 + seed)).empty()) << "seed " << seed;
}

TEST(ChangePoints, TwoStepsAreBothFoundWithTheirSigns) {
  std::vector<double> v = series(60, 0.005, 20, 1.05, 7);
  for (std::size_t i = 40; i < 60; ++i) v[i] *= 0.9;  // a 10% speed-up at index 40
  const auto found = e_divisive_means(v);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NEAR(static_cast<double>(found[0].index), 20, 1);
  EXPECT_NEAR(static_cast<double>(found[1].index), 40, 1);
  EXPECT_GT(found[0].ratio, 1.03);
  EXPECT_LT(found[1].ratio, 0.93);
  // The levels either side are the segments' geometric means.
  EXPECT_NEAR(found[0].before, 1e-3, 2e-5);
  EXPECT_NEAR(found[0].after, 1.05e-3, 2e-5);
}

TEST(ChangePoints, ShortConstantAndInvalidSeries) {
  EXPECT_TRUE(e_divisive_means(std::vector<double>{1, 1, 1, 2, 2}).empty());  // fewer than 2 × min_segment
  EXPECT_TRUE(e_divisive_means(std::vector<double>(40, 1e-3)).empty());       // nothing varies
  EXPECT_THROW((void)e_divisive_means(std::vector<double>{1, 2, 0, 1, 2, 3}), std::invalid_argument);
  EXPECT_THROW((void)e_divisive_means(std::vector<double>{1, 2, -1, 1, 2, 3}), std::invalid_argument);
  change_point_options o;
  o.permutations = 99;  // p cannot reach 0.001 with 99 shuffles
  EXPECT_THROW((void)e_divisive_means(std::vector<double>{1, 2, 3, 4, 5, 6}, o), std::invalid_argument);
}

TEST(ChangePoints, TheSameSeriesGivesTheSameAnswer) {
  const auto v = series(50, 0.01, 25, 1.04, 3);
  const auto a = e_divisive_means(v), b = e_divisive_means(v);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
}

TEST(ChangePoints, TheStatisticMatchesItsDefinitionOnAHandCheckedSeries) {
  // Five values e^0 then five e^1 (the logs are compared): the best split is at 5, where the
  // energy statistic is (5·5/10)·(2·25·1/25 - 0 - 0) = 5. Only 2 of the 252 arrangements of the
  // values separate them that well, so the permutation p-value is about 0.008.
  const double e = std::exp(1.0);
  change_point_options o;
  o.alpha = 0.05;
  o.min_segment = 2;
  const auto found = e_divisive_means(std::vector<double>{1, 1, 1, 1, 1, e, e, e, e, e}, o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 5u);
  EXPECT_NEAR(found[0].q, 5.0, 1e-12);
  EXPECT_LT(found[0].p_value, 0.02);
  EXPECT_GT(found[0].p_value, 0.002);
  EXPECT_NEAR(found[0].ratio, e, 1e-12);
  EXPECT_NEAR(found[0].ratio_low, e, 1e-12);  // no spread within either level: the interval is the point
}

}  // namespace
