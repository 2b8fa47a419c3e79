#pragma once
/// `gpubench ab --history`: each record's spread between pairs of workers in earlier `ab` sessions,
/// read back from their `--json` comparisons and pooled (docs/measurement.md, "Moderated
/// variance"). Each session draws its workers afresh, so its spread is an estimate independent of
/// the session being judged. CUDA-free.
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <string>

#include "gpubench/compare.hpp"

namespace gpubench {

struct pair_history {
  std::string gpu_model;              ///< the GPU model every session ran on
  std::size_t sessions = 0;           ///< the files read, one session each
  std::set<std::string> session_ids;  ///< their `ab_session`s
  /// By record id: var = sum(df * var) / sum(df) over the sessions that measured it; df summed
  /// (half of it for host-timed records, whose spreads scatter more between sessions), but
  /// where Bartlett's test finds the sessions' variances differing at 1%, no more than the prior
  /// degrees of freedom fitted to them (fit_variance_prior): sessions that disagree weigh less.
  std::map<std::string, pair_spread> records;
};

/// Reads `ab --json` comparisons (or `compare --json` of one `ab` session's two profiles) through
/// the input gate (gpubench/input_file.hpp, gpubench/strict_json.hpp) and pools each record's
/// `between_pairs`. Refuses with usage_error (exit 2), naming the file and what to do: a file that
/// is not one `ab` session's comparison (no `ab_session`), two files of one session (the same
/// file twice, or a copy), sessions on different GPU models or with two GPU models in one, a
/// record whose `between_pairs` has a negative or non-finite `var` or a `df` that is not a whole
/// number from 1 to 15 (pairs of workers - 1), an unknown `judged_on`, and a record id twice in
/// one file. A record judged on two figures in different sessions keeps the newest file's (the
/// last given).
pair_history read_pair_history(std::span<const std::filesystem::path> files);

/// What a session on `gpu` takes from the history: each record's spread when the sessions ran on
/// that GPU model, nothing when they ran on another (their workers say nothing about this one's),
/// and the console line that says which. The history's model comes from its files, so the line
/// escapes it.
struct pair_history_use {
  std::map<std::string, pair_spread> records;
  std::string line;
};
pair_history_use use_pair_history(const pair_history& h, const std::string& gpu);

}  // namespace gpubench
