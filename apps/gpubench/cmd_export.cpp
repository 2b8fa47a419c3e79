// `gpubench export PROFILE --format F`: results for other tools (Google Benchmark JSON, Bencher) and people.
#include <string_view>

#include "commands.hpp"
#include "gpubench/error.hpp"
#include "gpubench/export.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench::app {

CLI::App* add_export(CLI::App& app, export_args& a) {
  auto* cmd = app.add_subcommand("export", "Convert a profile: Google Benchmark JSON, Bencher BMF, CSV or markdown");
  cmd->add_option("profile", a.profile, "Profile to read (JSON)")->required();
  cmd->add_option("--format", a.format, "gbench (Google Benchmark JSON), bmf (Bencher), csv, markdown")
      ->required()
      ->check(CLI::IsMember({"gbench", "bmf", "csv", "markdown"}));
  cmd->add_option("--out", a.out, "Where to write (default '-': stdout); replaced atomically");
  cmd->add_flag("--per-sample", a.per_sample,
                "gbench: one iteration row per sample (as --benchmark_repetitions=N writes them, for compare.py's U "
                "test) instead of each record's mean, median, stddev and cv; streamed, but as large as the samples");
  cmd->add_flag("--force", a.force, "Replace a read-only --out or write through a symbolic link (refused otherwise, exit 2)");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

int run_export(const export_args& a) {
  const char* example = a.format == "csv" ? "results.csv" : a.format == "markdown" ? "results.md" : "results.json";
  if (a.out != "-") check_writable(a.out, a.force, example);
  check_outputs_distinct({{"the profile", a.profile}}, {{"--out", a.out}});
  if (a.per_sample && a.format != "gbench")
    throw usage_error("export: --per-sample goes with --format gbench (the other formats hold each record's summary)");
  const profile p = read_profile(a.profile);
  if (a.format == "gbench") {
    // Streamed: with --per-sample a record of a million samples is a million rows.
    atomic_text_output out(a.out, a.force);
    write_gbench(p, a.per_sample ? gbench_rows::samples : gbench_rows::aggregates,
                 [&](std::string_view piece) { out.write(piece); });
    out.commit();
    return 0;
  }
  const std::string text = a.format == "bmf" ? export_bmf(p) : a.format == "csv" ? export_csv(p) : export_markdown(p);
  write_text_file(a.out, text, a.force);
  return 0;
}

}  // namespace gpubench::app
