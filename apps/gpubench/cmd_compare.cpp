// `gpubench compare BASE NEW`: per-record verdicts from the samples; the exit code gates CI.
#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/export.hpp"

namespace gpubench::app {

CLI::App* add_compare(CLI::App& app, compare_args& a) {
  auto* cmd = app.add_subcommand(
      "compare", "Compare two profiles record by record; the exit code gates CI (0 pass, 4 regression, 5 inconclusive)");
  cmd->add_option("base", a.base, "Baseline profile (JSON)")->required();
  cmd->add_option("new", a.next, "New profile (JSON)")->required();
  cmd->add_option("--threshold", a.threshold_pct, "Warning threshold, percent: slower/faster only when the whole interval lies beyond it (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--critical", a.critical_pct, "Critical threshold, percent (default 15)")->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--alpha", a.alpha, "Family-wise error rate across all records (default 0.05)")->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--max-noise", a.max_noise_pct, "A side noisier than this (median noise, percent) is inconclusive (default 5)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--fail-on", a.fail_on,
                  "What fails the exit code: none, critical (slower beyond --critical), slower (default), any "
                  "(slower → 4, else inconclusive → 5)")
      ->check(CLI::IsMember({"none", "critical", "slower", "any"}));
  cmd->add_option("--history", a.history,
                  "Earlier runs of the base configuration (same GPU model): they estimate each record's "
                  "run-to-run drift, which widens its interval. Without them, host-timed records are "
                  "inconclusive (their drift between runs is unknown)")
      ->expected(1, -1);
  cmd->add_flag("--strict-device", a.strict_device, "Refuse (exit 2) to compare profiles from different GPU models");
  cmd->add_option("--markdown", a.markdown, "Also write a markdown report here (for a CI job summary)");
  cmd->add_option("--junit", a.junit, "Also write JUnit XML here (slower → failure, inconclusive → skipped)");
  cmd->add_option("--json", a.json, "Also write the machine-readable comparison here ('-' for stdout)");
  cmd->add_flag("-q,--quiet", a.quiet, "Hide records whose verdict is 'same'");
  cmd->add_flag("--force", a.force,
                "Replace read-only report files or write through symbolic links (refused otherwise, exit 2)");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

int run_compare(const compare_args& a) {
  for (const auto& path : {a.markdown, a.junit, a.json})
    if (!path.empty() && path != "-") check_writable(path, a.force);
  const profile base = read_profile(a.base);
  const profile next = read_profile(a.next);
  std::vector<profile> history;
  for (const auto& h : a.history) history.push_back(read_profile(h));
  compare_options o;
  if (a.threshold_pct) o.threshold = *a.threshold_pct / 100;
  if (a.critical_pct) o.critical = *a.critical_pct / 100;
  if (a.alpha) o.alpha = *a.alpha;
  if (a.max_noise_pct) o.max_noise = *a.max_noise_pct / 100;
  const comparison c = compare_profiles(base, next, o, a.base, a.next, history);
  if (!c.same_device) {
    const auto msg = fmt::format("the profiles come from different GPUs ({} vs {})", c.base_device, c.new_device);
    if (a.strict_device) throw usage_error(msg + "; drop --strict-device to compare anyway");
    fmt::print(stderr, "gpubench: warning: {}: absolute times differ by hardware; the speedup changes are the "
                       "comparable part\n", msg);
  }
  std::FILE* out = a.json == "-" ? stderr : stdout;
  print_comparison(out, c, detect_style(out, a.quiet));
  if (!a.markdown.empty()) write_text_file(a.markdown, comparison_markdown(c), a.force);
  if (!a.junit.empty()) write_text_file(a.junit, comparison_junit(c), a.force);
  if (!a.json.empty()) write_text_file(a.json, comparison_json(c).dump(2) + "\n", a.force);
  const fail_on policy = a.fail_on == "none"       ? fail_on::none
                         : a.fail_on == "critical" ? fail_on::critical
                         : a.fail_on == "any"      ? fail_on::any
                                                   : fail_on::slower;
  return gate_exit_code(c, policy);
}

}  // namespace gpubench::app
