#pragma once
// Internal: one record's interval in compare, from the levels at which its time varies (Kalibera
// & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013): samples within a round, rounds
// within a process, and processes. The between-process level is measured wherever the data hold
// it, and taken from the fitted class floors (noise_model.hpp) only where they do not:
//   cycles     `gpubench ab`: the per-cycle differences, grouped by the pair of workers;
//   processes  rounds from several processes on a side (`run --processes`, `run --confirm`);
//   history    the base's earlier runs (`compare --history`): the spread of the record's centers;
//   prior      none of these: the fitted floor of the record's class.
// A measured between-process variance has few degrees of freedom (one to four), so compare fits
// a prior over a chapter's records of one class and evidence and shrinks each toward it
// (gpubench/moderated_variance.hpp, Smyth 2004); with too few records to fit one (a selection of
// one pair), each record keeps its own estimate and its own degrees of freedom.
#include <optional>
#include <string>

#include "compare/noise_model.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/moderated_variance.hpp"

namespace gpubench::detail {

/// Where a record's between-process level comes from (see the header comment).
enum class process_evidence { prior, history, processes, cycles };
const char* to_string(process_evidence e);

/// The most weight a fitted prior gets (its degrees of freedom): limma's fit can come out
/// infinitely sure when a chapter's records scatter no more than their few degrees of freedom
/// explain, which would give every record the chapter's variance whatever its own data say. With
/// twenty, a record whose own processes disagree still widens its interval.
inline constexpr double kMaxPriorDf = 20;

/// Everything compare holds about one matched record before the priors are fitted.
struct record_levels {
  side_estimate base, next;
  std::optional<cycle_estimate> cycles;
  process_evidence evidence = process_evidence::prior;
  std::size_t history_runs = 1;  ///< base + history runs that measured the record
  double history_var = 0;        ///< variance of its centers over them (df history_runs - 1)
  /// The fitted class floor of each side (sd, log units), the absolute floor included: the
  /// between-process term when nothing measures it, and the prior when too few records do.
  double floor_base = 0, floor_next = 0;
  /// The process term of each side without data, as the model gives it (the floor, or the floor
  /// raised by the class's round factor for host-timed and PCIe records).
  double model_base = 0, model_next = 0;
  /// Both sides' within-run variance of the center difference as compare has always taken it:
  /// each side's var_center summed, or, for device-timed records with one process and the same
  /// rounds on each side, the spread of the per-round differences / R (paired_round_sd), at least
  /// the samples' noise. Used with the prior and with history.
  double within_var = 0;
  double noise_var = 0;  ///< both sides' sample noise: the part of within_var no round adds
  /// Host-timed: a measured between-process term (history, or processes of one run) may widen the
  /// model's but not narrow it. Their level moves with the host's speed, heavy-tailed and shared by
  /// the processes of one invocation: one process in seven moved a pair 15-43% while the other six
  /// agreed within 2-6%, and the four interleaved processes of one `run --processes 4` all ran a
  /// pair 30% slow (docs/measurement.md, "History"). Neither a few earlier runs nor one run's
  /// processes bound that.
  bool keeps_model_term = false;
};

/// Picks the evidence for `l` from what its sides hold (cycles, then processes, then history).
void choose_evidence(record_levels& l);

/// The raw between-process variance estimates `l` contributes to its group's prior fit, as
/// (variance, degrees of freedom) pairs: one for cycles and history, one per side with several
/// processes, none for the prior.
std::vector<std::pair<double, double>> raw_process_estimates(const record_levels& l);

/// The record's interval in log units: center new - base, its sd, degrees of freedom (+inf: the
/// normal quantile) and the term that limits it.
struct log_interval {
  double center = 0;
  double sd = 0;
  double df = 0;
  limiting_term limit = limiting_term::floor;
  /// The sd no number of rounds shrinks: the between-process terms and floors alone.
  double fixed_sd = 0;
};
log_interval interval_of(const record_levels& l, const variance_prior& prior);

}  // namespace gpubench::detail
