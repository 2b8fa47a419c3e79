#pragma once
/// Where a series of measurements changed level: E-Divisive means (Matteson & James, "A
/// Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data", JASA 2014), as
/// MongoDB runs it on its CI's performance history (Daly et al., "The Use of Change Point Detection
/// to Identify Software Performance Regressions in a Continuous Integration System", ICPE 2020)
/// and Apache Otava (formerly DataStax Hunter) does. Pure functions; CUDA-free.
///
/// The series is split by bisection: within a segment, the split that maximises the energy
/// statistic Q (the divergence of the two sides' distributions, |x - y| distances, weighted by
/// the sides' sizes) is a candidate, kept when a permutation test finds it significant (the
/// segment's values shuffled, Q's maximum recomputed: p = (1 + #{Q_perm >= Q}) / (1 + R)); each
/// kept split's two sides are searched again, the most significant first, until none is. Values
/// are compared as logarithms, so a shift is relative: +6% is the same shift at 1 µs and at 1 s.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpubench {

struct change_point_options {
  /// A split is kept when its permutation p-value is at most this. 0.001: a flat series of any
  /// length yields a false change with probability 0.001 per segment searched.
  double alpha = 0.001;
  int permutations = 999;       ///< R; p can reach alpha only when (1 + R) * alpha >= 1
  std::size_t min_segment = 3;  ///< points on each side of a split, at least
  double confidence = 0.95;     ///< of the interval on each shift
  std::uint64_t seed = 0x5eed;  ///< the permutations' seed: the same series gives the same answer
};

struct change_point {
  std::size_t index = 0;         ///< the first point of the new level
  double p_value = 1;            ///< of the permutation test that kept it
  double q = 0;                  ///< its energy statistic
  double before = 0, after = 0;  ///< the geometric means of the segments on either side
  /// after / before, and its interval: Welch's t on the two segments' logarithms.
  double ratio = 1, ratio_low = 1, ratio_high = 1;
};

/// The change points of `values` (all positive, in time order), by index ascending. Fewer than
/// 2 * min_segment values give none. Throws std::invalid_argument for a value that is not a
/// positive finite number or options that cannot reach alpha.
std::vector<change_point> e_divisive_means(std::span<const double> values, const change_point_options& options = {});

}  // namespace gpubench
