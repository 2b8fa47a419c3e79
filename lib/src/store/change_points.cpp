// E-Divisive means (gpubench/change_points.hpp): bisection on the energy statistic with a
// permutation test, as in Matteson & James (JASA 2014) and Daly et al. (ICPE 2020).
#include "gpubench/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "gpubench/compare.hpp"  // detail::t_quantile_two_sided

namespace gpubench {

namespace {

/// Counts and sums of the values inserted so far, by rank (a Fenwick tree): the distances from one
/// point to every earlier one in O(log n), so that a segment's statistic at every split costs
/// O(n log n) rather than O(n²).
class rank_sums {
 public:
  explicit rank_sums(std::size_t ranks) : count_(ranks + 1, 0), sum_(ranks + 1, 0.0) {}
  void clear() {
    std::fill(count_.begin(), count_.end(), 0);
    std::fill(sum_.begin(), sum_.end(), 0.0);
  }
  void add(std::size_t rank, double value) {
    for (std::size_t i = rank + 1; i < count_.size(); i += i & (~i + 1)) {
      ++count_[i];
      sum_[i] += value;
    }
  }
  /// Count and sum of the values of rank < `rank`.
  [[nodiscard]] std::pair<std::size_t, double> below(std::size_t rank) const {
    std::size_t c = 0;
    double s = 0;
    for (std::size_t i = rank; i > 0; i -= i & (~i + 1)) {
      c += count_[i];
      s += sum_[i];
    }
    return {c, s};
  }

 private:
  std::vector<std::size_t> count_;
  std::vector<double> sum_;
};

struct point {
  double value;      ///< log of the measurement
  std::size_t rank;  ///< of value among the segment's distinct values
};

struct split {
  std::size_t at = 0;  ///< index within the segment of the first point of the right side
  double q = -1;       ///< energy statistic; -1: no split allowed
};

class energy_scan {
 public:
  explicit energy_scan(std::size_t ranks) : sums_(ranks) {}

  /// The split of `seg` with the largest Q, both sides at least `min_segment` long.
  split best(const std::vector<point>& seg, std::size_t min_segment) {
    const std::size_t n = seg.size();
    split out;
    if (n < 2 * min_segment) return out;
    before_.assign(n, 0);
    after_.assign(n, 0);
    distances_to_earlier(seg, before_, false);
    distances_to_earlier(seg, after_, true);
    const double total = std::accumulate(before_.begin(), before_.end(), 0.0);
    double within_left = 0, within_right = total;
    for (std::size_t tau = 1; tau < n; ++tau) {
      within_left += before_[tau - 1];
      within_right -= after_[tau - 1];
      const double m = static_cast<double>(tau), k = static_cast<double>(n - tau);
      if (tau < min_segment || n - tau < min_segment) continue;
      const double between = total - within_left - within_right;
      const double e = 2 * between / (m * k) - 2 * within_left / (m * (m - 1)) - 2 * within_right / (k * (k - 1));
      const double q = m * k / (m + k) * e;
      if (q > out.q) out = {tau, q};
    }
    return out;
  }

 private:
  /// out[p] = sum over the points before p (after p when `reverse`) of |x_i - x_p|.
  void distances_to_earlier(const std::vector<point>& seg, std::vector<double>& out, bool reverse) {
    sums_.clear();
    const std::size_t n = seg.size();
    double seen_sum = 0;
    for (std::size_t step = 0; step < n; ++step) {
      const std::size_t p = reverse ? n - 1 - step : step;
      const auto [less_count, less_sum] = sums_.below(seg[p].rank);
      const auto [upto_count, upto_sum] = sums_.below(seg[p].rank + 1);
      const double greater_count = static_cast<double>(step - upto_count), greater_sum = seen_sum - upto_sum;
      const double x = seg[p].value;
      out[p] = x * static_cast<double>(less_count) - less_sum + greater_sum - x * greater_count;
      sums_.add(seg[p].rank, x);
      seen_sum += x;
    }
  }

  rank_sums sums_;
  std::vector<double> before_, after_;
};

struct candidate {
  std::size_t begin = 0, end = 0;  ///< the segment [begin, end) of the series
  split best;
};

/// The permutation p-value of `c`: its segment's values shuffled R times; stops as soon as the
/// p-value can no longer reach alpha (a flat segment costs a few shuffles, a real change all R).
double permutation_p(const std::vector<point>& series, const candidate& c, const change_point_options& o,
                     energy_scan& scan) {
  std::vector<point> seg(series.begin() + static_cast<std::ptrdiff_t>(c.begin),
                         series.begin() + static_cast<std::ptrdiff_t>(c.end));
  std::mt19937_64 rng(o.seed ^ (0x9e3779b97f4a7c15ULL * (c.begin + 1)) ^ c.end);
  const double limit = o.alpha * (o.permutations + 1);  // p <= alpha  <=>  1 + exceed <= limit
  int exceed = 0;
  for (int r = 0; r < o.permutations; ++r) {
    std::shuffle(seg.begin(), seg.end(), rng);
    if (scan.best(seg, o.min_segment).q >= c.best.q) ++exceed;
    if (1.0 + exceed > limit + 1e-9) return (1.0 + exceed) / (o.permutations + 1);
  }
  return (1.0 + exceed) / (o.permutations + 1);
}

/// Shift from [a, b) to [b, c) of the logs: the ratio of geometric means and Welch's interval.
void measure_shift(const std::vector<point>& s, std::size_t a, std::size_t b, std::size_t c, double confidence,
                   change_point& cp) {
  const auto moments = [&](std::size_t from, std::size_t to) {
    double mean = 0;
    for (std::size_t i = from; i < to; ++i) mean += s[i].value;
    mean /= static_cast<double>(to - from);
    double ss = 0;
    for (std::size_t i = from; i < to; ++i) ss += (s[i].value - mean) * (s[i].value - mean);
    return std::pair{mean, ss / static_cast<double>(to - from - 1)};
  };
  const auto [m1, v1] = moments(a, b);
  const auto [m2, v2] = moments(b, c);
  const double n1 = static_cast<double>(b - a), n2 = static_cast<double>(c - b);
  const double se2 = v1 / n1 + v2 / n2;
  cp.before = std::exp(m1);
  cp.after = std::exp(m2);
  cp.ratio = std::exp(m2 - m1);
  if (!(se2 > 0)) {
    cp.ratio_low = cp.ratio_high = cp.ratio;
    return;
  }
  // Welch–Satterthwaite degrees of freedom.
  const double df = se2 * se2 / ((v1 / n1) * (v1 / n1) / (n1 - 1) + (v2 / n2) * (v2 / n2) / (n2 - 1));
  const int nu = std::max(1, static_cast<int>(std::floor(df)));
  const double half = detail::t_quantile_two_sided(1 - confidence, nu) * std::sqrt(se2);
  cp.ratio_low = std::exp(m2 - m1 - half);
  cp.ratio_high = std::exp(m2 - m1 + half);
}

}  // namespace

std::vector<change_point> e_divisive_means(std::span<const double> values, const change_point_options& o) {
  if (o.min_segment < 2) throw std::invalid_argument("e_divisive_means: min_segment must be at least 2");
  if (!(o.alpha > 0 && o.alpha < 1) || o.permutations < 1 || o.alpha * (o.permutations + 1) < 1)
    throw std::invalid_argument("e_divisive_means: alpha cannot be reached with this many permutations");
  if (!(o.confidence > 0 && o.confidence < 1)) throw std::invalid_argument("e_divisive_means: confidence in (0, 1)");
  std::vector<point> series(values.size());
  std::vector<double> sorted;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!(values[i] > 0) || !std::isfinite(values[i]))
      throw std::invalid_argument("e_divisive_means: every value must be a positive finite number");
    series[i].value = std::log(values[i]);
    sorted.push_back(series[i].value);
  }
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (auto& p : series)
    p.rank = static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), p.value) - sorted.begin());

  energy_scan scan(sorted.size());
  const auto candidate_of = [&](std::size_t begin, std::size_t end) {
    const std::vector<point> seg(series.begin() + static_cast<std::ptrdiff_t>(begin),
                                 series.begin() + static_cast<std::ptrdiff_t>(end));
    return candidate{begin, end, scan.best(seg, o.min_segment)};
  };
  std::vector<candidate> segments = {candidate_of(0, series.size())};
  std::vector<change_point> found;
  for (;;) {
    // The segment whose best split has the largest Q is tested next; the first split that is
    // not significant ends the search (Matteson & James, section 3.2).
    auto next = std::max_element(segments.begin(), segments.end(),
                                 [](const candidate& a, const candidate& b) { return a.best.q < b.best.q; });
    if (next == segments.end() || next->best.q < 0) break;
    const double p = permutation_p(series, *next, o, scan);
    if (p > o.alpha) break;
    const candidate c = *next;
    segments.erase(next);
    const std::size_t at = c.begin + c.best.at;
    change_point cp;
    cp.index = at;
    cp.p_value = p;
    cp.q = c.best.q;
    found.push_back(cp);
    segments.push_back(candidate_of(c.begin, at));
    segments.push_back(candidate_of(at, c.end));
  }
  std::sort(found.begin(), found.end(), [](const change_point& a, const change_point& b) { return a.index < b.index; });
  for (std::size_t k = 0; k < found.size(); ++k) {
    const std::size_t a = k == 0 ? 0 : found[k - 1].index;
    const std::size_t c = k + 1 == found.size() ? series.size() : found[k + 1].index;
    measure_shift(series, a, found[k].index, c, o.confidence, found[k]);
  }
  return found;
}

}  // namespace gpubench
