#pragma once
/// A variant's speedup over its baseline within one run, with an interval, computed as
/// compare_profiles() computes each side of the speedups it compares (gpubench/compare.hpp):
/// in log space, from the records' rounds. A run interleaves baseline and variant round by round,
/// so each round's ratio of medians cancels that round's drift; the log speedup is the mean over
/// rounds, its variance their spread / R (at least either record's sample noise), plus both
/// records' between-process terms (lib/src/compare/noise_model.hpp), since a speedup claimed from
/// one run must hold in the next process too. Records of one round fall back to the ratio of
/// their centers with both records' variances. CUDA-free.
#include <optional>

#include "gpubench/compare.hpp"
#include "gpubench/record.hpp"

namespace gpubench {

/// baseline time / variant time (> 1: the variant is faster) with its two-sided interval at
/// `confidence` (normal quantile). Nothing when either record did not pass or has no positive
/// sample.
std::optional<ratio_interval> speedup_interval(const record& baseline, const record& variant, double confidence = 0.95);

/// How a speedup interval reads against a *same* band of ±threshold around 1×: faster (the whole
/// interval above 1 + threshold), slower (the whole interval below 1 / (1 + threshold)), same
/// (the whole interval inside the band), else inconclusive. compare's classify() on the time
/// ratio variant / baseline.
verdict speedup_verdict(const ratio_interval& speedup, double threshold);

}  // namespace gpubench
