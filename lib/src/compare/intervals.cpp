// Statistical primitives of `compare`: normal and Student-t quantiles, and the Hodges–Lehmann
// ratio estimate with its Moses interval.
//
// Method (Hollander & Wolfe, Nonparametric Statistical Methods, 3rd ed., §4.3): timings are
// compared in log space, where a multiplicative slowdown is a location shift. The shift is
// estimated by the Hodges–Lehmann estimator (median of all m·n pairwise differences) and bounded
// by the Moses distribution-free interval (order statistics of the same differences, with ranks
// from the normal approximation to the Mann–Whitney distribution). Neither assumes normal noise,
// and both shrug off the odd preempted sample that wrecks a t-interval.
#include "compare/intervals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace gpubench {


namespace detail {

/// Standard normal quantile Phi^-1(p), p in (0, 1). Acklam's rational approximation (P. J. Acklam, "An algorithm for
/// computing the inverse normal cumulative distribution function", 2003; relative error
/// < 1.15e-9), then one Halley step on erfc, which brings it to about machine precision.
double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("gpubench::normal_quantile: p must be in (0, 1)");
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  double x = 0;
  if (p < p_low || p > 1 - p_low) {  // tails: rational function in sqrt(-2 log q)
    const double q = std::sqrt(-2 * std::log(p < p_low ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - p_low) x = -x;
  } else {  // central region: rational function in (p - 1/2)^2
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // Halley refinement (Acklam's suggestion): Phi(x) = erfc(-x/sqrt 2)/2.
  const double e = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
  const double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

/// At most `max_n` evenly spaced elements, in order (0 = keep all). Thinning rather than taking
/// the first max_n keeps drift across the run represented, and it bounds the m·n work.
std::vector<double> thin(std::span<const double> x, std::size_t max_n) {
  if (max_n == 0 || x.size() <= max_n) return {x.begin(), x.end()};
  std::vector<double> out(max_n);
  for (std::size_t i = 0; i < max_n; ++i) out[i] = x[i * x.size() / max_n];
  return out;
}

std::vector<double> logs_of(std::span<const double> x, const char* side) {
  if (x.empty()) throw std::invalid_argument(fmt::format("gpubench::ratio_of_medians_interval: {} is empty", side));
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] > 0) || !std::isfinite(x[i]))
      throw std::invalid_argument(fmt::format(
          "gpubench::ratio_of_medians_interval: {} sample {} is {}, samples must be positive", side, i, x[i]));
    out[i] = std::log(x[i]);
  }
  return out;
}

/// #{(i, j) : y[j] - x[i] < t} for ascending x and y in O(m + n): for each y[j] the differences
/// below t come from a suffix of x, and that suffix only shrinks as y[j] grows. It uses the very
/// subtraction that makes the differences, so the count is exact in floating point.
std::size_t count_below(const std::vector<double>& x, const std::vector<double>& y, double t) {
  std::size_t i = 0, c = 0;
  for (double yj : y) {
    while (i < x.size() && !(yj - x[i] < t)) ++i;
    c += x.size() - i;
  }
  return c;
}

/// Values a < b with count_below(a) <= r < count_below(b), i.e. a <= d_(r) < b, narrowed by
/// bisection on the value until at most `slack` differences lie in [a, b).
struct bracket {
  double a, b;
  std::size_t below_a, below_b;
};
bracket bracket_rank(const std::vector<double>& x, const std::vector<double>& y, std::size_t r, std::size_t slack) {
  bracket k{y.front() - x.back(), std::nextafter(y.back() - x.front(), HUGE_VAL), 0, x.size() * y.size()};
  for (int iter = 0; iter < 100 && k.below_b - k.below_a > slack; ++iter) {
    const double t = k.a + (k.b - k.a) / 2;
    if (!(t > k.a && t < k.b)) break;  // no double left between them (ties)
    const std::size_t c = count_below(x, y, t);
    (c <= r ? k.a : k.b) = t;
    (c <= r ? k.below_a : k.below_b) = c;
  }
  return k;
}

/// Hodges–Lehmann estimate and Moses interval at normal quantile z. `d` is scratch space,
/// reused across records so that 200 comparisons do not allocate (and page-fault) 2 MB each.
ratio_interval hl_moses(std::span<const double> base, std::span<const double> next, double z, std::vector<double>& d) {
  std::vector<double> lb = logs_of(base, "base"), ln = logs_of(next, "next");
  const std::size_t m = lb.size(), n = ln.size(), N = m * n;

  // Moses interval (H&W §4.3): the k-th smallest and k-th largest differences with
  //   k = floor(mn/2 - z * sqrt(mn(m+n+1)/12))   (0-based),
  // i.e. 1-based rank C = k + 1 = mn/2 + 1/2 - z*sd rounded to the nearest integer: the normal
  // approximation to the Mann–Whitney null distribution (mean mn/2, variance mn(m+n+1)/12) with
  // continuity correction. No tie correction: the untied variance is the larger, so ties err wide.
  const double md = static_cast<double>(m), nd = static_cast<double>(n), Nd = static_cast<double>(N);
  const double kd = std::floor(Nd / 2 - z * std::sqrt(md * nd * (md + nd + 1) / 12));
  // Clamped to [0, (N-1)/2] so low <= high even for an alpha near 1.
  const std::size_t k = kd <= 0 ? 0 : std::min(static_cast<std::size_t>(kd), (N - 1) / 2);

  // Every order statistic needed has rank in [k, N-1-k]. Exact pre-selection (the counting idea
  // of selection in X + Y, Johnson & Mizoguchi, SIAM J. Comput. 1978): on sorted samples, rank
  // counts cost O(m + n), so bisection finds values tl <= d_(k) and d_(N-1-k) < th; only the
  // differences in [tl, th) are kept, and ranks shift down by the count below tl. For 512 x 512
  // samples this leaves about a sixth of the 262k differences to nth_element.
  std::sort(lb.begin(), lb.end());
  std::sort(ln.begin(), ln.end());
  const std::size_t slack = N / 64 + 16;
  const bracket low_end = bracket_rank(lb, ln, k, slack), high_end = bracket_rank(lb, ln, N - 1 - k, slack);
  const double tl = low_end.a, th = high_end.b;
  d.resize(N);
  std::size_t kept = 0;
  for (double y : ln)
    for (double x : lb) {
      const double v = y - x;
      d[kept] = v;  // branch-free compaction
      kept += static_cast<std::size_t>(v >= tl && v < th);
    }
  const std::size_t shift = low_end.below_a;
  const std::size_t lo = k - shift, hi = N - 1 - k - shift, mid = N / 2 - shift;  // lo <= mid <= hi < kept
  auto it = [&d](std::size_t i) { return d.begin() + static_cast<std::ptrdiff_t>(i); };

  // Selection instead of a sort, O(kept) each: every later call works inside the part the
  // previous one left unordered, so after these d[lo], d[hi] and d[mid] hold those order
  // statistics and [lo+1, mid) holds exactly the ones between.
  std::nth_element(d.begin(), it(lo), it(kept));
  if (hi > lo) std::nth_element(it(lo + 1), it(hi), it(kept));
  if (mid > lo && mid < hi) std::nth_element(it(lo + 1), it(mid), it(hi));
  double center = d[mid];
  if (N % 2 == 0) {  // the median of an even count averages the two middle differences
    const double lower = mid - 1 == lo ? d[lo] : *std::max_element(it(lo + 1), it(mid));
    center = lower + 0.5 * (center - lower);
  }
  return {std::exp(center), std::exp(d[lo]), std::exp(d[hi])};
}

double z_for(double alpha) { return detail::normal_quantile(1 - alpha / 2); }

// P(|T| <= t) for Student's t with integer nu, in closed form (Abramowitz & Stegun 26.7.3-4):
// with theta = atan(t / sqrt(nu)), odd nu: (2/pi)[theta + sin cos (1 + 2/3 cos^2 + 2·4/(3·5) cos^4 ...)],
// even nu: sin (1 + 1/2 cos^2 + 1·3/(2·4) cos^4 ...), nu-2 powers of cos in all.
double t_two_sided_cdf(double t, int nu) {
  const double th = std::atan(t / std::sqrt(static_cast<double>(nu)));
  const double s = std::sin(th), c = std::cos(th), c2 = c * c;
  double sum = 1, term = 1;
  if (nu % 2 == 1) {
    if (nu == 1) return 2 * th / std::numbers::pi;
    for (int k = 1; k <= (nu - 3) / 2; ++k) sum += term *= c2 * (2.0 * k) / (2.0 * k + 1);
    return 2 / std::numbers::pi * (th + s * c * sum);
  }
  for (int k = 1; k <= (nu - 2) / 2; ++k) sum += term *= c2 * (2.0 * k - 1) / (2.0 * k);
  return s * sum;
}

double t_quantile_two_sided(double alpha, int nu) {
  if (!(alpha > 0 && alpha < 1) || nu < 1) throw std::invalid_argument("t_quantile_two_sided: alpha in (0,1), nu >= 1");
  // Bisection in log t: the cdf is monotone; 200 halvings of [1e-9, 1e12] are far below double eps.
  double lo = std::log(1e-9), hi = std::log(1e12);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (t_two_sided_cdf(std::exp(mid), nu) < 1 - alpha ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

}  // namespace detail

ratio_interval ratio_of_medians_interval(std::span<const double> base, std::span<const double> next, double alpha) {
  if (!(alpha > 0 && alpha < 1))
    throw std::invalid_argument("gpubench::ratio_of_medians_interval: alpha must be in (0, 1)");
  std::vector<double> scratch;
  return detail::hl_moses(base, next, detail::z_for(alpha), scratch);
}

}  // namespace gpubench
