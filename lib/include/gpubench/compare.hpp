#pragma once
/// Comparing two profiles record by record, from the samples (docs/measurement.md). CUDA-free.
///
/// For each record matched by (chapter, pair, variant, size) the time ratio new/base is judged in
/// log space from a hierarchical model of where the time varies (Kalibera & Jones, "Rigorous
/// Benchmarking in Reasonable Time", ISMM 2013): each side's center is the mean of its rounds' log
/// medians (gpubench/sampling.hpp), with the variance its rounds show (at least its samples'
/// noise), plus a between-process term that one run cannot show, fitted on multi-process runs of
/// identical code (lib/src/compare/noise_model.hpp; docs/measurement.md). With --history (at
/// least two earlier runs of the base) that term is measured for each record instead: the sd of
/// its centers over base + history, with Student's t on their degrees of freedom. The interval is
/// center difference ± z·sd (or t·sd) at a confidence Bonferroni-corrected for the number of
/// records compared, so the intervals hold simultaneously. Verdicts:
///   slower        the whole interval lies above 1 + threshold
///   faster        the whole interval lies below 1 / (1 + threshold)
///   same          the whole interval lies inside [1/(1+threshold), 1+threshold]
///   inconclusive  the interval straddles a boundary, or either side was throttled, too noisy,
///                 too few samples, or not a passed record
/// Host-timed and device-timed records are judged by the same model, each with its own fitted
/// between-process floor. Each record states the smallest slowdown it can resolve.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpubench/profile.hpp"

namespace gpubench {

/// One record's spread between pairs of `ab` workers in earlier sessions (`ab --history`,
/// gpubench/pair_history.hpp): the variance of the pairs' figures (log^2), pooled over the sessions
/// with their degrees of freedom, and the figure the record was judged on there.
struct pair_spread {
  double var = 0;
  double df = 0;
  std::size_t sessions = 0;
  time_source figure = time_source::cuda_events_net;
  /// Whether the sessions' spreads are about the line on the workers' context levels
  /// (cycle_estimate::level_slope) rather than about the mean: a record uses only the kind it
  /// is judged with.
  bool context_adjusted = false;
};

struct compare_options {
  double threshold = 0.05;   ///< warning threshold: relative change that counts (5%)
  double critical = 0.15;    ///< critical threshold: a slower verdict beyond this is critical
  /// Family-wise error rate across all records compared; for the two profiles of one `gpubench ab`
  /// session, across each chapter's records (comparison::family_per_chapter).
  double alpha = 0.05;
  double noise_limit = 0.05;  ///< a side whose median noise exceeds this is too noisy to judge (`--noise-limit`)
  std::size_t min_samples = 5;
  /// Accept history from another GPU model or another set of chapters than the base (refused by
  /// default: its drift says nothing about the base's records).
  bool allow_mixed_history = false;
  /// `ab --history`, by record id: the prior of a record judged on its cycles is its own spread
  /// between pairs of workers in earlier sessions, weighing their degrees of freedom (at most 20),
  /// in place of the one fitted over the chapter's records (docs/measurement.md, "Moderated
  /// variance"). Records of another figure there, or absent, keep the chapter's.
  std::map<std::string, pair_spread> pair_history;
};

enum class verdict { faster, same, slower, inconclusive };
const char* to_string(verdict v);

/// The level of variance that contributes most to a record's interval, so a user knows which
/// option would narrow it: within_round (more samples: a longer --min-time), between_rounds (more
/// rounds: --rounds, --max-rounds), between_processes (measured between processes: more of them,
/// `run --processes`, `gpubench ab` or more --history), floor (the fitted class floor stands in
/// for a between-process level nothing measured: `run --processes`, `gpubench ab` or --history).
enum class limiting_term { within_round, between_rounds, between_processes, floor };
const char* to_string(limiting_term t);

/// The shift between two sample sets in log space, as a time ratio new/base.
struct ratio_interval {
  double estimate = 1;  ///< the ratio's point estimate, the interval's center in log space
  double low = 1, high = 1;
};

/// Verdict from an interval and a threshold (see the header comment).
verdict classify(const ratio_interval& r, double threshold);

struct record_comparison {
  std::string id;             ///< record id (same on both sides)
  int chapter = 0;
  std::string pair, variant, size;
  double base_median = 0, new_median = 0;
  ratio_interval ratio;       ///< new/base; > 1 is slower
  verdict result = verdict::inconclusive;
  bool critical = false;      ///< slower beyond the critical threshold (whole interval)
  std::string note;           ///< why inconclusive, when it is (parts separated by "; ")
  std::size_t runs = 1;       ///< base-side runs (base + history) this record's drift was estimated from
  double drift = 0;           ///< between-run sd of the base's centers over base + history (0 when not estimated)
  double log_sd = 0;          ///< sd of the log ratio: both sides' round variance and between-process terms
  /// The smallest slowdown (fraction) this record can report as slower: 1 + resolvable =
  /// (1 + threshold) · e^(q·log_sd), q the interval's quantile. A true change of this size lands
  /// on the boundary.
  double resolvable = 0;
  std::pair<std::size_t, std::size_t> rounds{0, 0};  ///< rounds on the base and new side
  /// The part of the interval's log half-width that no number of rounds shrinks: the quantile
  /// times both sides' between-process terms (measured, or the fitted floors).
  double fixed_log_half_width = 0;
  /// Degrees of freedom of the interval's quantile: +infinity for the normal quantile (the
  /// between-process level from the fitted floors), else Student's t on the moderated estimate.
  double degrees_of_freedom = 0;
  limiting_term limit = limiting_term::floor;  ///< the term that contributes most (see limiting_term)
  /// What measured the between-process level: "prior" (the class floor), "history", "processes"
  /// (rounds from several processes) or "cycles" (`gpubench ab`).
  std::string evidence = "prior";
  /// `ab`: the variance of the pairs of workers' figures (log^2) and its degrees of freedom (pairs
  /// - 1), as this session measured it, before any prior: what `ab --history` reads back from
  /// `--json`. Nothing for other evidence or one pair.
  std::optional<double> pairs_var;
  double pairs_df = 0;
  /// `ab`, host-timed records of a session whose workers were calibrated: the slope of the pairs'
  /// figures on their workers' context levels (docs/measurement.md, "The context's level"); pairs_var
  /// is then the variance about that line, with pairs - 2 degrees of freedom.
  std::optional<double> context_slope;
  /// Earlier sessions whose spread formed this record's prior (`ab --history`); 0: the chapter's.
  std::size_t pair_history_sessions = 0;
  /// `ab`: how far one cycle's difference (new - base, log) strays, as 1.4826 x the median absolute
  /// deviation of all its cycles' differences. Nothing for other evidence.
  std::optional<double> cycle_spread;
  /// `ab`: the cycles whose difference lay further than two cycle spreads from both the record's
  /// median difference and their own pair of workers' other cycles, reined in to that reach before
  /// the interval was taken (docs/measurement.md, "Wild cycles"). Nothing for other evidence.
  std::optional<std::size_t> wild_cycles;
  /// What both sides were judged on: their samples' source when they agree, else cuda_events
  /// (the raw event span each device-timed record keeps; figures_differ is then true).
  time_source figure = time_source::cuda_events;
  bool figures_differ = false;
};

/// A pair's speedup (baseline median / variant median) in both runs: robust to machine drift.
struct speedup_comparison {
  std::string id;             ///< the variant's record id
  double base_speedup = 0, new_speedup = 0;
  ratio_interval ratio;       ///< new speedup / base speedup; < 1 is a lost speedup
  verdict result = verdict::inconclusive;  ///< "slower" means the speedup shrank beyond the threshold
  std::string note;           ///< why inconclusive, when it is
};

/// The between-process terms in force (log-units sd; lib/src/compare/noise_model.hpp).
struct noise_model_terms {
  double floor_device = 0, round_factor_device = 0, floor_host = 0, round_factor_host = 0;
  double floor_peer = 0, round_factor_peer = 0;  ///< device-timed records whose bytes cross between GPUs
  double floor_device_abs_s = 0;                  ///< device-timed records: at least this over the record's time
  double floor_pcie = 0, round_factor_pcie = 0;   ///< device-timed records whose bytes cross PCIe
};

/// The most worker processes a build `gpubench ab` starts (its --workers range). A record limited
/// between processes in a session that ran this many can be narrowed only by earlier sessions
/// (--history), and the console says so.
inline constexpr int kAbMaxWorkersPerBuild = 16;

struct comparison {
  std::string base_source, new_source;
  std::string base_device, new_device;
  bool same_device = true;
  /// The GPUs' UUIDs as the profiles recorded them ("" when one did not): two chips of the same
  /// model can differ on small kernels (another_chip_warning).
  std::string base_gpu_uuid, new_gpu_uuid;
  compare_options options;
  double interval_confidence = 0;  ///< per-record confidence after the Bonferroni correction (the lowest family's)
  /// Whether each chapter's records are a family of their own at options.alpha (Bonferroni within
  /// the chapter): so for one `ab` session, since `ab` over several chapters stands for that many
  /// `ab --chapter N` commands with their workers started once, and a record's interval must not
  /// depend on which other chapters share the command. Otherwise every record compared is one family.
  bool family_per_chapter = false;
  /// The records in the smallest and the largest family that got intervals (the smallest family
  /// has the lowest per-record confidence, interval_confidence).
  std::size_t family_min = 0, family_max = 0;
  noise_model_terms model;
  std::vector<record_comparison> records;
  std::vector<speedup_comparison> speedups;
  std::vector<std::string> only_in_base, only_in_new;
  std::vector<std::string> skipped_in_both;  ///< not run on either side (e.g. out of memory): not judged
  std::size_t history_runs = 0;              ///< distinct --history runs (repeats left out)
  /// The `ab` session both profiles belong to ("" when they are not one session's): `ab --history`
  /// tells sessions apart by it.
  std::string ab_session;
  /// The worker processes per build of that session (the profiles' options.ab_workers_per_build);
  /// 0 when they are not one session's or do not say.
  int ab_workers_per_build = 0;
  /// How long each side rested before each sample, in multiples of the previous sample (`run
  /// --rest`, the profile's options.rest_ratio; 0 for a profile from before rests existed);
  /// nothing when the profile holds something else there.
  std::optional<double> base_rest = 0.0, new_rest = 0.0;
  /// History runs left out of every record's drift because they rested differently from the base
  /// (or cannot tell): their long tensor-core records measured another figure.
  std::size_t history_rested_differently = 0;
  /// --history runs left out because every record of theirs repeated a measurement already counted
  /// (identical samples: the same file twice, a copy, the base or the new run).
  std::size_t history_repeated_runs = 0;
  /// Records of the other --history runs left out for the same reason.
  std::size_t history_repeated_records = 0;

  /// How the intervals were corrected: "Bonferroni over 54 records", or for one ab session over
  /// several chapters, "Bonferroni within each chapter, 14 to 191 records".
  [[nodiscard]] std::string family_phrase() const;
  [[nodiscard]] std::size_t count(verdict v) const;
  /// The median over records of record_comparison::cycle_spread: how noisy the machine was for
  /// one `ab` session. Nothing when no record was judged on cycles.
  [[nodiscard]] std::optional<double> median_cycle_spread() const;
  [[nodiscard]] std::size_t critical_count() const;
  /// Records whose two sides held different figures and were judged on the raw event span.
  [[nodiscard]] std::size_t figures_differ_count() const;
  /// The warning for those records ("" when there are none): a profile from before the empty
  /// span was subtracted, or --gpu-busy on one side only.
  [[nodiscard]] std::string figures_differ_warning() const;
  /// The warning when the two sides rested differently between samples, or one cannot be told, or
  /// history runs were left out for it ("" otherwise): long tensor-core work runs up to ~19%
  /// faster with rests, whatever the code.
  [[nodiscard]] std::string rest_differs_warning() const;
  /// The note when --history held repeated measurements that were left out ("" otherwise).
  [[nodiscard]] std::string history_repeats_warning() const;
  /// Whether base and new ran on the same physical GPU: nothing when either profile lacks a UUID.
  [[nodiscard]] std::optional<bool> same_gpu() const;
  /// The warning when both ran on the same GPU model but on different chips ("" otherwise):
  /// compare's between-process floors were fitted on processes of one machine, and two H100s
  /// differed by up to 8.4% on a small GEMM (docs/measurement.md, "Across machines").
  [[nodiscard]] std::string another_chip_warning() const;
};

/// `history`: earlier runs of the base configuration (same GPU model), to estimate drift.
/// Refuses (usage_error, exit 2) what would make a pass meaningless: a profile with no records,
/// a record id repeated within a profile, no record common to base and new, critical <
/// threshold, a history run holding the same measurements as base or new, and (unless
/// options.allow_mixed_history) history from another GPU model or another set of chapters.
comparison compare_profiles(const profile& base, const profile& next, const compare_options& options,
                            const std::string& base_source = "base", const std::string& new_source = "new",
                            const std::vector<profile>& history = {},
                            const std::vector<std::string>& history_sources = {});

/// The `gpubench ab` session a profile came from (options.ab_session), if any: only two profiles
/// of one session have cycles that correspond.
std::optional<std::string> ab_session_of(const profile& p);

/// The option of an `ab` session's profiles that holds each worker's context level in seconds
/// (gpubench/context_level.hpp), by chapter ("1": [...]), each list indexed by the worker's
/// process label (round_info::process): the workers calibrate once they have planned a chapter.
inline constexpr const char* kContextLevelsOption = "ab_context_levels_s";
/// The levels of `chapter`, or empty when the profile holds none for it or anything but one
/// positive finite number per worker (at most kAbMaxWorkersPerBuild).
std::vector<double> context_levels_of(const profile& p, int chapter);

namespace detail {
/// Two-sided Student-t quantile: t such that P(|T| <= t) = 1 - alpha, nu >= 1 degrees of freedom.
double t_quantile_two_sided(double alpha, int nu);
}  // namespace detail

/// What gates: none, critical (slower beyond the critical threshold), slower (any slower
/// verdict), any (slower, or inconclusive → exit 5).
enum class fail_on { none, critical, slower, any };
/// 0 pass, 4 regression, 5 inconclusive (only with fail_on::any).
int gate_exit_code(const comparison& c, fail_on policy);

}  // namespace gpubench
