// `gpubench export PROFILE --format F`: results for other tools (Google Benchmark JSON, Bencher) and people.
#include "commands.hpp"
#include "gpubench/export.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench::app {

CLI::App* add_export(CLI::App& app, export_args& a) {
  auto* cmd = app.add_subcommand("export", "Convert a profile: Google Benchmark JSON, Bencher BMF, CSV or markdown");
  cmd->add_option("profile", a.profile, "Profile to read (JSON)")->required();
  cmd->add_option("--format", a.format, "gbench (Google Benchmark JSON), bmf (Bencher), csv, markdown")
      ->required()
      ->check(CLI::IsMember({"gbench", "bmf", "csv", "markdown"}));
  cmd->add_option("--out", a.out, "Where to write (default '-': stdout); replaced atomically");
  cmd->add_flag("--force", a.force, "Replace a read-only --out or write through a symbolic link (refused otherwise, exit 2)");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

int run_export(const export_args& a) {
  if (a.out != "-") check_writable(a.out, a.force);
  const profile p = read_profile(a.profile);
  const std::string text = a.format == "gbench" ? export_gbench(p)
                           : a.format == "bmf"  ? export_bmf(p)
                           : a.format == "csv"  ? export_csv(p)
                                                : export_markdown(p);
  write_text_file(a.out, text, a.force);
  return 0;
}

}  // namespace gpubench::app
