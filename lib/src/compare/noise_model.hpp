#pragma once
// Internal: compare's noise model, the levels at which a record's time varies (Kalibera & Jones,
// "Rigorous Benchmarking in Reasonable Time", ISMM 2013): samples within a round, rounds within a
// run (fresh buffers; gpubench/sampling.hpp), and runs in separate processes (placement, clocks,
// power and temperature, the host). The first two are measured in every profile; the third cannot
// be seen from one run, so it comes from a model fitted on multi-process runs of identical code
// (docs/measurement.md, "The process floors").
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "gpubench/record.hpp"

namespace gpubench::detail {

/// One side of a comparison, in log seconds. Rounds may come from several processes
/// (round_info::process: `run --processes`, `run --confirm`); each process's rounds are a group.
struct side_estimate {
  /// The mean over processes of each process's mean log round median (with one process, the mean
  /// of the log round medians; the log median when one round).
  double center = 0;
  /// The center's variance from inside the run. One process: between-round spread / R, at least
  /// the samples' noise. Several: the spread of the process means / P (which holds their rounds'
  /// spread too), at least the samples' noise / P.
  double var_center = 0;
  double round_sd = 0;  ///< sd of the log round medians about their process's mean (0 with one round a process)
  std::size_t rounds = 1;
  std::vector<double> round_logs;  ///< the log round medians, in round order
  std::vector<int> round_process;  ///< the process of each round (round_info::process)
  std::vector<int> round_cycle;    ///< the ab cycle of each round (round_info::cycle; -1 outside ab)
  double noise_var = 0;            ///< the samples' own noise (relative SE of the median), squared
  std::size_t processes = 1;       ///< distinct processes among the rounds
  /// Variance of the process means about the center, with processes - 1 degrees of freedom: the
  /// record's own measure of the between-process level (0 with one process).
  double process_var = 0;
};

/// The sd of the per-round log differences new − base, pairing round i with round i, when both
/// sides have the same number of rounds (at least two); nullopt otherwise. Round i of either run
/// sits at the same place in its size's schedule (after the same setup, verification or rebuild,
/// and warm-up), and a record's rounds can differ systematically by that place: on an NVIDIA H200,
/// round 0 of a 4096x4096x16384 BF16 GEMM ran 9-11% faster than rounds 1 and 2 in all four processes
/// of a set. Unpaired, that shared pattern counts as noise on both sides; paired, it cancels
/// (docs/measurement.md, "Compare: the noise model", paired rounds).
std::optional<double> paired_round_sd(const side_estimate& base, const side_estimate& next);

/// Reduces a timed record to its side estimate; `samples` are its samples_s, `rounds` its round
/// sizes (empty: one round). Requires at least one positive sample.
side_estimate estimate_side(std::span<const double> samples, std::span<const round_info> rounds);

/// The between-process standard deviation (log units) assumed for a record that one run cannot
/// show: sd = max(floor, round_factor x its between-round sd), with both constants per class of
/// record, and for device-timed records at least floor_device_abs_s over the record's time.
/// Fitted on multi-process runs (scripts/analysis/fit-noise-model.py), see fitted().
struct process_noise_model {
  double floor_device = 0, round_factor_device = 0;  ///< device-timed records (events or GPU busy time)
  /// An absolute floor (seconds) for device-timed records: CUDA events tick every 32 ns, and a
  /// record's figure is a span less the empty span, both read in whole ticks, so a few-microsecond
  /// record can move by a tick or two between processes with nothing changed.
  double floor_device_abs_s = 0;
  double floor_host = 0, round_factor_host = 0;      ///< host-timed records
  double floor_peer = 0, round_factor_peer = 0;      ///< device-timed records whose bytes cross between GPUs
  double floor_pcie = 0, round_factor_pcie = 0;      ///< device-timed records whose bytes cross PCIe

  /// The fitted constants (docs/measurement.md, "The process floors", gives the fit and its data).
  static process_noise_model fitted();
  /// The term for a record timed by `source` whose work moves bytes along `path`.
  [[nodiscard]] double sd(time_source source, bytes_path path, const side_estimate& s) const;
};

/// `gpubench ab`: the record judged on the per-cycle differences of its two sides. A cycle holds
/// a round of each build, measured back to back (round_info::cycle), so what both builds shared
/// at that moment (the host's speed, the clocks) cancels in the cycle's difference. Cycles are
/// grouped by the pair of worker processes that measured them: the groups' means differ by the
/// workers' own between-process effects, their cycles by everything else.
struct cycle_estimate {
  /// Mean over groups of each group's figure: the mean of the medians of its base-first and its
  /// new-first cycles' differences (new - base, log). The cycles of a group share its workers'
  /// offsets and the groups do not, so Student's t on the group figures stays valid, while a few
  /// wild cycles barely move them and a drift still cancels between the two orders. This figure and
  /// the variances below are taken after the wild cycles are reined in (`wild`).
  double center = 0;
  std::size_t cycles = 0;  ///< cycles with rounds on both sides
  std::size_t groups = 0;  ///< distinct (base worker, new worker) pairs among them
  double resid_var = 0;    ///< pooled variance of the differences within groups (df cycles - groups)
  /// Variance of the group figures (0 with one group), about their mean, or about their line on
  /// the workers' context levels where `level_slope` is set; its degrees of freedom in group_df.
  double group_var = 0;
  double group_df = 0;  ///< groups - 1, or groups - 2 with the adjustment
  /// The center's variance is group_var x center_factor / groups: 1 for a plain mean, more where
  /// the adjustment's levels differ on average between the builds' workers (1 + g x̄² / Sxx).
  double center_factor = 1;
  /// With both builds' workers' context levels (gpubench/context_level.hpp) and at least
  /// kMinAdjustedGroups groups: the least-squares slope of the group figures on the difference of
  /// their two workers' log levels. The center is then the groups' mean less the slope times the
  /// levels' mean difference, which an A/A session expects to be 0: the figure the two builds
  /// would show in contexts of equal level (docs/measurement.md, "The context's level"). Not set
  /// where the builds' levels differ beyond chance (t on the groups' level differences, 0.1%).
  std::optional<double> level_slope;
  double mean_inv_n = 0;  ///< mean over groups of 1 / (cycles in the group)
  double noise_var = 0;   ///< both sides' sample noise (over all their samples): a lower bound on the center's variance
  /// How far one cycle's difference strays: kMadToSigma x the median absolute deviation of all the
  /// cycles' differences from their median (log units). It holds what the host's and the clocks'
  /// noise leave between two rounds milliseconds apart, and the workers' offsets; a session's median
  /// over its records tells a noisy machine from a quiet one (docs/measurement.md, "A noisy host").
  double spread = 0;
  /// Cycles whose difference lay further than two spreads from both the record's median difference
  /// and the median of their own pair's other cycles, and was moved in to that reach before the
  /// center and the variances were taken (docs/measurement.md, "Wild cycles").
  std::size_t wild = 0;
};
/// The fewest groups the level adjustment is made with: its slope takes a degree of freedom, and
/// three groups would leave one.
inline constexpr std::size_t kMinAdjustedGroups = 4;

/// The cycle analysis, or nothing when fewer than two cycles have rounds on both sides.
/// `base_levels` and `next_levels`: each build's workers' context levels in seconds, indexed by
/// process (round_info::process); both empty for no adjustment. A group whose worker has no level
/// leaves the record unadjusted.
std::optional<cycle_estimate> paired_cycles(const side_estimate& base, const side_estimate& next,
                                            std::span<const double> base_levels = {},
                                            std::span<const double> next_levels = {});

/// Per-round log speedups of `variant` against `baseline` when both have the same rounds (a run
/// of schema 2 interleaves them per round, so each round's ratio cancels that round's drift);
/// empty when the rounds do not line up.
std::vector<double> round_log_speedups(const timing_data& baseline, const timing_data& variant);

}  // namespace gpubench::detail
