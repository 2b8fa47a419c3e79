// `gpubench roofline`: a roofline chart (PNG/SVG via gnuplot) or table, from a fresh run or saved profiles.
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/error.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench::app {

CLI::App* add_roofline(CLI::App& app, roofline_args& a) {
  auto* cmd = app.add_subcommand("roofline", "Roofline chart (PNG or SVG through gnuplot) or table, from a fresh run "
                                             "(--chapter) or saved profiles (--from); works offline with --from");
  cmd->add_option("--from", a.from, "Saved profiles to plot (no GPU needed)")->expected(1, -1);
  cmd->add_option("--chapter", a.chapter, "Run this chapter first (writes <out stem>.json beside the image)")
      ->check(CLI::Range(1, 99));
  cmd->add_option("--pair", a.pairs, "With --chapter: only this pair (repeatable)");
  cmd->add_flag("--quick", a.quick, "With --chapter: the --quick measurement preset");
  cmd->add_option("--out", a.out,
                  "Image to write: .png or .svg (default roofline.png); the gnuplot script (.gp) and data (.dat) "
                  "are kept beside it so the chart can be restyled");
  cmd->add_option("--format", a.format, "chart (default) or table (text: bound roof and % of it per variant)")
      ->check(CLI::IsMember({"chart", "table"}));
  cmd->footer(kExitCodeFooter);
  return cmd;
}

int run_roofline(const roofline_args& a, const std::vector<std::string>& argv) {
  if (a.from.empty() == !a.chapter.has_value())
    throw usage_error("choose the data: --from PROFILE... (saved runs) or --chapter N (run it now)");
  const std::filesystem::path out = a.out.empty() ? std::filesystem::path("roofline.png") : std::filesystem::path(a.out);
  if (a.format == "chart") {
    const auto ext = out.extension().string();
    if (ext != ".png" && ext != ".svg")
      throw usage_error(fmt::format("--out {}: the image must end in .png or .svg", out.string()));
    check_writable(out);
  }
  std::vector<profile> profiles;
  std::vector<std::string> sources;
  int run_exit = 0;
  if (a.chapter) {
    run_args r;
    r.chapter = a.chapter;
    r.pairs = a.pairs;
    r.quick = a.quick;
    r.out = std::filesystem::path(out).replace_extension(".json").string();
    auto outcome = execute_run(r, argv, a.format == "chart" ? out.string() : std::string());
    run_exit = outcome.exit;
    profiles.push_back(std::move(outcome.prof));
    sources.push_back(r.out);
  } else {
    for (const auto& f : a.from) {
      profiles.push_back(read_profile(f));
      sources.push_back(f);
    }
  }
  const roofline_model m = build_roofline(profiles, sources);
  if (a.format == "table") {
    fmt::print("{}", roofline_table(m));
    return run_exit;
  }
  const render_result r = render_roofline(m, out);
  fmt::print("roofline: {} points, ceilings {}; script {}, data {}\n", m.points.size(), m.ceilings_source,
             r.script.string(), r.data.string());
  if (!r.image_written) throw runtime_error(r.message);
  fmt::print("image: {}\n", r.image.string());
  return run_exit;
}

}  // namespace gpubench::app
