// `gpubench report PROFILE... [--compare BASE] --out report.html`: one self-contained HTML page.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/report.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/text_file.hpp"
#include "store_choice.hpp"

namespace gpubench::app {

namespace fs = std::filesystem;

CLI::App* add_report(CLI::App& app, report_args& a) {
  auto* cmd = app.add_subcommand(
      "report",
      "One self-contained HTML page from saved profiles: first, per chapter, each pair's best variant with "
      "its speedup (and interval) and its % of its roof; then device and ceilings, per chapter its roofline, per "
      "pair the explanation, a speedup chart (a tuning grid: a heatmap), the counters, the variants' table and "
      "their sample distributions; with --compare, every record's verdict and interval, regressions first. "
      "Charts by gnuplot (inline SVG); the page loads nothing and runs no script");
  cmd->add_option("profiles", a.profiles,
                  "Profiles to show (JSON files, or stored runs as for `compare --base`), each in its own section, in "
                  "this order (default: the newest stored run, named on one line). With a run store, the first "
                  "one's records get their trends over the stored runs, change points marked");
  cmd->add_option("--out", a.out, "The page to write, .html (default report.html); replaced atomically, the only file written");
  cmd->add_option(
      "--compare", a.base,
      "Base profile (a file, or a stored run as for `compare --base`): judge the records of exactly one "
      "PROFILE (or, with none given, of the newest stored run) against it as `gpubench compare BASE PROFILE` does, and "
      "show every verdict with its interval, regressions first, and where both sit on each record's "
      "trend. The report's exit code does not gate: use `gpubench compare` for that");
  cmd->add_option("--history", a.history, "With --compare: earlier runs of the base, as for `gpubench compare --history`")
      ->expected(1, -1);
  cmd->add_flag("--no-history", a.no_history, "With --compare: no history from the store, as for `gpubench compare`");
  add_db_option(cmd, a.db);
  cmd->add_option("--threshold", a.threshold_pct, "With --compare: the threshold in percent, as for `gpubench compare` (default 5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_flag("--force", a.force, "Replace a read-only --out or write through a symbolic link (refused otherwise, exit 2)");
  cmd->add_flag("-q,--quiet", a.quiet, "No progress line (there is none anyway when stderr is not a terminal)");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

namespace {

// What this binary's registry says about its pairs and chapters; a profile's pair that is not here
// simply has no explanation in the page.
void add_registry_notes(report_input& in) {
  for (const pair_def* p : registry::global().pairs()) {
    pair_notes n{p->title, p->explanation, {}, {}};
    for (const auto& v : p->variants) n.variants[v.name] = v.description;
    if (p->grid)
      for (const tuning_param& t : p->grid->params()) n.params[t.tag] = t.description;
    in.pairs[p->id()] = std::move(n);
  }
  for (const chapter_def& c : registry::global().chapters()) in.chapters[c.number] = c.title;
}

// One progress line for a terminal: no control characters (a file name may hold an escape
// sequence) and at most 78 columns, so it never wraps (a wrapped line cannot be cleared with \r).
std::string progress_text(const std::string& line) {
  const std::string shown = terminal_text(line);
  std::string out;
  std::size_t columns = 0;
  for (const char ch : shown) {
    if ((static_cast<unsigned char>(ch) & 0xc0) != 0x80 && ++columns > 77) return out + "…";  // code points, not bytes
    out += ch;
  }
  return out;
}

}  // namespace

int run_report(const report_args& a) {
  // Every refusal comes before any work: arguments, the output, gnuplot.
  if (!a.base.empty() && a.profiles.size() > 1)
    throw usage_error(fmt::format("report --compare BASE judges one profile against the base, and {} were given: pass "
                                  "exactly one PROFILE with --compare, or drop --compare to show them side by side",
                                  a.profiles.size()));
  if (a.base.empty() && (!a.history.empty() || a.threshold_pct || a.no_history))
    throw usage_error("report: --history, --no-history and --threshold go with --compare BASE");
  const fs::path out = a.out;
  const std::string ext = out.extension().string();
  if (ext != ".html" && ext != ".htm")
    throw usage_error(fmt::format("--out {}: the report is an HTML page; give a file name ending in .html", out.string()));
  check_writable(out, a.force, "report.html");
  std::vector<named_path> inputs;
  for (const auto& f : a.profiles) inputs.push_back({"the profile", f});
  if (!a.base.empty()) inputs.push_back({"the --compare base", a.base});
  for (const auto& f : a.history) inputs.push_back({"the --history run", f});
  check_outputs_distinct(inputs, {{"--out", a.out}});
  if (find_gnuplot().empty())
    throw usage_error("gnuplot not found on PATH: the report's charts are drawn by gnuplot; install it (Debian/Ubuntu: "
                      "apt-get install gnuplot-nox)");

  // Profiles come from files or the run store; each choice made for the user is printed on one line.
  const bool named = !a.profiles.empty() && std::all_of(a.profiles.begin(), a.profiles.end(), names_file) &&
                     (a.base.empty() || names_file(a.base)) &&
                     std::all_of(a.history.begin(), a.history.end(), names_file);
  const auto store = open_store_for_choices(a.db, named, "or report without it: --db none");
  report_input in;
  std::optional<compare_inputs> chosen;
  std::vector<chosen_profile> shown;
  if (!a.base.empty()) {
    chosen = choose_compare_inputs(store.get(), a.db, a.base, a.profiles.empty() ? std::string() : a.profiles[0],
                                   a.history, a.no_history, stdout);
    shown.push_back(chosen->next);
  } else if (a.profiles.empty()) {
    if (!store)
      throw usage_error(
          fmt::format("report: no profiles given (PROFILE...), and no newest run to take: {}", no_store_reason(a.db)));
    shown.push_back(newest_profile(*store, "report", stdout));
  } else {
    for (const auto& f : a.profiles) shown.push_back(resolve_profile(store.get(), f, "report", stdout));
  }
  for (const auto& c : shown) in.profiles.push_back({c.source, c.prof});
  if (store) in.trends = report_trends(*store, shown.front(), chosen ? &chosen->base : nullptr);
  if (chosen) {
    const profile& base = chosen->base.prof;
    const std::vector<profile>& history = chosen->history;
    compare_options o;
    if (a.threshold_pct) {
      o.threshold = *a.threshold_pct / 100;
      o.critical = std::max(o.critical, o.threshold);  // as `compare --threshold` alone does
    }
    in.compare = compare_profiles(base, in.profiles[0].prof, o, chosen->base.source, chosen->next.source, history,
                                  chosen->history_sources);
    in.trend_runs.push_back({chosen->base.source, base});
    for (std::size_t i = 0; i < history.size(); ++i) in.trend_runs.push_back({chosen->history_sources[i], history[i]});
  }
  add_registry_notes(in);
  in.generator = fmt::format("gpubench {}{}", version_string(), build_git_sha().empty() ? "" : " (" + build_git_sha() + ")");

  // A progress line only where someone watches it: a terminal, and not --quiet.
  const bool progress = !a.quiet && isatty(fileno(stderr)) != 0;
  const std::string html = html_report(in, [&](std::size_t done, std::size_t total, const std::string& what) {
    if (!progress) return;
    if (done < total) fmt::print(stderr, "\r\x1b[2K{}", progress_text(fmt::format("report: drawing {}/{}: {}…", done + 1, total, what)));
    else fmt::print(stderr, "\r\x1b[2K");
    std::fflush(stderr);
  });
  write_text_file(out.string(), html, a.force);
  std::size_t records = 0;
  for (const auto& p : in.profiles) records += p.prof.records.size();
  fmt::print("report: {} profile{}, {} records{}; wrote {} ({:.0f} kB)\n", in.profiles.size(),
             in.profiles.size() == 1 ? "" : "s", records,
             in.compare ? fmt::format(", {} compared with {}", in.compare->records.size(),
                                      terminal_text(in.compare->base_source))
                        : "",
             terminal_text(out.string()), static_cast<double>(html.size()) / 1000);
  return 0;
}

}  // namespace gpubench::app
