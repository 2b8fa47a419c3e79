/// Summary statistics over timing samples; see gpubench/stats.hpp.
#include "gpubench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace gpubench {
namespace {

void require_non_empty(std::span<const double> data, const char* fn) {
  if (data.empty()) {
    throw std::invalid_argument(std::string("gpubench::") + fn + ": requires non-empty input");
  }
}

double mean_of(std::span<const double> data) {
  double sum = 0;
  for (double x : data) sum += x;
  return sum / static_cast<double>(data.size());
}

/// Sample standard deviation (n-1 denominator), 0 for fewer than two samples. Two-pass (deviations
/// from the mean) rather than sum-of-squares, which cancels catastrophically for timings whose
/// spread is tiny next to their magnitude.
double sample_stdev(std::span<const double> data, double mean) {
  if (data.size() < 2) return 0;
  double ss = 0;
  for (double x : data) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(data.size() - 1));
}

/// Median of data that may be reordered in place (nth_element, O(n)). Same interpolation as
/// quantile_sorted(p = 0.5), so median() and summarize() agree to the last bit.
double median_in_place(std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  // Even n: the lower middle is the largest element of the left partition.
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return lo + 0.5 * (hi - lo);
}

/// MAD about a known median (unscaled).
double mad_about(std::span<const double> data, double med) {
  std::vector<double> dev(data.size());
  std::transform(data.begin(), data.end(), dev.begin(), [med](double x) { return std::abs(x - med); });
  return median_in_place(dev);
}

/// Core of median_rel_noise(), shared with summarize() so that the data are sorted only once.
double rel_noise_from(std::size_t n, double med, double mad_value, double stdev) {
  if (n < 3 || med == 0) return std::numeric_limits<double>::infinity();
  // The scaled MAD ignores up to half the samples as outliers. It is 0 when over half the samples
  // are identical (quantized timers); the stdev then still reports real spread (and 0 for none).
  const double sigma = mad_value > 0 ? kMadToSigma * mad_value : stdev;
  // Asymptotic standard error of the sample median under normal noise: sqrt(pi/2)*sigma/sqrt(n)
  // (Kendall & Stuart), relative to the median's magnitude.
  const double se = std::sqrt(std::numbers::pi / 2) * sigma / std::sqrt(static_cast<double>(n));
  return se / std::abs(med);
}

}  // namespace

double quantile_sorted(std::span<const double> sorted, double p) {
  require_non_empty(sorted, "quantile_sorted");
  if (!(p >= 0.0 && p <= 1.0)) {  // also rejects NaN
    throw std::invalid_argument("gpubench::quantile_sorted: p must be in [0, 1], got " +
                                std::to_string(p));
  }
  // Hyndman & Fan (1996) type 7: h = (n-1)p, interpolate linearly between x[floor(h)] and the
  // next order statistic. Default of R's quantile() and NumPy's np.quantile.
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();  // p == 1, or a single element
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

double median(std::span<const double> data) {
  require_non_empty(data, "median");
  std::vector<double> v(data.begin(), data.end());
  return median_in_place(v);
}

double mad(std::span<const double> data) {
  require_non_empty(data, "mad");
  return mad_about(data, median(data));
}

double median_rel_noise(std::span<const double> data) {
  if (data.size() < 3) return std::numeric_limits<double>::infinity();
  const double med = median(data);
  const double mad_value = mad_about(data, med);
  // Only pay for the stdev when the MAD fallback actually needs it.
  const double stdev = mad_value > 0 ? 0.0 : sample_stdev(data, mean_of(data));
  return rel_noise_from(data.size(), med, mad_value, stdev);
}

summary summarize(std::span<const double> data) {
  require_non_empty(data, "summarize");
  std::vector<double> sorted(data.begin(), data.end());
  std::sort(sorted.begin(), sorted.end());
  summary s;
  s.count = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = mean_of(sorted);
  s.stdev = sample_stdev(sorted, s.mean);
  s.median = quantile_sorted(sorted, 0.5);
  s.q1 = quantile_sorted(sorted, 0.25);
  s.q3 = quantile_sorted(sorted, 0.75);
  s.p95 = quantile_sorted(sorted, 0.95);
  s.p99 = quantile_sorted(sorted, 0.99);
  s.mad = mad_about(sorted, s.median);
  s.rel_noise = rel_noise_from(s.count, s.median, s.mad, s.stdev);
  return s;
}

}  // namespace gpubench
