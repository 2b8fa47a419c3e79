#pragma once
/// Empirical-Bayes moderation of many variance estimates at once (Smyth, "Linear Models and
/// Empirical Bayes Methods for Assessing Differential Expression in Microarray Experiments",
/// Statistical Applications in Genetics and Molecular Biology 3(1), 2004; the method of limma's
/// squeezeVar). Each record's between-process variance is estimated from a handful of processes or
/// earlier runs, so on its own it has one to four degrees of freedom and a Student-t quantile that
/// makes every interval useless. Assuming the true variances of a chapter's records are drawn from
/// a scaled inverse chi-square prior (s0^2, d0), the prior is estimated from all of them and each
/// record's estimate is shrunk toward it; the moderated estimate has d0 + d degrees of freedom.
/// Pure functions, no CUDA.
#include <limits>
#include <span>
#include <vector>

namespace gpubench {

/// The prior fitted over a set of variance estimates: the scale s0^2 and the prior degrees of
/// freedom d0 (+infinity when the estimates scatter no more than their own degrees of freedom
/// explain: every record then gets s0^2).
struct variance_prior {
  double var0 = 0;
  double df0 = 0;
  /// How many estimates the fit used (those with positive degrees of freedom).
  std::size_t used = 0;
};

/// Fits the prior by the method of moments on log variances (Smyth 2004, section 6.2). `var[i]`
/// has `df[i]` degrees of freedom; entries with df <= 0 are ignored. Variances of exactly zero
/// (identical process means, quantized timers) are raised to 1e-5 times the median positive one,
/// as limma does, so their logs stay finite. With fewer than two usable estimates the prior is
/// {0, 0, used}: nothing to shrink toward.
variance_prior fit_variance_prior(std::span<const double> var, std::span<const double> df);

/// The moderated variance (d0 s0^2 + d s^2) / (d0 + d); s0^2 alone when d0 is infinite, s^2 alone
/// when d0 is 0.
double moderate_variance(double var, double df, const variance_prior& prior);
/// Its degrees of freedom, d0 + d (infinite with an infinite d0).
double moderated_df(double df, const variance_prior& prior);

/// Welch–Satterthwaite degrees of freedom of a sum of independent variance terms, each with its
/// own degrees of freedom (infinite for a term taken as known): (sum v)^2 / sum(v^2 / df).
double satterthwaite_df(std::span<const double> vars, std::span<const double> dfs);

namespace detail {
/// The digamma function psi(x) = d/dx ln Gamma(x), x > 0: the recurrence psi(x) = psi(x+1) - 1/x
/// up to x >= 10, then the asymptotic series (Abramowitz & Stegun 6.3.18).
double digamma(double x);
/// The trigamma function psi'(x), x > 0 (A&S 6.4.12 with the recurrence psi'(x) = psi'(x+1) + 1/x^2).
double trigamma(double x);
/// The tetragamma function psi''(x), x > 0 (A&S 6.4.13, recurrence psi''(x) = psi''(x+1) - 2/x^3).
double tetragamma(double x);
/// The y with trigamma(y) = x, x > 0, by Newton's method on 1/trigamma (Smyth 2004, appendix;
/// limma's trigammaInverse).
double trigamma_inverse(double x);
}  // namespace detail

}  // namespace gpubench
