// gpubench: parse, dispatch to one subcommand, map every error to the documented exit code.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string_view>

#include <fmt/format.h>

#include "commands.hpp"
#include "help_format.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/text_width.hpp"

namespace gpubench::app {
const char* const kExitCodeFooter =
    "Exit codes:\n"
    "  0   success\n"
    "  1   runtime failure (no device, CUDA error, a variant crashed)\n"
    "  2   usage or bad input\n"
    "  3   verification failed (a variant computed a different result)\n"
    "  4   compare: regression\n"
    "  5   compare: inconclusive (when gating on it)\n"
    "  130 run: interrupted by Ctrl-C (the profile keeps every size finished before it, with \"complete\": false)";
}  // namespace gpubench::app

int main(int argc, char** argv) {
  using namespace gpubench;
  CLI::App cli{"gpubench: baseline/optimized GPU pairs — verified, measured, profiled.", "gpubench"};
  // Before the subcommands: each takes its parent's formatter when it is added.
  cli.formatter(std::make_shared<app::wrapping_formatter>(console_width(stdout)));
  cli.set_version_flag("--version", fmt::format("gpubench {} ({})", version_string(),
                                               build_git_sha().empty() ? "unknown commit" : build_git_sha()));
  cli.require_subcommand(1);
  cli.footer(app::kExitCodeFooter);

  app::list_args list_args;
  app::device_args device_args;
  app::run_args run_args;
  app::compare_args compare_args;
  app::export_args export_args;
  app::roofline_args roofline_args;
  app::metrics_args metrics_args;
  app::report_args report_args;
  app::ab_args ab_args;
  app::worker_args worker_args;
  app::history_args history_args;
  auto* list = app::add_list(cli, list_args);
  auto* device = app::add_device(cli, device_args);
  auto* run = app::add_run(cli, run_args);
  auto* compare = app::add_compare(cli, compare_args);
  auto* exporter = app::add_export(cli, export_args);
  auto* roofline = app::add_roofline(cli, roofline_args);
  auto* metrics = app::add_metrics(cli, metrics_args);
  auto* report = app::add_report(cli, report_args);
  auto* ab = app::add_ab(cli, ab_args);
  auto* worker = app::add_worker(cli, worker_args);
  app::fleet_args fleet_args;
  auto* fleet = app::add_fleet(cli, fleet_args);
  app::collective_args collective_args;
  auto* collective = app::add_collective(cli, collective_args);
  const auto history = app::add_history(cli, history_args);

  // On a terminal an error wraps to its width (COLUMNS, else the terminal's) like the rest of the
  // console, continuation lines under its text; a path with no space breaks after a '/'. Off a
  // terminal it stays one line: a log is searched line by line, and `gpubench fleet task` keeps the
  // last line a run printed as the reason it failed.
  const auto print_error = [](std::string_view lead, std::string_view text) {
    if (isatty(fileno(stderr)) == 0) fmt::print(stderr, "{}{}\n", lead, text);
    else fmt::print(stderr, "{}", wrap_with_lead(lead, text, console_width(stderr), "/"));
  };
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 reports a mistyped command as "A subcommand is required"; name the word instead.
    if (argc > 1 && argv[1][0] != '-' && cli.get_subcommands([&](const CLI::App* s) { return s->get_name() == argv[1]; }).empty()) {
      print_error("gpubench: error: ",
                  fmt::format("unknown command '{}'; commands: list, device, run, compare, ab, export, roofline, "
                              "report, metrics, history, fleet, collective (see --help)",
                              terminal_text(argv[1])));
      return static_cast<int>(exit_code::usage);
    }
    if (e.get_exit_code() == 0) return cli.exit(e);  // --help, --version
    // CLI11's message may quote an argument (a file name): shown, not obeyed, like every name.
    print_error("gpubench: error: ", terminal_text(e.what()));
    fmt::print(stderr, "Run with --help for more information.\n");
    return static_cast<int>(exit_code::usage);
  }

  try {
    if (!registry::global().problems().empty()) {
      for (const auto& p : registry::global().problems()) fmt::print(stderr, "gpubench: invalid pair declaration: {}\n", p);
      return static_cast<int>(exit_code::runtime_failure);
    }
    if (list->parsed()) return app::run_list(list_args);
    if (device->parsed()) return app::run_device(device_args);
    if (run->parsed()) return app::run_run(run_args, std::vector<std::string>(argv, argv + argc));
    if (compare->parsed()) return app::run_compare(compare_args);
    if (exporter->parsed()) return app::run_export(export_args);
    if (roofline->parsed()) return app::run_roofline(roofline_args, std::vector<std::string>(argv, argv + argc));
    if (metrics->parsed()) return app::run_metrics(metrics_args);
    if (report->parsed()) return app::run_report(report_args);
    if (ab->parsed()) return app::run_ab(ab_args);
    if (worker->parsed()) return app::run_worker(worker_args);
    if (fleet->parsed()) return app::run_fleet(fleet_args);
    if (collective->parsed()) return app::run_collective(collective_args, std::vector<std::string>(argv, argv + argc));
    if (history.history->parsed()) return app::run_history(history, history_args);
    return static_cast<int>(exit_code::usage);
  } catch (const error& e) {
    std::fflush(stdout);
    // Messages name files and profile fields: every control byte shown as an escape.
    print_error("gpubench: error: ", terminal_text(e.what()));
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fflush(stdout);
    print_error("gpubench: unexpected error: ", terminal_text(e.what()));
    return static_cast<int>(exit_code::runtime_failure);
  }
}
