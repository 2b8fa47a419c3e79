#pragma once
// Internal: the statistical primitives behind compare_profiles (lib/src/compare/intervals.cpp).

namespace gpubench::detail {

/// Standard normal quantile Phi^-1(p), p in (0, 1).
double normal_quantile(double p);
/// The two-sided normal quantile for `alpha`: Phi^-1(1 - alpha/2).
double z_for(double alpha);

}  // namespace gpubench::detail
