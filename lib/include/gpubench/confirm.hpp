#pragma once
/// `run --confirm BASE.json`: before a run's profile is judged, the records that compare would
/// call slower, or might (an inconclusive interval reaching past the threshold), are measured
/// again, each alone, in a fresh process, and their rounds join the record's. A slowdown that a
/// process's placement or clock state made (a false alarm: a median that moves between processes
/// by more than one process's interval) then has to happen twice, in two processes, to
/// be reported; a real one does. The noise model (lib/src/compare/noise_model.cpp) sees the rounds
/// of both processes in the record's round spread. CUDA-free: the selection and the merge are
/// tested on the CPU; apps/gpubench/run_confirm.cpp starts the processes.
#include <cstdio>
#include <string>
#include <vector>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/record.hpp"
#include "gpubench/runner.hpp"

namespace gpubench {

/// A record to re-measure and why.
struct confirm_target {
  std::string id;
  std::string why;  ///< "slower, +7.2% [+6.1, +8.4]" or "inconclusive, interval reaches +9.0%"
};

/// The records of `c` to confirm: every slower verdict, and every inconclusive one whose interval
/// reaches past 1 + threshold while both sides were timed (an inconclusive record that could not be
/// judged at all, e.g. throttled or failed, is not helped by more samples of the new side), unless
/// its verdict could not change however many rounds joined it: with the interval shrunk to its
/// fixed part (record_comparison::fixed_log_half_width) around the same estimate, it would be
/// neither slower nor same. On an H100 that spared all 38 host-timed records of chapter 1, which
/// took a confirmed run from 11 to 43 s and left every one of them inconclusive.
std::vector<confirm_target> confirm_targets(const comparison& c);

/// Appends what a confirmation process measured (`from`, the same record re-measured alone) to
/// `into`: its samples, spans, clocks and rounds (tagged with `process`), and recomputes the
/// summary. Throws usage_error when the two are not the same measurement (another id, another
/// timing source or method, or either side untimed).
void merge_confirmation(record& into, const record& from, int process);

/// The command line (after the program name) of the process that re-measures `r` alone on
/// `device` into `out`: its pair, size and variant, with the run's timing options and seed spelled
/// out (not --quick: the numbers themselves), so it measures exactly what the run measured.
std::vector<std::string> confirm_child_args(const record& r, int device, const run_options& timing,
                                            const std::string& out);

/// The whole confirmation: compares `prof` with `base` (default options), re-measures each
/// confirm_target alone in a fresh `gpubench run` process on `device` with `timing` (the run's
/// options, seed included, spelled out), merges what it measured into `prof` (re-deriving speedups
/// and floors), and prints each step and the verdicts afterwards on `report`. A process that fails
/// leaves its record as measured; Ctrl-C in one throws (exit 130). Returns the ids it merged.
std::vector<std::string> confirm_regressions(profile& prof, const profile& base, const std::string& base_path,
                                             int device, const run_options& timing, std::FILE* report);

}  // namespace gpubench
