// `gpubench compare BASE NEW`: per-record verdicts from the samples; the exit code gates CI.
#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "commands.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench::app {

CLI::App* add_compare(CLI::App& app, compare_args& a) {
  auto* cmd = app.add_subcommand(
      "compare", "Compare two profiles record by record; the exit code gates CI (0 pass, 4 regression, 5 inconclusive)");
  cmd->add_option("base", a.base, "Baseline profile (JSON)")->required();
  cmd->add_option("new", a.next, "New profile (JSON)")->required();
  cmd->add_option("--threshold", a.threshold_pct, "Warning threshold, percent: slower/faster only when the whole interval lies beyond it (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--critical", a.critical_pct,
                  "Critical threshold, percent, at least --threshold (default 15, or --threshold when that is higher)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--alpha", a.alpha, "Family-wise error rate across all records (default 0.05)")->check(CLI::Range(1e-9, 0.5));
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
                  "Earlier runs of the base configuration (same GPU model, at least two): each record's own "
                  "drift between them replaces the fitted between-process term in its interval. Without "
                  "them that term is the fitted one (host-timed work: about 14% per process), so most "
                  "host-timed records come out inconclusive at the default threshold")
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

}  // namespace

int run_compare(const compare_args& a) {
  // One report on stdout at most: two would interleave into something neither reader can parse.
  std::vector<std::string> on_stdout;
  for (const auto& [flag, path] : {std::pair{"--markdown", a.markdown}, {"--junit", a.junit}, {"--json", a.json}})
    if (path == "-") on_stdout.emplace_back(flag);
  if (on_stdout.size() > 1)
    throw usage_error(fmt::format("compare: {} all write to stdout ('-'); send at most one report there and "
                                  "the others to files",
                                  fmt::join(on_stdout, " and ")));
  for (const auto& [path, example] :
       {std::pair{a.markdown, "compare.md"}, {a.junit, "junit.xml"}, {a.json, "compare.json"}})
    if (!path.empty() && path != "-") check_writable(path, a.force, example);
  // No report may replace a profile it is made from, nor another report (gpubench/output_paths.hpp).
  std::vector<named_path> inputs = {{"the base profile", a.base}, {"the new profile", a.next}};
  for (const auto& h : a.history) inputs.push_back({"the --history run", h});
  check_outputs_distinct(inputs, {{"--markdown", a.markdown}, {"--junit", a.junit}, {"--json", a.json}});
  if (a.deprecated_max_noise_pct && a.noise_limit_pct)
    throw usage_error("compare: --max-noise is the old name of --noise-limit; give --noise-limit only");
  if (a.deprecated_max_noise_pct)
    fmt::print(stderr, "gpubench: warning: compare --max-noise is deprecated; use --noise-limit\n");
  if (a.threshold_pct && a.critical_pct && *a.critical_pct < *a.threshold_pct)
    throw usage_error(fmt::format("compare: --critical {:g} is below --threshold {:g}: a critical change must be at "
                                  "least a reportable one; raise --critical or lower --threshold",
                                  *a.critical_pct, *a.threshold_pct));
  const profile base = read_profile(a.base);
  const profile next = read_profile(a.next);
  std::vector<profile> history;
  for (const auto& h : a.history) history.push_back(read_profile(h));
  warn_if_incomplete(base, a.base, "base");
  warn_if_incomplete(next, a.next, "new");
  for (std::size_t i = 0; i < history.size(); ++i) warn_if_incomplete(history[i], a.history[i], "history");
  compare_options o;
  if (a.threshold_pct) o.threshold = *a.threshold_pct / 100;
  if (a.critical_pct) o.critical = *a.critical_pct / 100;
  else o.critical = std::max(o.critical, o.threshold);  // --threshold 20 alone: critical follows it up
  if (a.alpha) o.alpha = *a.alpha;
  if (a.noise_limit_pct) o.noise_limit = *a.noise_limit_pct / 100;
  else if (a.deprecated_max_noise_pct) o.noise_limit = *a.deprecated_max_noise_pct / 100;
  o.allow_mixed_history = a.allow_mixed;
  const comparison c = compare_profiles(base, next, o, a.base, a.next, history, a.history);
  if (!c.same_device) {
    const auto msg = fmt::format("the profiles come from different GPUs ({} vs {})", c.base_device, c.new_device);
    if (a.strict_device) throw usage_error(msg + "; drop --strict-device to compare anyway");
    print_compare_warning(stderr, msg + ": absolute times differ by hardware; the speedup changes are the comparable part");
  }
  for (const std::string& w :
       {c.figures_differ_warning(), c.rest_differs_warning(), c.another_chip_warning(), c.history_repeats_warning()})
    if (!w.empty()) print_compare_warning(stderr, w);
  std::FILE* out = on_stdout.empty() ? stdout : stderr;  // a report on stdout moves the table aside
  print_comparison(out, c, detect_style(out, a.quiet));
  if (!a.markdown.empty()) write_text_file(a.markdown, comparison_markdown(c), a.force);
  if (!a.junit.empty()) write_text_file(a.junit, comparison_junit(c), a.force);
  if (!a.json.empty()) write_text_file(a.json, json_text(comparison_json(c)) + "\n", a.force);
  const fail_on policy = a.fail_on == "none"       ? fail_on::none
                         : a.fail_on == "critical" ? fail_on::critical
                         : a.fail_on == "any"      ? fail_on::any
                                                   : fail_on::slower;
  return gate_exit_code(c, policy);
}

}  // namespace gpubench::app
