// Empirical-Bayes variance moderation (gpubench/moderated_variance.hpp). Reference values from
// SciPy 1.17 and mpmath (scipy.special.digamma, polygamma; mpmath.polygamma) and a line-by-line replica of limma's
// fitFDist in NumPy with scipy.optimize.brentq for the trigamma inverse.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gpubench/moderated_variance.hpp"

namespace {

using gpubench::fit_variance_prior;
using gpubench::moderate_variance;
using gpubench::moderated_df;
using gpubench::satterthwaite_df;
namespace d = gpubench::detail;

TEST(polygamma, digamma_matches_reference_values) {
  EXPECT_NEAR(d::digamma(0.5), -1.9635100260214235, 1e-12);
  EXPECT_NEAR(d::digamma(1.0), -0.5772156649015329, 1e-12);  // -Euler's gamma
  EXPECT_NEAR(d::digamma(2.5), 0.7031566406452432, 1e-12);
  EXPECT_NEAR(d::digamma(6.0), 1.7061176684318005, 1e-12);
  EXPECT_NEAR(d::digamma(37.3), 3.6055286087651184, 1e-12);
}

TEST(polygamma, trigamma_and_tetragamma_match_reference_values) {
  EXPECT_NEAR(d::trigamma(0.5), 4.934802200544679, 1e-11);   // pi^2 / 2
  EXPECT_NEAR(d::trigamma(1.0), 1.6449340668482264, 1e-11);  // pi^2 / 6
  EXPECT_NEAR(d::trigamma(10.0), 0.10516633568168575, 1e-12);
  EXPECT_NEAR(d::tetragamma(1.0), -2.4041138063191885, 1e-10);  // -2 zeta(3)
  EXPECT_NEAR(d::tetragamma(2.5), -0.2362040516417274, 1e-10);
  EXPECT_NEAR(d::tetragamma(37.3), -7.38285292167984e-4, 1e-12);
}

TEST(polygamma, trigamma_inverse_inverts_trigamma) {
  EXPECT_NEAR(d::trigamma_inverse(0.1), 10.491681821078421, 1e-6);
  EXPECT_NEAR(d::trigamma_inverse(1.0), 1.4262551202150788, 1e-7);
  EXPECT_NEAR(d::trigamma_inverse(20.0), 0.23077632915242632, 1e-7);
  for (double y : {0.05, 0.3, 2.0, 50.0}) EXPECT_NEAR(d::trigamma_inverse(d::trigamma(y)), y, 1e-6 * y);
}

TEST(polygamma, refuses_what_it_is_not_defined_for) {
  EXPECT_THROW(d::digamma(0.0), std::invalid_argument);
  EXPECT_THROW(d::trigamma(-1.0), std::invalid_argument);
  EXPECT_THROW(d::trigamma_inverse(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(variance_prior, fits_a_finite_prior_when_variances_scatter_more_than_their_df_explain) {
  const std::vector<double> var{1e-6, 1e-2, 4e-5, 3e-3, 2e-4, 7e-6}, df(6, 4.0);
  const auto p = fit_variance_prior(var, df);
  EXPECT_EQ(p.used, 6u);
  EXPECT_NEAR(p.var0, 1.5090468998040602e-05, 1e-9);
  EXPECT_NEAR(p.df0, 0.611596301282216, 1e-6);
}

TEST(variance_prior, zeros_are_raised_as_limma_does) {
  const std::vector<double> var{0, 1e-4, 2e-4, 0, 5e-2}, df{1, 1, 2, 1, 1};
  const auto p = fit_variance_prior(var, df);
  EXPECT_NEAR(p.var0, 3.534037490951735e-08, 1e-12);
  EXPECT_NEAR(p.df0, 0.2669090459338147, 1e-6);
}

TEST(variance_prior, alike_variances_give_an_infinite_prior_and_every_record_its_scale) {
  const std::vector<double> var{1e-4, 1.1e-4, 0.9e-4, 1.05e-4}, df(4, 3.0);
  const auto p = fit_variance_prior(var, df);
  EXPECT_TRUE(std::isinf(p.df0));
  EXPECT_NEAR(p.var0, 1.4603265735315725e-04, 1e-9);
  EXPECT_DOUBLE_EQ(moderate_variance(5e-3, 3, p), p.var0);
  EXPECT_TRUE(std::isinf(moderated_df(3, p)));
}

TEST(variance_prior, too_few_estimates_give_no_prior) {
  const std::vector<double> var{1e-4, 0.5}, df{0, 3};  // df 0 is not an estimate
  const auto p = fit_variance_prior(var, df);
  EXPECT_EQ(p.used, 1u);
  EXPECT_EQ(p.df0, 0);
  EXPECT_DOUBLE_EQ(moderate_variance(0.5, 3, p), 0.5);  // nothing to shrink toward
}

TEST(variance_prior, moderation_is_the_df_weighted_mean) {
  const gpubench::variance_prior p{0.01, 6, 10};
  EXPECT_DOUBLE_EQ(moderate_variance(0.04, 2, p), (6 * 0.01 + 2 * 0.04) / 8);
  EXPECT_DOUBLE_EQ(moderated_df(2, p), 8);
  EXPECT_DOUBLE_EQ(moderate_variance(0.04, 0, p), 0.01);  // no data: the prior
}

TEST(satterthwaite, known_terms_add_no_uncertainty) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> v1{1.0, 1.0}, df1{4, 4};
  EXPECT_DOUBLE_EQ(satterthwaite_df(v1, df1), 8);  // two equal terms: their df add
  const std::vector<double> v2{1.0, 3.0}, df2{5, inf};
  EXPECT_DOUBLE_EQ(satterthwaite_df(v2, df2), 16.0 * 5);  // (1+3)^2 / (1/5)
  const std::vector<double> v3{0.0, 2.0}, df3{1, inf};
  EXPECT_TRUE(std::isinf(satterthwaite_df(v3, df3)));
}

}  // namespace
