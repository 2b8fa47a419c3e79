#pragma once
// What each pair's variants gained over its baseline, size by size, with intervals: the numbers
// behind the report's summary, its speedup charts and the tables' speedup column. CUDA-free.
#include <optional>
#include <string>
#include <vector>

#include "gpubench/compare.hpp"
#include "gpubench/record.hpp"

namespace gpubench::detail {

/// One variant at one size.
struct variant_speedup {
  const record* rec = nullptr;
  /// baseline time / this time with its interval (gpubench/speedup_interval.hpp); nothing for the
  /// baseline itself and for a record that was not timed.
  std::optional<ratio_interval> speedup;
  verdict band = verdict::inconclusive;  ///< the interval against the *same* band (speedup_verdict)
};

/// One size of a pair: its first record is the baseline (docs/profile-schema.md).
struct size_speedups {
  std::string size;   ///< the full size, "batch=40,m=8192,n=256,k=256"
  std::string label;  ///< only the axes that vary within the pair, "m=8192" ("" when none varies)
  const record* baseline = nullptr;
  std::vector<variant_speedup> variants;  ///< every record of the size, the baseline first, in profile order
  const record* fastest = nullptr;        ///< the passed record with the smallest median (null when none)
  [[nodiscard]] const variant_speedup* find(const record* r) const;
};

struct pair_speedups {
  std::vector<size_speedups> sizes;   ///< in profile order
  std::vector<std::string> variants;  ///< the pair's variants in order of first appearance
  /// The size the pair's headline speaks for: its last one with a timed baseline and a timed
  /// variant (sizes are declared smallest first, and the largest is the one the optimization is for).
  std::optional<std::size_t> headline;  ///< index into sizes
};

/// `records`: one pair's records in profile order. `confidence` for each interval, `threshold`
/// the half-width of the *same* band (relative).
pair_speedups speedups_of(const std::vector<const record*>& records, double confidence, double threshold);

/// The size axes that vary within `records`, per distinct size in order of first appearance:
/// "m=8192" says more than "batch=40,m=8192,n=256,k=256"; "" when no axis varies. `sizes` gets
/// the full sizes in the same order.
std::vector<std::string> varying_size_labels(const std::vector<const record*>& records,
                                             std::vector<std::string>& sizes);

}  // namespace gpubench::detail
