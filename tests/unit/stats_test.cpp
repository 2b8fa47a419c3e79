/// Unit tests for gpubench/stats.hpp.
///
/// Where the literals come from: NumPy was not available, so every quantile literal was computed
/// by hand with the Hyndman & Fan type 7 rule (h = (n-1)p, x[floor h] + frac(h) * gap; the working
/// is in the comments) and cross-checked with Python's standard library,
/// statistics.quantiles(x, n=N, method='inclusive'), which implements the same type 7 rule (and so
/// matches np.quantile's default). Standard deviations were cross-checked with statistics.stdev and
/// the noise literals with Python's math module, with the formula written out next to each one.
#include "gpubench/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using gpubench::mad;
using gpubench::median;
using gpubench::median_rel_noise;
using gpubench::quantile_sorted;
using gpubench::summarize;

constexpr double inf = std::numeric_limits<double>::infinity();

// sqrt(pi/2) = 1.2533141373155001, the asymptotic SE factor of the median under normal noise.
const double se_factor = std::sqrt(std::numbers::pi / 2);

TEST(QuantileSorted, OddCount) {
  // n = 7, h = 6p.
  const std::vector<double> x{1, 2, 4, 7, 11, 16, 22};
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.25), 3.0);   // h=1.5: 2 + 0.5*(4-2)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.5), 7.0);    // h=3: x[3]
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.75), 13.5);  // h=4.5: 11 + 0.5*(16-11)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.95), 20.2);  // h=5.7: 16 + 0.7*(22-16)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 1.0), 22.0);
}

TEST(QuantileSorted, EvenCount) {
  // n = 6, h = 5p.
  const std::vector<double> x{1, 2, 4, 7, 11, 16};
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.25), 2.5);    // h=1.25: 2 + 0.25*(4-2)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.5), 5.5);     // h=2.5: 4 + 0.5*(7-4)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.75), 10.0);   // h=3.75: 7 + 0.75*(11-7)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 0.95), 14.75);  // h=4.75: 11 + 0.75*(16-11)
  EXPECT_DOUBLE_EQ(quantile_sorted(x, 1.0), 16.0);
}

TEST(QuantileSorted, SingleElementIsEveryQuantile) {
  const std::vector<double> x{42.5};
  for (double p : {0.0, 0.25, 0.5, 0.75, 0.95, 0.99, 1.0}) {
    EXPECT_DOUBLE_EQ(quantile_sorted(x, p), 42.5) << "p=" << p;
  }
}

TEST(QuantileSorted, RejectsEmptyAndOutOfRangeP) {
  const std::vector<double> empty;
  const std::vector<double> x{1, 2, 3};
  EXPECT_THROW(quantile_sorted(empty, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile_sorted(x, -0.01), std::invalid_argument);
  EXPECT_THROW(quantile_sorted(x, 1.01), std::invalid_argument);
  EXPECT_THROW(quantile_sorted(x, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(Median, UnsortedOddAndEven) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{9, 1, 8, 3, 5}), 5.0);  // sorted 1 3 5 8 9
  EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);     // (2+3)/2
  EXPECT_DOUBLE_EQ(median(std::vector<double>{-3, 10, -7}), -3.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{7}), 7.0);
}

TEST(Median, DoesNotModifyInput) {
  const std::vector<double> x{9, 1, 8, 3, 5};
  const std::vector<double> copy = x;
  (void)median(x);
  EXPECT_EQ(x, copy);
}

TEST(Mad, KnownSets) {
  // Textbook example (Wikipedia "Median absolute deviation"): median 2, |x-2| = 1 1 0 0 2 4 7,
  // sorted 0 0 1 1 2 4 7, median 1.
  EXPECT_DOUBLE_EQ(mad(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 1.0);
  // Even n: median 3.5, |x-3.5| = 2.5 1.5 .5 .5 96.5 196.5, sorted .5 .5 1.5 2.5 ..., median 2.
  EXPECT_DOUBLE_EQ(mad(std::vector<double>{1, 2, 3, 4, 100, 200}), 2.0);
  EXPECT_DOUBLE_EQ(mad(std::vector<double>{3, 3, 3}), 0.0);
  EXPECT_DOUBLE_EQ(mad(std::vector<double>{5}), 0.0);
}

TEST(MedianRelNoise, KnownSet) {
  // n=7, median 2, MAD 1: sqrt(pi/2) * 1.4826*1 / sqrt(7) / 2 = 0.3511599015774988.
  EXPECT_NEAR(median_rel_noise(std::vector<double>{1, 1, 2, 2, 4, 6, 9}), 0.3511599015774988, 1e-12);
}

TEST(MedianRelNoise, RobustToOneOutlier) {
  // A preempted sample (50) among ~10 us timings. sorted 9.9 10 10 10.1 10.2 10.3 50: median 10.1;
  // |x-10.1| sorted 0 .1 .1 .1 .2 .2 39.9: MAD 0.1.
  // sqrt(pi/2) * 1.4826*0.1 / sqrt(7) / 10.1 = 0.006953661417376216.
  const std::vector<double> x{10.0, 10.2, 9.9, 10.1, 10.0, 50.0, 10.3};
  EXPECT_NEAR(median_rel_noise(x), 0.006953661417376216, 1e-12);
}

TEST(MedianRelNoise, IdenticalSamplesGiveZero) {
  EXPECT_DOUBLE_EQ(median_rel_noise(std::vector<double>{5, 5, 5, 5, 5}), 0.0);
}

TEST(MedianRelNoise, FallsBackToStdevWhenMadIsZero) {
  // Five of seven samples equal (a quantized timer): median 5, MAD 0. Sample stdev (n-1):
  // mean 131/7, stdev 35.845568232415594 (statistics.stdev), so
  // sqrt(pi/2) * 35.845568232415594 / sqrt(7) / 5 = 3.3960680459961097.
  const std::vector<double> x{5, 5, 6, 5, 100, 5, 5};
  ASSERT_DOUBLE_EQ(mad(x), 0.0);
  EXPECT_NEAR(median_rel_noise(x), 3.3960680459961097, 1e-12);
}

TEST(MedianRelNoise, InfiniteForTooFewSamplesOrZeroMedian) {
  EXPECT_EQ(median_rel_noise(std::vector<double>{}), inf);
  EXPECT_EQ(median_rel_noise(std::vector<double>{1.0}), inf);
  EXPECT_EQ(median_rel_noise(std::vector<double>{1.0, 2.0}), inf);
  EXPECT_EQ(median_rel_noise(std::vector<double>{-1.0, 0.0, 1.0}), inf);
}

TEST(MedianRelNoise, ShrinksAsInverseSqrtN) {
  // Deterministic normal-ish samples, mean 100, sigma 5 (values depend on the standard library's
  // normal_distribution, so only tolerances are asserted). Theory: rel_noise ~= sqrt(pi/2)*5/100
  // / sqrt(n), so rel_noise*sqrt(n) ~= 0.0627 for every n and quadrupling n halves the noise.
  std::mt19937 gen(12345);
  std::normal_distribution<double> dist(100.0, 5.0);
  std::vector<double> all(6400);
  for (double& v : all) v = dist(gen);
  const double expected_scaled = se_factor * 5.0 / 100.0;
  double previous = inf;
  for (std::size_t n : {100u, 400u, 1600u, 6400u}) {
    const double noise = median_rel_noise(std::span<const double>(all).first(n));
    const double scaled = noise * std::sqrt(static_cast<double>(n));
    // The MAD's own sampling error is about 1.2/sqrt(n) relative (~12% at n=100).
    EXPECT_NEAR(scaled / expected_scaled, 1.0, 0.25) << "n=" << n;
    if (previous != inf) {
      EXPECT_GT(previous / noise, 1.5) << "n=" << n;
      EXPECT_LT(previous / noise, 2.5) << "n=" << n;
    }
    previous = noise;
  }
}

TEST(Summarize, AllFields) {
  // Classic set, given unsorted: sorted 2 4 4 4 5 5 7 9, n = 8, h = 7p.
  const std::vector<double> x{5, 9, 4, 2, 7, 4, 5, 4};
  const gpubench::summary s = summarize(x);
  EXPECT_EQ(s.count, 8u);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  // sum of squared deviations 32; sqrt(32/7) (n-1, not the population value 2).
  EXPECT_NEAR(s.stdev, 2.138089935299395, 1e-12);
  EXPECT_DOUBLE_EQ(s.median, 4.5);  // h=3.5: 4 + 0.5*(5-4)
  EXPECT_DOUBLE_EQ(s.q1, 4.0);      // h=1.75: 4 + 0.75*(4-4)
  EXPECT_DOUBLE_EQ(s.q3, 5.5);      // h=5.25: 5 + 0.25*(7-5)
  EXPECT_DOUBLE_EQ(s.p95, 8.3);     // h=6.65: 7 + 0.65*(9-7)
  EXPECT_DOUBLE_EQ(s.p99, 8.86);    // h=6.93: 7 + 0.93*(9-7)
  // |x-4.5| sorted .5 .5 .5 .5 .5 2.5 2.5 4.5: MAD 0.5.
  EXPECT_DOUBLE_EQ(s.mad, 0.5);
  // sqrt(pi/2) * 1.4826*0.5 / sqrt(8) / 4.5 = 0.07299555775979215.
  EXPECT_NEAR(s.rel_noise, 0.07299555775979215, 1e-12);
  // summarize() must agree with the standalone functions.
  EXPECT_DOUBLE_EQ(s.median, median(x));
  EXPECT_DOUBLE_EQ(s.mad, mad(x));
  EXPECT_DOUBLE_EQ(s.rel_noise, median_rel_noise(x));
}

TEST(Summarize, MadFallbackMatchesStandalone) {
  const std::vector<double> x{5, 5, 6, 5, 100, 5, 5};
  const gpubench::summary s = summarize(x);
  EXPECT_NEAR(s.stdev, 35.845568232415594, 1e-12);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
  EXPECT_NEAR(s.rel_noise, 3.3960680459961097, 1e-12);
}

TEST(Summarize, SingleElement) {
  const gpubench::summary s = summarize(std::vector<double>{3.25});
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.min, 3.25);
  EXPECT_DOUBLE_EQ(s.max, 3.25);
  EXPECT_DOUBLE_EQ(s.mean, 3.25);
  EXPECT_DOUBLE_EQ(s.stdev, 0.0);  // fewer than two samples
  EXPECT_DOUBLE_EQ(s.median, 3.25);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.p95, 3.25);
  EXPECT_DOUBLE_EQ(s.p99, 3.25);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
  EXPECT_EQ(s.rel_noise, inf);  // n < 3
}

TEST(EmptyInput, Throws) {
  const std::vector<double> empty;
  EXPECT_THROW(median(empty), std::invalid_argument);
  EXPECT_THROW(mad(empty), std::invalid_argument);
  EXPECT_THROW(summarize(empty), std::invalid_argument);
}

}  // namespace
