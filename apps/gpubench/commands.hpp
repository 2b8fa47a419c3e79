#pragma once
// One function pair per subcommand: add_X declares its options on the CLI11 app, run_X executes
// it after parsing. Each returns the process exit code or throws gpubench::error.
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "compare_output.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/worker_protocol.hpp"

namespace gpubench::app {

struct list_args {
  std::optional<int> chapter;
  bool json = false;
  bool brief = false;  ///< one line per pair
};
CLI::App* add_list(CLI::App& app, list_args& args);
int run_list(const list_args& args);

struct device_args {
  std::optional<int> device;
  bool json = false;
  bool ceilings = false;
  bool refresh = false;
};
CLI::App* add_device(CLI::App& app, device_args& args);
int run_device(const device_args& args);

struct run_args {
  std::vector<int> chapters;  ///< --chapter, repeatable (chapter_set puts them in order)
  std::vector<std::string> pairs;
  std::vector<std::string> axes;
  std::string out;
  bool quick = false;
  bool profile = false;
  bool smallest = false;
  bool quiet = false;
  std::optional<double> max_noise_pct;
  std::optional<int> min_samples;
  std::optional<double> min_time_s;
  std::optional<double> timeout_s;
  std::optional<int> rounds;
  std::optional<int> max_rounds;
  std::optional<double> rest;
  bool gpu_busy = false;
  std::optional<unsigned long long> seed;
  int device = 0;
  std::optional<std::string> metrics;  ///< --metrics[=SPEC]: "" or a spec; unset = no counters
  bool metrics_per_kernel = false;
  bool force = false;  ///< replace a read-only --out, write through a symlinked one
  std::vector<std::string> variants;  ///< --variant: time only these
  std::string confirm;                ///< --confirm BASE.json: re-measure would-be regressions in fresh processes
  std::optional<int> processes;       ///< --processes K: rounds spread over K worker processes
  bool no_replace = false;            ///< --no-replace: fresh rounds keep the allocator's placement
  std::string db;                     ///< --db: the run store ("" = GPUBENCH_DB or the default)
  std::vector<std::string> tags;      ///< --tag: names to record the run under in the store
};
CLI::App* add_run(CLI::App& app, run_args& args);
int run_run(const run_args& args, const std::vector<std::string>& argv);

/// The chapters given to a repeatable --chapter, ascending, each once. With more than one, --pair
/// is refused (usage_error): a pair's id already names its chapter.
std::vector<int> chapter_set(std::vector<int> chapters, const std::vector<std::string>& pairs);

/// The pairs a selection names (in `chapters`, or any chapter when empty), checked against the
/// registry with `o`'s axis overrides and variants filled in (usage_error naming the problem): what
/// `run` measures, and what a worker plans for `run --processes` and `ab`.
std::vector<const pair_def*> resolve_selection(const std::vector<int>& chapters, const std::vector<std::string>& pairs,
                                               const std::vector<std::string>& axes,
                                               const std::vector<std::string>& variants, run_options& o);

/// One worker selection per chapter of `chapters` (one for every chapter when empty), each with the
/// rest of the selection: a worker plans one chapter at a time (gpubench/worker_protocol.hpp).
std::vector<worker_selection> worker_selections(const std::vector<int>& chapters, const worker_selection& rest);

/// The whole `run` (checks, measurement, console, profile file) for reuse by other commands.
struct run_outcome {
  profile prof;
  int exit = 0;
};
/// `extra_check`: another output path to check for writability before the GPU is touched.
run_outcome execute_run(const run_args& args, const std::vector<std::string>& argv, const std::string& extra_check = {});

struct compare_args {
  std::string base, next;
  std::vector<std::string> history;
  std::vector<std::string> ab_history;  ///< earlier `ab` sessions' --json outputs
  std::optional<double> threshold_pct, critical_pct, alpha, noise_limit_pct;
  std::optional<double> deprecated_max_noise_pct;  ///< --max-noise, the old name of --noise-limit
  std::string fail_on = "slower";
  bool strict_device = false;
  bool allow_mixed = false;
  std::string markdown, junit, json;
  bool quiet = false;
  bool force = false;  ///< replace read-only report files, write through symbolic links
  std::string base_ref, new_ref;  ///< --base / --new REF: a file or a stored run
  bool no_history = false;        ///< --no-history: no history from the store
  std::string db;                 ///< --db: the run store
};
CLI::App* add_compare(CLI::App& app, compare_args& args);
int run_compare(const compare_args& args);

struct export_args {
  std::string profile;
  std::string format;
  std::string out = "-";
  bool force = false;
  bool per_sample = false;  ///< gbench: one row per sample instead of each record's aggregates
};
CLI::App* add_export(CLI::App& app, export_args& args);
int run_export(const export_args& args);

struct roofline_args {
  std::optional<int> chapter;
  std::vector<std::string> pairs;
  std::vector<std::string> from;
  std::string out;
  std::string format = "chart";
  std::string points = "counters";
  std::string group = "auto";
  bool quick = false;
  bool keep_script = false;
  bool force = false;
  std::string db;  ///< --db: the run store (the newest run is plotted without --from or --chapter)
};
CLI::App* add_roofline(CLI::App& app, roofline_args& args);
int run_roofline(const roofline_args& args, const std::vector<std::string>& argv);

struct report_args {
  std::vector<std::string> profiles;
  std::string out = "report.html";
  std::string base;                     ///< --compare: the base profile; empty = no comparison
  std::vector<std::string> history;     ///< --history, with --compare
  std::optional<double> threshold_pct;  ///< --threshold, with --compare
  bool force = false;
  bool quiet = false;
  bool no_history = false;  ///< --no-history: with --compare, no history from the store
  std::string db;           ///< --db: the run store (the newest run without PROFILE; trends)
};
CLI::App* add_report(CLI::App& app, report_args& args);
int run_report(const report_args& args);

struct metrics_args {
  bool list = false;
  bool json = false;
  std::string chip;         ///< check the sets against this chip (offline), e.g. GH100
  std::optional<int> device;
};
CLI::App* add_metrics(CLI::App& app, metrics_args& args);
int run_metrics(const metrics_args& args);

struct fleet_args {
  CLI::App *submit = nullptr, *begin = nullptr, *task = nullptr, *report = nullptr;
  std::string store;
  std::vector<std::string> run_args;  ///< after --: the arguments of `gpubench run`
  int nodes = 1, gpus_per_node = 1;
  std::string partition, account, time_limit, job_name, script, recorded_profile;
  std::vector<std::string> nodelist;
  bool dry_run = false;
  std::string job, html;                  ///< report
  std::optional<double> band_pct, alpha;  ///< report
  bool fail_on_flag = false, force = false;
};
CLI::App* add_fleet(CLI::App& app, fleet_args& args);
int run_fleet(const fleet_args& args);

struct collective_args {
  std::vector<std::string> pairs, axes;
  std::string out;
  bool quick = false, smallest = false, force = false;
  std::optional<int> rounds;
  std::optional<unsigned long long> seed;
};
CLI::App* add_collective(CLI::App& app, collective_args& args);
int run_collective(const collective_args& args, const std::vector<std::string>& argv);

struct worker_args {
  int device = 0;
};
CLI::App* add_worker(CLI::App& app, worker_args& args);
int run_worker(const worker_args& args);

struct ab_args {
  std::string base, next;     ///< the two builds' gpubench binaries
  std::vector<int> chapters;  ///< --chapter, repeatable
  std::vector<std::string> pairs, axes, variants;
  bool smallest = false;
  bool quick = false;  ///< the CI mode: other defaults for the options below that are not given
  std::optional<int> workers;
  bool no_pin = false;
  std::optional<int> cycles, max_cycles;
  std::optional<double> size_budget_s;
  std::optional<double> max_noise_pct, min_time_s, timeout_s, rest;
  std::optional<unsigned long long> seed;
  int device = 0;
  std::optional<double> threshold_pct, critical_pct, alpha, noise_limit_pct;
  std::string fail_on = "slower";
  comparison_outputs outputs;
  std::string out_base, out_new;
  std::vector<std::string> history;  ///< earlier sessions' --json comparisons
};
CLI::App* add_ab(CLI::App& app, ab_args& args);
int run_ab(const ab_args& args);

struct history_args {
  std::optional<int> chapter;
  std::string record;  ///< a record id or the start of one
  std::string gpu;     ///< a GPU model, or part of its name
  std::string ref;     ///< runs recorded under this branch or tag
  std::size_t limit = 20;
  bool changes = false;
  bool json = false;
  std::string db;
  // history import
  std::vector<std::string> paths;
  std::vector<std::string> tags;
  // history export
  std::string run;
  std::string out = "-";
  bool force = false;
};
struct history_commands {
  CLI::App* history = nullptr;
  CLI::App* import = nullptr;
  CLI::App* exporter = nullptr;
};
history_commands add_history(CLI::App& app, history_args& args);
int run_history(const history_commands& cmds, const history_args& args);

/// The exit-code table, shown in --help of every subcommand (and in the README).
extern const char* const kExitCodeFooter;

}  // namespace gpubench::app
