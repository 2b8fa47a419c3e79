#pragma once
// Derived fields of a profile read from a file: recomputed, never trusted (docs/profile-schema.md,
// "Derived fields"). CUDA-free.
#include <string>

#include "gpubench/profile.hpp"

namespace gpubench::detail {

/// Relative difference a stored derived value may have from the recomputed one: room for another
/// writer's rounding, none for an edit.
inline constexpr double kDerivedRelTolerance = 1e-6;

/// Recomputes each record's throughput (bytes_per_s, flops_per_s, s_per_item), floor (time_s,
/// bound, fraction, suspect) and speedup_vs_baseline from its summary, its work model, the
/// profile's ceilings and its size's baseline (the first record of its chapter, pair and size, as
/// the runner writes them); a tuning pair's ranks from its size's medians; and the derived
/// hardware metrics from the raw counter values. A stored value that differs from the recomputed
/// one by more than kDerivedRelTolerance (relative), or is present where none follows (or missing
/// where one does), is refused with usage_error naming `source`, the JSON path and both values.
/// On success every record holds the recomputed values.
void recheck_derived(profile& p, const std::string& source);

}  // namespace gpubench::detail
