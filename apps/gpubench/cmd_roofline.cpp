// `gpubench roofline`: a roofline chart (PNG/SVG via gnuplot) or table, from a fresh run or saved profiles.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/text_file.hpp"
#include "gpubench/text_width.hpp"
#include "store_choice.hpp"

namespace gpubench::app {

namespace fs = std::filesystem;

CLI::App* add_roofline(CLI::App& app, roofline_args& a) {
  auto* cmd = app.add_subcommand("roofline", "Roofline chart (PNG or SVG through gnuplot) or table, from a fresh run "
                                             "(--chapter), saved profiles (--from), or else the newest stored run; "
                                             "works offline");
  cmd->add_option("--from", a.from,
                  "Saved profiles to plot (no GPU needed): files, or stored runs as for `compare --base` (#ID, a "
                  "git sha, a branch or tag). Without --from and --chapter: the newest run in the store on this "
                  "GPU (else from this host, else any), named on one line")
      ->expected(1, -1);
  cmd->add_option("--chapter", a.chapter,
                  "Run this chapter first and save its profile as <out stem>.json beside the image (refused if "
                  "that file exists, unless --force)")
      ->check(CLI::Range(1, 99));
  cmd->add_option("--pair", a.pairs, "With --chapter: only this pair (repeatable)");
  cmd->add_flag("--quick", a.quick, "With --chapter: the --quick measurement preset");
  cmd->add_option("--out", a.out,
                  "Image to write: .png or .svg (default roofline.png); replaced atomically, and the only file "
                  "written unless --keep-script or --chapter");
  cmd->add_flag("--keep-script", a.keep_script,
                "Also write the gnuplot script (<out stem>.gp) and its data (<out stem>.dat) beside the image, "
                "to restyle and re-run the chart");
  cmd->add_flag("--force", a.force,
                "Replace output files that are read-only or exist already (<out stem>.json of --chapter), and "
                "write through symbolic links; without it these are refused (exit 2)");
  cmd->add_option("--format", a.format, "chart (default) or table (text: bound roof and % of it per variant)")
      ->check(CLI::IsMember({"chart", "table"}));
  cmd->add_option("--points", a.points,
                  "Where points come from: counters (default: counted FLOPs and DRAM bytes where the profile has "
                  "them, from run --metrics, else the work model), model (always the declared work), or both "
                  "(counted points, each tied to its work-model placement)")
      ->check(CLI::IsMember({"counters", "model", "both"}));
  cmd->add_option("--group", a.group,
                  "Panels (small multiples), each with its own axes and legend: auto (default: one panel up to 12 "
                  "series, else one per chapter, or per pair within one chapter), none, pair or chapter")
      ->check(CLI::IsMember({"auto", "none", "pair", "chapter"}));
  add_db_option(cmd, a.db);
  cmd->footer(kExitCodeFooter);
  return cmd;
}

int run_roofline(const roofline_args& a, const std::vector<std::string>& argv) {
  if (!a.from.empty() && a.chapter)
    throw usage_error("choose the data: --from PROFILE... (saved runs) or --chapter N (run it now), not both");
  const fs::path out = a.out.empty() ? fs::path("roofline.png") : fs::path(a.out);
  const bool chart = a.format == "chart";
  // Everything the chart needs is checked before a chapter is measured: gnuplot and every output.
  if (chart) {
    const auto ext = out.extension().string();
    if (ext != ".png" && ext != ".svg")
      throw usage_error(fmt::format("--out {}: the image must end in .png or .svg", out.string()));
    check_writable(out, a.force, "roofline" + out.extension().string());
    if (a.keep_script) {
      check_writable(fs::path(out).replace_extension(".gp"), a.force);
      check_writable(fs::path(out).replace_extension(".dat"), a.force);
    }
    if (find_gnuplot().empty())
      throw usage_error("gnuplot not found on PATH: install it (Debian/Ubuntu: apt-get install gnuplot-nox), or use "
                        "--format table for the roofline as text");
    // The image, its script and data, and --chapter's profile: none may be a profile read, nor each other.
    std::vector<named_path> inputs, outputs = {{"--out", out.string()}};
    for (const auto& f : a.from) inputs.push_back({"the --from profile", f});
    if (a.keep_script) {
      outputs.push_back({"the kept script", fs::path(out).replace_extension(".gp").string()});
      outputs.push_back({"the kept data", fs::path(out).replace_extension(".dat").string()});
    }
    if (a.chapter) outputs.push_back({"the --chapter profile", fs::path(out).replace_extension(".json").string()});
    check_outputs_distinct(inputs, outputs);
  }
  std::vector<profile> profiles;
  std::vector<std::string> sources;
  int run_exit = 0;
  if (a.chapter) {
    run_args r;
    r.chapters = {*a.chapter};
    r.pairs = a.pairs;
    r.quick = a.quick;
    r.force = a.force;
    r.db = a.db;
    r.out = fs::path(out).replace_extension(".json").string();
    // The profile is a file the user named only through --out's stem: never replace one of theirs.
    std::error_code ec;
    if (fs::exists(fs::symlink_status(r.out, ec)) && !a.force)
      throw usage_error(fmt::format("--chapter saves the measured profile as {}, which exists already: choose another "
                                    "--out, move the file away, or add --force to replace it", r.out));
    auto outcome = execute_run(r, argv);
    run_exit = outcome.exit;
    profiles.push_back(std::move(outcome.prof));
    sources.push_back(r.out);
  } else {
    // Choices made for the user (stored runs) are printed, one line each, before the chart's lines.
    // The store is opened only when a name is not a file: a broken store does not stop plotting files.
    std::error_code ec;
    const bool all_files = !a.from.empty() && std::all_of(a.from.begin(), a.from.end(), [&](const std::string& f) {
      return fs::exists(fs::symlink_status(f, ec));
    });
    std::unique_ptr<run_store> store = all_files ? nullptr : open_store_if_present(a.db);
    if (a.from.empty()) {
      if (!store)
        throw usage_error(fmt::format("nothing to plot: no --from PROFILE, no --chapter N, and no newest run to "
                                      "take: {}",
                                      no_store_reason(a.db)));
      // The newest run with something to plot: a run of transfers alone has no point on a roofline.
      const auto [runs, why] = machine_runs(*store, 100);
      for (std::size_t i = 0; i < runs.size() && profiles.empty(); ++i) {
        const profile p = store->load(runs[i].id);
        try {
          (void)build_roofline({p}, {"run"}, {});
        } catch (const error&) {
          continue;
        }
        if (i > 0)
          fmt::print("{}\n", fit_line(fmt::format("note: run #{} has no record to place on a roofline (FLOPs and DRAM "
                                                  "bytes)",
                                                  runs.front().id)));
        chosen_profile c = choose_run(*store, runs[i], "roofline", i == 0 ? why : "the newest with a roofline", stdout);
        profiles.push_back(std::move(c.prof));
        sources.push_back(c.source);
      }
      if (profiles.empty())
        throw usage_error(fmt::format("roofline: none of the {} newest runs in the run store {} has a record with both "
                                      "FLOPs and DRAM bytes to plot: give --from PROFILE or --chapter N",
                                      runs.size(), store->location().display()));
    }
    for (const auto& f : a.from) {
      chosen_profile c = resolve_profile(store.get(), f, "roofline", stdout);
      profiles.push_back(std::move(c.prof));
      sources.push_back(f);
    }
  }
  const roofline_options options{.points = a.points == "model" ? points_mode::model
                                           : a.points == "both" ? points_mode::both
                                                                : points_mode::counters};
  const roofline_model m = build_roofline(profiles, sources, options);
  if (!chart) {
    fmt::print("{}", roofline_table(m, console_width(stdout)));
    return run_exit;
  }
  const chart_group group = a.group == "none" ? chart_group::none
                            : a.group == "pair" ? chart_group::pair
                            : a.group == "chapter" ? chart_group::chapter
                                                   : chart_group::automatic;
  const render_result r = render_roofline(m, out, {.keep_script = a.keep_script, .force = a.force, .group = group});
  fmt::print("roofline: {} points, ceilings {}{}\n", m.points.size(), terminal_text(m.ceilings_source),
             r.script.empty() ? ""
                              : fmt::format("; script {}, data {}", terminal_text(r.script.string()),
                                            terminal_text(r.data.string())));
  if (!r.image_written) throw runtime_error(r.message);
  fmt::print("image: {}\n", terminal_text(r.image.string()));
  return run_exit;
}

}  // namespace gpubench::app
