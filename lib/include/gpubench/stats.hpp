#pragma once
/// Summary statistics over timing samples. Pure functions over spans of doubles; no CUDA.
#include <cstddef>
#include <span>
#include <vector>

namespace gpubench {

struct summary {
  std::size_t count = 0;
  double min = 0, max = 0;
  double mean = 0;
  double stdev = 0;      ///< sample standard deviation (n-1); 0 for fewer than two samples
  double median = 0;
  double q1 = 0, q3 = 0; ///< 25th and 75th percentiles
  double p95 = 0, p99 = 0;
  double mad = 0;        ///< median absolute deviation (unscaled)
  double rel_noise = 0;  ///< relative standard error of the median, see median_rel_noise()
};

/// Quantile p in [0,1] of already-sorted data, linear interpolation between closest ranks
/// (Hyndman & Fan 1996 type 7, the default of R and NumPy). Requires non-empty input and p in
/// [0,1]; throws std::invalid_argument otherwise (NaN p included).
double quantile_sorted(std::span<const double> sorted, double p);
/// Median of unsorted data (copies). Requires non-empty input.
double median(std::span<const double> data);
/// Median absolute deviation from the median (unscaled; multiply by kMadToSigma to estimate
/// sigma under normal noise). Requires non-empty input.
double mad(std::span<const double> data);
/// 1 / Phi^-1(3/4): makes the MAD a consistent estimator of sigma for normal noise while ignoring
/// up to half the data as outliers.
inline constexpr double kMadToSigma = 1.4826;

/// Relative standard error of the sample median: sqrt(pi/2) * sigma / sqrt(n) / median, the
/// asymptotic standard error of the median under normal noise (Kendall & Stuart), with sigma
/// estimated robustly as 1.4826 * MAD so that a few outliers (a preempted sample) do not keep
/// the stopping rule sampling forever. When the MAD is 0 (over half the samples identical, common
/// with quantized timers) sigma falls back to the sample standard deviation, so identical samples
/// give 0 and genuinely spread data never does. Divides by |median|. Returns +inf for fewer than 3
/// samples (empty input included) or a zero median.
double median_rel_noise(std::span<const double> data);

/// All of the above at once. Requires non-empty input.
summary summarize(std::span<const double> data);

}  // namespace gpubench
