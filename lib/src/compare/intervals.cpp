// Statistical primitives of `compare`: normal and Student-t quantiles.
#include "compare/intervals.hpp"
#include "gpubench/compare.hpp"  // t_quantile_two_sided

#include <cmath>
#include <numbers>
#include <stdexcept>

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

}  // namespace gpubench
