#pragma once
// Internal: the statistical primitives behind compare_profiles (lib/src/compare/intervals.cpp).
#include <cstddef>
#include <span>
#include <vector>

#include "gpubench/compare.hpp"

namespace gpubench::detail {

/// Standard normal quantile Phi^-1(p), p in (0, 1).
double normal_quantile(double p);
/// The two-sided normal quantile for `alpha`: Phi^-1(1 - alpha/2).
double z_for(double alpha);
/// At most `max_n` evenly spaced elements of x, in order (0 = keep all).
std::vector<double> thin(std::span<const double> x, std::size_t max_n);
/// Hodges–Lehmann ratio next/base with its Moses interval at normal quantile z; `scratch` is
/// reused between calls so that many records do not each allocate.
ratio_interval hl_moses(std::span<const double> base, std::span<const double> next, double z,
                        std::vector<double>& scratch);

}  // namespace gpubench::detail
