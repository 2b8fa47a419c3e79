// Empirical-Bayes variance moderation; see gpubench/moderated_variance.hpp.
#include "gpubench/moderated_variance.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpubench {

namespace detail {

namespace {
constexpr double kShiftTo = 10.0;  // recurrence until x >= 10, where the series below reach ~1e-15
}  // namespace

double digamma(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("digamma: x must be positive and finite");
  double shift = 0;
  while (x < kShiftTo) {
    shift -= 1 / x;
    x += 1;
  }
  const double r = 1 / (x * x);
  return shift + std::log(x) - 0.5 / x -
         r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132)))));
}

double trigamma(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("trigamma: x must be positive and finite");
  double shift = 0;
  while (x < kShiftTo) {
    shift += 1 / (x * x);
    x += 1;
  }
  const double r = 1 / (x * x);
  return shift + 1 / x + r / 2 + r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * 5.0 / 66))));
}

double tetragamma(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("tetragamma: x must be positive and finite");
  double shift = 0;
  while (x < kShiftTo) {
    shift -= 2 / (x * x * x);
    x += 1;
  }
  const double r = 1 / (x * x);
  return shift - r - r / x - r * r * (0.5 - r * (1.0 / 6 - r * (1.0 / 6 - r * (3.0 / 10 - r * 5.0 / 6))));
}

double trigamma_inverse(double x) {
  if (!(x > 0) || !std::isfinite(x)) throw std::invalid_argument("trigamma_inverse: x must be positive and finite");
  if (x > 1e7) return 1 / std::sqrt(x);
  if (x < 1e-6) return 1 / x;
  double y = 0.5 + 1 / x;
  for (int i = 0; i < 50; ++i) {
    const double tri = trigamma(y);
    const double dif = tri * (1 - tri / x) / tetragamma(y);
    y += dif;
    if (-dif / y < 1e-8) break;
  }
  return y;
}

}  // namespace detail

variance_prior fit_variance_prior(std::span<const double> var, std::span<const double> df) {
  if (var.size() != df.size()) throw std::invalid_argument("fit_variance_prior: var and df differ in length");
  std::vector<double> v, d;
  for (std::size_t i = 0; i < var.size(); ++i)
    if (df[i] > 0 && std::isfinite(df[i]) && std::isfinite(var[i]) && var[i] >= 0) {
      v.push_back(var[i]);
      d.push_back(df[i]);
    }
  variance_prior p;
  p.used = v.size();
  if (v.size() < 2) return p;
  // Zeros would make log(0): raise them to a small fraction of the typical variance (limma).
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  double m = sorted[sorted.size() / 2];
  if (sorted.size() % 2 == 0) m = 0.5 * (m + sorted[sorted.size() / 2 - 1]);
  if (m <= 0) {
    const auto pos = std::find_if(sorted.begin(), sorted.end(), [](double x) { return x > 0; });
    if (pos == sorted.end()) return {0, std::numeric_limits<double>::infinity(), p.used};  // all exactly zero
    m = *pos;
  }
  const double n = static_cast<double>(v.size());
  double e_mean = 0, tri_mean = 0;
  std::vector<double> e(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double z = std::log(std::max(v[i], 1e-5 * m));
    e[i] = z - detail::digamma(d[i] / 2) + std::log(d[i] / 2);
    e_mean += e[i] / n;
    tri_mean += detail::trigamma(d[i] / 2) / n;
  }
  double e_var = 0;
  for (double x : e) e_var += (x - e_mean) * (x - e_mean) / (n - 1);
  e_var -= tri_mean;
  if (e_var > 0) {
    p.df0 = 2 * detail::trigamma_inverse(e_var);
    p.var0 = std::exp(e_mean + detail::digamma(p.df0 / 2) - std::log(p.df0 / 2));
  } else {
    p.df0 = std::numeric_limits<double>::infinity();
    p.var0 = std::exp(e_mean);
  }
  return p;
}

double moderate_variance(double var, double df, const variance_prior& prior) {
  if (std::isinf(prior.df0)) return prior.var0;
  if (prior.df0 <= 0) return var;
  if (!(df > 0)) return prior.var0;
  return (prior.df0 * prior.var0 + df * var) / (prior.df0 + df);
}

double moderated_df(double df, const variance_prior& prior) { return std::max(0.0, df) + std::max(0.0, prior.df0); }

double satterthwaite_df(std::span<const double> vars, std::span<const double> dfs) {
  if (vars.size() != dfs.size()) throw std::invalid_argument("satterthwaite_df: vars and dfs differ in length");
  double sum = 0, denom = 0;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    sum += vars[i];
    if (vars[i] > 0 && std::isfinite(dfs[i])) {
      if (!(dfs[i] > 0)) return 0;
      denom += vars[i] * vars[i] / dfs[i];
    }
  }
  if (denom <= 0) return std::numeric_limits<double>::infinity();
  return sum * sum / denom;
}

}  // namespace gpubench
