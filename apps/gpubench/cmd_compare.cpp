// `gpubench compare [BASE NEW]`: per-record verdicts from the samples; the exit code gates CI. Profiles
// come from files or the run store (store_choice.hpp).
#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/pair_history.hpp"
#include "gpubench/text_file.hpp"
#include "store_choice.hpp"

namespace gpubench::app {

CLI::App* add_compare(CLI::App& app, compare_args& a) {
  auto* cmd = app.add_subcommand(
      "compare", "Compare two profiles record by record; the exit code gates CI (0 pass, 4 regression, 5 inconclusive)");
  cmd->add_option("base", a.base,
                  "Baseline: a profile (JSON) or a stored run (as for --base). Without BASE and NEW: the newest "
                  "stored run against the previous comparable one (same GPU model and options), both named");
  cmd->add_option("new", a.next, "New profile: a file or a stored run");
  cmd->add_option("--base", a.base_ref,
                  "REF: the base as a profile file or a stored run: #ID (or ID), a git sha, or a branch or tag "
                  "recorded at run time (sha:, ref: and file: say which); a sha or name picks its newest run "
                  "comparable with the new one. Without NEW, the new run is the newest stored one");
  cmd->add_option("--new", a.new_ref, "REF: the new profile, as for --base (default: the newest stored run)");
  cmd->add_flag("--no-history", a.no_history,
                "Without --history, compare takes the store's earlier runs of the base (same GPU model and "
                "options, its commit or branch) as --history; this leaves them out");
  add_db_option(cmd, a.db);
  cmd->add_option("--threshold", a.threshold_pct, "Warning threshold, percent: slower/faster only when the whole interval lies beyond it (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--critical", a.critical_pct,
                  "Critical threshold, percent, at least --threshold (default 15, or --threshold when that is higher)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--alpha", a.alpha,
                  "Family-wise error rate across all records (default 0.05); for the two profiles of one `gpubench "
                  "ab` session, across each chapter's records, as ab judges them")
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--noise-limit", a.noise_limit_pct,
                  "A side noisier than this (median noise, percent) is inconclusive (default 5)")
      ->check(CLI::Range(0.0, 100.0));
  // Deprecated alias of --noise-limit, hidden from --help: it still works and warns. `run
  // --max-noise` is a stopping target (0.5%), this a judging limit (5%): one name misleads.
  cmd->add_option("--max-noise", a.deprecated_max_noise_pct)->check(CLI::Range(0.0, 100.0))->group("");
  cmd->add_option("--fail-on", a.fail_on,
                  "What fails the exit code: none, critical (slower beyond --critical), slower (default), any "
                  "(slower → 4, else inconclusive → 5)")
      ->check(CLI::IsMember({"none", "critical", "slower", "any"}));
  cmd->add_option("--history", a.history,
                  "Earlier runs of the base configuration (same GPU model, at least two): each device-timed "
                  "record's own drift between them replaces the fitted between-process term in its "
                  "interval. Host-timed records keep at least the fitted term (about 14% per process; a few "
                  "runs cannot bound their rare slow process), so most are inconclusive at the default "
                  "threshold: `gpubench ab` judges them")
      ->expected(1, -1);
  cmd->add_option("--ab-history", a.ab_history,
                  "BASE and NEW being one `gpubench ab` session's --out-base and --out-new: judge them as `ab "
                  "--history` would, with earlier sessions' --json outputs on the same GPU model (repeatable)")
      ->expected(1, -1);
  cmd->add_flag("--allow-mixed", a.allow_mixed,
                "Use --history runs from another GPU model or another set of chapters than the base (refused by default)");
  cmd->add_flag("--strict-device", a.strict_device, "Refuse (exit 2) to compare profiles from different GPU models");
  cmd->add_option("--markdown", a.markdown, "Also write a markdown report here (for a CI job summary; '-' for stdout)");
  cmd->add_option("--junit", a.junit, "Also write JUnit XML here (slower → failure, inconclusive → skipped; '-' for stdout)");
  cmd->add_option("--json", a.json, "Also write the machine-readable comparison here ('-' for stdout)");
  cmd->add_flag("-q,--quiet", a.quiet, "Hide records whose verdict is 'same'");
  cmd->add_flag("--force", a.force,
                "Replace read-only report files or write through symbolic links (refused otherwise, exit 2)");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

namespace {

/// An interrupted run compares only what it finished; say so where CI logs show it.
void warn_if_incomplete(const profile& p, const std::string& path, const char* role) {
  if (!p.complete)
    fmt::print(stderr,
               "gpubench: warning: the {} profile {} is marked incomplete (an interrupted run): only its {} "
               "records are compared, and what it did not reach shows as 'only in'\n",
               role, terminal_text(path), p.records.size());
}

/// --ab-history's spreads for BASE and NEW, which must be one `ab` session's profiles on the
/// history's GPU model, a session the history does not already hold.
std::map<std::string, pair_spread> pair_history_for(const pair_history& h, const profile& base, const profile& next,
                                                    const std::string& base_source) {
  const std::optional<std::string> session = ab_session_of(base);
  if (!session || session != ab_session_of(next))
    throw usage_error("compare --ab-history: BASE and NEW are not one `gpubench ab` session's profiles (its "
                      "--out-base and --out-new); leave --ab-history out to compare them");
  if (h.session_ids.contains(*session))
    throw usage_error(fmt::format("compare --ab-history: one of the files is this session's own comparison ({}); its "
                                  "spread would count twice: give earlier sessions only",
                                  *session));
  if (h.gpu_model != base.prov.device.name)
    throw usage_error(fmt::format("compare --ab-history: the sessions ran on {}, {} on {}; give sessions of its GPU "
                                  "model",
                                  h.gpu_model, terminal_text(base_source), base.prov.device.name));
  return h.records;
}

}  // namespace

int run_compare(const compare_args& a) {
  const comparison_outputs outputs{a.markdown, a.junit, a.json, a.force, a.quiet};
  check_comparison_outputs(outputs);
  // No report may replace a profile it is made from, nor another report (gpubench/output_paths.hpp).
  std::vector<named_path> inputs = {{"the base profile", a.base}, {"the new profile", a.next}};
  for (const auto& h : a.history) inputs.push_back({"the --history run", h});
  for (const auto& h : a.ab_history) inputs.push_back({"the --ab-history session", h});
  check_outputs_distinct(inputs, {{"--markdown", a.markdown}, {"--junit", a.junit}, {"--json", a.json}});
  if (a.deprecated_max_noise_pct && a.noise_limit_pct)
    throw usage_error("compare: --max-noise is the old name of --noise-limit; give --noise-limit only");
  if (a.deprecated_max_noise_pct)
    fmt::print(stderr, "gpubench: warning: compare --max-noise is deprecated; use --noise-limit\n");
  if (a.threshold_pct && a.critical_pct && *a.critical_pct < *a.threshold_pct)
    throw usage_error(fmt::format("compare: --critical {:g} is below --threshold {:g}: a critical change must be at "
                                  "least a reportable one; raise --critical or lower --threshold",
                                  *a.critical_pct, *a.threshold_pct));
  if (a.base.empty() != a.next.empty())
    throw usage_error("compare: give both BASE and NEW, or neither (the newest stored runs), or --base/--new REF");
  if (!a.base.empty() && (!a.base_ref.empty() || !a.new_ref.empty()))
    throw usage_error("compare: BASE and NEW are given; --base and --new are for naming one of them only");
  // Choices made for the user go where the table goes, one line each: stderr when a report is on stdout.
  const bool report_on_stdout = a.markdown == "-" || a.junit == "-" || a.json == "-";
  const std::string base_ref = a.base.empty() ? a.base_ref : a.base, new_ref = a.next.empty() ? a.new_ref : a.next;
  const bool named = !base_ref.empty() && !new_ref.empty();
  // The store is opened only where it is used: to choose a profile, or for the base's history.
  const bool files_only = named && names_file(base_ref) && names_file(new_ref) &&
                          std::all_of(a.history.begin(), a.history.end(), names_file);
  const auto store = files_only && (a.no_history || !a.history.empty())
                         ? nullptr
                         : open_store_for_choices(a.db, files_only, "or compare without it: --no-history");
  const std::vector<std::filesystem::path> ab_history_files(a.ab_history.begin(), a.ab_history.end());
  const pair_history ab_history = read_pair_history(ab_history_files);
  const compare_inputs in = choose_compare_inputs(store.get(), a.db, base_ref, new_ref, a.history, a.no_history,
                                                  report_on_stdout ? stderr : stdout);
  const profile& base = in.base.prof;
  const profile& next = in.next.prof;
  const std::vector<profile>& history = in.history;
  warn_if_incomplete(base, in.base.source, "base");
  warn_if_incomplete(next, in.next.source, "new");
  for (std::size_t i = 0; i < history.size(); ++i) warn_if_incomplete(history[i], in.history_sources[i], "history");
  compare_options o;
  if (a.threshold_pct) o.threshold = *a.threshold_pct / 100;
  if (a.critical_pct) o.critical = *a.critical_pct / 100;
  else o.critical = std::max(o.critical, o.threshold);  // --threshold 20 alone: critical follows it up
  if (a.alpha) o.alpha = *a.alpha;
  if (a.noise_limit_pct) o.noise_limit = *a.noise_limit_pct / 100;
  else if (a.deprecated_max_noise_pct) o.noise_limit = *a.deprecated_max_noise_pct / 100;
  o.allow_mixed_history = a.allow_mixed;
  if (ab_history.sessions > 0) o.pair_history = pair_history_for(ab_history, base, next, in.base.source);
  const comparison c = compare_profiles(base, next, o, in.base.source, in.next.source, history, in.history_sources);
  return emit_comparison(c, outputs, a.fail_on, a.strict_device);
}

}  // namespace gpubench::app
