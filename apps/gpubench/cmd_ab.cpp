// `gpubench ab --base OLD --new NEW`: two builds measured side by side on one GPU, their rounds
// alternated in ABBA cycles, judged on the per-cycle differences (gpubench/coordinator.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "commands.hpp"
#include "compare_output.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/coordinator.hpp"
#include "gpubench/cpu_affinity.hpp"
#include "gpubench/error.hpp"
#include "gpubench/host_pages.hpp"
#include "gpubench/interrupt.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/pair_history.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/text_width.hpp"
#include "gpubench/worker_link.hpp"

namespace gpubench::app {

CLI::App* add_ab(CLI::App& app, ab_args& a) {
  auto* cmd = app.add_subcommand(
      "ab",
      "Measure two gpubench builds side by side on one GPU and compare them; the exit code gates CI like compare. "
      "Each build runs --workers long-lived worker processes; every size is verified in one worker of each build, "
      "then measured in ABBA cycles, one round of each build back to back on one pair of workers, and judged on "
      "the per-cycle differences, so what both builds share (host drift, clocks) cancels. Once they have planned a "
      "chapter, the workers each time a short graph replay in turn, and host-timed records are judged at equal "
      "levels of it (docs/measurement.md, \"The context's level\"). "
      "Cost: about 6 s to start 16 workers a build, then 32-64 cycles a size (up to 128 where cycles are cheap; "
      "fewer, on fewer pairs of workers, where they are long: --size-budget). On an H100, chapters 2-7 took "
      "4.6-10x a default run, chapter 1 146-197 s (21 sessions), and --quick over chapters 2-7 2.4-2.7x "
      "(docs/results/h100.md). The last lines before the verdicts say where the time went, and the cycle "
      "spread how noisy the machine was");
  cmd->add_option("--base", a.base, "The old build's gpubench binary")->required();
  cmd->add_option("--new", a.next, "The new build's gpubench binary")->required();
  cmd->add_option("--chapter", a.chapters,
                  "Chapter to measure (repeatable, or a comma-separated list such as 2,3): the workers start once "
                  "and measure the chapters in turn")
      ->delimiter(',')
      ->check(CLI::Range(1, 99));
  cmd->add_option("--pair", a.pairs, "Only this pair (repeatable; a name, or an id such as ch02/transpose)");
  cmd->add_option("--axis", a.axes, "Override a size axis: NAME=V1,V2 (repeatable)");
  cmd->add_option("--variant", a.variants, "Time only this variant (repeatable)");
  cmd->add_flag("--smallest", a.smallest, "Each pair at its smallest size only");
  cmd->add_flag("--quick", a.quick,
                "The CI mode, made to be run with --history from three or more earlier sessions on the same GPU "
                "model: --workers 6 --cycles 8 --max-cycles 32 --min-time 0.025 --timeout 0.5 --size-budget 4, "
                "each unless given. Fewer cycles, shorter rounds and fewer workers than the default: the "
                "between-process level limits most records, and the history pools it across sessions");
  cmd->add_option(
         "--workers", a.workers,
         "Worker processes per build (default 16; 6 with --quick). Each fresh round draws its memory placement "
         "(device buffers and host pages), its stream and its flush buffer's place afresh, but a process keeps a "
         "level of its own (its context, its host share) for all its rounds, so the between-process term comes "
         "from the disagreement of the pairs of workers, with K - 1 degrees of freedom: more workers narrow the "
         "interval where that term dominates, at about 0.6 s more to start and close each pair. Each worker keeps the "
         "size it set up for its first round; a size that does not fit twice this many times is set up again "
         "one worker at a time and built afresh for each round")
      ->check(CLI::Range(1, kAbMaxWorkersPerBuild));
  cmd->add_flag("--no-pin", a.no_pin,
                "Let the scheduler place the samples. By default both builds' rounds of a cycle take their "
                "samples on the same CPU, each pair of workers on its own, so that what a core does to "
                "host-side timing cancels in the cycle's difference");
  cmd->add_option("--cycles", a.cycles,
                  "Cycles per size, each one round of either build back to back (default 16, 8 with --quick; rounded "
                  "up to whole sweeps: every pair of workers once base first and once new first)")
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--max-cycles", a.max_cycles,
                  "Up to this many cycles, in whole sweeps, while the cycles' part of a record's error is above "
                  "--max-noise; past twice the planned cycles (--cycles rounded up to whole sweeps), only while twice "
                  "the cycles would also cut its variance, with the part its pairs of workers add, by a tenth; a size "
                  "whose rounds with one more sweep fit in a quarter of --size-budget goes on up to twice as many "
                  "(default 64; 32 with --quick)")
      ->check(CLI::Range(2, 1000));
  cmd->add_option("--size-budget", a.size_budget_s,
                  "From twice --cycles on (in whole sweeps), a size gets another sweep only while its rounds so far "
                  "and one more sweep fit in this many seconds (default 20; 4 with --quick). A size whose planned "
                  "cycles would not fit at its first cycle's pace gets only the whole sweeps that fit, at least one, "
                  "over fewer pairs of workers where one sweep over all would not fit (as many as fit, at least 3, "
                  "each once base first and once new first; the console names the size)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_option("--max-noise", a.max_noise_pct,
                  "Target for a paired center's standard error, percent (default 0.5); also each round's noise "
                  "target, widened by the square root of the planned cycles")
      ->check(CLI::Range(0.001, 100.0));
  cmd->add_option("--min-time", a.min_time_s,
                  "Minimum sampling time per variant and build, seconds (default 0.05; 0.025 with --quick)")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--timeout", a.timeout_s,
                  "Sampling time limit per variant and build, seconds (default 1; 0.5 with --quick)")
      ->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--rest", a.rest, "Rest after samples of 50 us or more, as in run (default 1)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--seed", a.seed, "Seed for the random inputs, the same in both builds (default: fresh)");
  cmd->add_option("--device", a.device, "CUDA device ordinal (default 0)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--threshold", a.threshold_pct,
                  "Warning threshold, percent (default 2: the paired cycles resolve smaller changes than two runs). "
                  "Host-timed launches resolve about 3-9%, so some stay inconclusive at 2; --threshold 4 judges "
                  "them")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--critical", a.critical_pct, "Critical threshold, percent (default 15)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--alpha", a.alpha,
                  "Family-wise error rate across each chapter's records (default 0.05): a command over several "
                  "chapters judges each as a command of that chapter alone would, so its records are no blunter")
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--noise-limit", a.noise_limit_pct,
                  "A side noisier than this (median noise, percent) is inconclusive (default 5)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--history", a.history,
                  "Earlier sessions' --json outputs on this GPU model (repeatable; the last five to ten do): a "
                  "record's spread between pairs of workers there, drawn from other workers, weighs up to 20 "
                  "degrees of freedom beside this session's K - 1 (a host-timed record's sessions half of theirs), "
                  "in place of the chapter's prior. Sessions of "
                  "another GPU model are left out, and the console says so")
      ->expected(1, -1);
  cmd->add_option("--fail-on", a.fail_on, "What fails the exit code: none, critical, slower (default), any")
      ->check(CLI::IsMember({"none", "critical", "slower", "any"}));
  cmd->add_option("--markdown", a.outputs.markdown, "Also write a markdown report here ('-' for stdout)");
  cmd->add_option("--junit", a.outputs.junit, "Also write JUnit XML here ('-' for stdout)");
  cmd->add_option("--json", a.outputs.json, "Also write the machine-readable comparison here ('-' for stdout)");
  cmd->add_option("--out-base", a.out_base, "Also write the base build's profile here (compare can re-judge it)");
  cmd->add_option("--out-new", a.out_new, "Also write the new build's profile here");
  cmd->add_flag("--force", a.outputs.force, "Replace read-only outputs or write through symbolic links");
  cmd->add_flag("-q,--quiet", a.outputs.quiet, "Hide records whose verdict is 'same'");
  cmd->footer(
      std::string("Cost: both builds set up every size in each of their workers (at the same time) and verify it in "
                  "one, then "
                  "each build samples about the budget `run` gives a record, split over the cycles, plus the cycles "
                  "added where records spread: a few times one `run` of the selection.\n\n") +
      kExitCodeFooter);
  return cmd;
}

namespace {

/// A program to start: an existing regular file this user may execute.
std::filesystem::path executable(const std::string& path, const char* flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || ::access(path.c_str(), X_OK) != 0)
    throw usage_error(fmt::format("ab {} {}: not an executable file; give the path of a gpubench binary (e.g. "
                                  "build/gpubench)",
                                  flag, path));
  return std::filesystem::absolute(path);
}

/// The options --quick gives other defaults: each the value given, else the mode's.
struct ab_settings {
  int workers = 16;
  int cycles = 16;
  int max_cycles = 64;
  double size_budget_s = 20;
  std::optional<double> min_time_s, timeout_s;  ///< empty: the sampling defaults
};

ab_settings settings_of(const ab_args& a) {
  ab_settings s;
  if (a.quick) {
    s = {.workers = 6, .cycles = 8, .max_cycles = 32, .size_budget_s = 4, .min_time_s = 0.025, .timeout_s = 0.5};
  }
  s.workers = a.workers.value_or(s.workers);
  s.cycles = a.cycles.value_or(s.cycles);
  s.max_cycles = a.max_cycles.value_or(s.max_cycles);
  s.size_budget_s = a.size_budget_s.value_or(s.size_budget_s);
  if (a.min_time_s) s.min_time_s = a.min_time_s;
  if (a.timeout_s) s.timeout_s = a.timeout_s;
  return s;
}

/// Where the rounds' samples ran, for the heading: "samples of each worker pair on one CPU of 0-7".
std::string where_sampled(const ab_args& a, int workers, const ab_plan& plan, const ab_cost& cost) {
  if (a.no_pin) return "samples where the scheduler put them (--no-pin)";
  if (plan.cpus.empty()) return "samples where the scheduler put them (no CPU list)";
  std::vector<int> used;
  for (int w = 0; w < workers; ++w) used.push_back(plan.cpus[static_cast<std::size_t>(w) % plan.cpus.size()]);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  const std::string cpus = cpu_list(used);
  if (cost.rounds_on_cpu == cost.rounds) return "samples of each worker pair on one CPU of " + cpus;
  return fmt::format("samples on one CPU of {} in {} of {} rounds (a build too old to hold them took the rest)", cpus,
                     cost.rounds_on_cpu, cost.rounds);
}

std::string new_session_id() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}", rd(), rd());
}

}  // namespace

int run_ab(const ab_args& a) {
  if (a.chapters.empty() && a.pairs.empty())
    throw usage_error("ab: choose what to measure: --chapter N or --pair ID such as ch02/transpose");
  const std::filesystem::path base = executable(a.base, "--base"), next = executable(a.next, "--new");
  check_comparison_outputs(a.outputs, {a.out_base, a.out_new});
  // No output may replace one of the builds or a --history file, nor another output
  // (gpubench/output_paths.hpp).
  std::vector<named_path> inputs{{"the --base build", a.base}, {"the --new build", a.next}};
  for (const std::string& h : a.history) inputs.push_back({"--history", h});
  check_outputs_distinct(inputs, {{"--markdown", a.outputs.markdown},
                                  {"--junit", a.outputs.junit},
                                  {"--json", a.outputs.json},
                                  {"--out-base", a.out_base},
                                  {"--out-new", a.out_new}});

  // Read and checked before any worker starts: a bad file costs nothing measured.
  const std::vector<std::filesystem::path> history_files(a.history.begin(), a.history.end());
  const pair_history history = read_pair_history(history_files);

  const std::vector<worker_selection> selections =
      worker_selections(a.chapters, {0, a.pairs, a.axes, a.variants, a.smallest});
  const ab_settings set = settings_of(a);
  worker_timing timing;
  if (a.max_noise_pct) timing.total.max_noise = *a.max_noise_pct / 100;
  if (set.min_time_s) timing.total.min_time_s = *set.min_time_s;
  if (set.timeout_s) timing.total.timeout_s = *set.timeout_s;
  if (a.rest) timing.rest_ratio = *a.rest;
  timing.seed = a.seed ? *a.seed : (std::uint64_t{std::random_device{}()} << 32 | std::random_device{}());
  ab_plan plan;
  plan.cycles = set.cycles;
  plan.max_cycles = std::max(set.cycles, set.max_cycles);
  plan.size_budget_s = set.size_budget_s;
  plan.target = timing.total.max_noise;
  // A worker that sleeps while the others take their rounds wakes on whichever core the scheduler
  // picks, and host-timed rounds then move between levels tens of percent apart; a cycle's two
  // rounds held on one core move together (docs/measurement.md, "Samples held on one CPU").
  if (!a.no_pin) plan.cpus = allowed_cpus();

  const std::vector<std::string> worker_args{"worker", "--device", std::to_string(a.device)};
  // Both builds' workers start with fresh host pages, whatever their version: each state's host
  // buffers get other pages, so their placement is a draw of the round, not a level of the process.
  const std::vector<std::string> worker_env = fresh_host_pages_environment();
  worker_processes owned;
  std::vector<worker_link*> base_links, next_links;
  for (int w = 0; w < set.workers; ++w) {
    base_links.push_back(&owned.start(base, worker_args, fmt::format("base worker {} ({})", w, a.base), worker_env));
    next_links.push_back(&owned.start(next, worker_args, fmt::format("new worker {} ({})", w, a.next), worker_env));
  }
  interrupt_guard on_ctrl_c("ab was interrupted; nothing was compared");
  const auto t0 = std::chrono::steady_clock::now();
  const bool live = ::isatty(STDERR_FILENO) && !a.outputs.quiet;
  std::string label;
  coordinator_progress progress;
  progress.item_begin = [&](std::size_t i, std::size_t n, const worker_item& item) {
    label = fmt::format("[{}/{}] {}", i + 1, n, item.key());
  };
  progress.phase = [&](const std::string& what) {
    if (live) fmt::print(stderr, "\r\033[K{}  {}", label, what);
  };
  ab_outcome out = measure_ab(base_links, next_links, selections, timing, plan, new_session_id(), progress);
  owned.let_go();  // they tear down their contexts while the comparison is written
  if (live) fmt::print(stderr, "\r\033[K");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (profile* p : {&out.base, &out.next}) {
    p->prov.started_at = now_utc_iso8601();
    p->prov.finished_at = p->prov.started_at;
  }
  if (!a.out_base.empty()) write_profile(a.out_base, out.base, a.outputs.force);
  if (!a.out_new.empty()) write_profile(a.out_new, out.next, a.outputs.force);

  std::size_t cycles_min = SIZE_MAX, cycles_max = 0;
  for (const record& r : out.base.records)
    if (!r.timing.rounds.empty()) {
      cycles_min = std::min(cycles_min, r.timing.rounds.size());
      cycles_max = std::max(cycles_max, r.timing.rounds.size());
    }
  std::FILE* report = comparison_report_stream(a.outputs);
  // Two paragraphs wrapped to the terminal: what ran, then where its time went.
  const std::size_t width = console_width(report);
  fmt::print(report, "{}",
             wrap_with_lead(
                 "ab: ",
                 fmt::format("{} vs {} on {}{}: {} workers per build, {}; {} to {} cycles per size, {:.1f} s",
                             out.base.prov.git_sha.empty() ? a.base : out.base.prov.git_sha,
                             out.next.prov.git_sha.empty() ? a.next : out.next.prov.git_sha, out.base.prov.device.name,
                             a.quick ? " (--quick)" : "", set.workers, where_sampled(a, set.workers, plan, out.cost),
                             cycles_max == 0 ? 0 : cycles_min, cycles_max, wall),
                 width, "/"));
  const ab_cost& cost = out.cost;
  std::string spent = fmt::format("{:.1f} s starting, {:.1f} s verifying, {:.1f} s warming, {:.1f} s closing; ",
                                  cost.starting_s, cost.verifying_s, cost.warming_s, cost.closing_s);
  // Builds from before "prepare" build every round's state inside the round.
  if (cost.prepares > 0)
    spent += fmt::format("{} cycles' fresh states built two at a time in {:.1f} s; ", cost.prepares, cost.preparing_s);
  spent += fmt::format("{} rounds in {:.1f} s: ", cost.rounds, cost.rounds_s);
  // A build from before workers reported their round's time leaves only the sampling known.
  if (cost.rounds_timed_inside == cost.rounds)
    spent +=
        fmt::format("{:.1f} s sampling, {:.1f} s fresh states and empty spans, {:.1f} s messages", cost.sampling_s,
                    std::max(0.0, cost.in_worker_s - cost.sampling_s), std::max(0.0, cost.rounds_s - cost.in_worker_s));
  else spent += fmt::format("{:.1f} s sampling", cost.sampling_s);
  fmt::print(report, "{}", wrap_with_lead("ab: ", spent, width));
  // A build from before "turn" starts each round's round-robin at its round's index.
  if (cost.rounds_turned < cost.rounds)
    fmt::print(report, "{}",
               wrap_with_lead("ab: ",
                              fmt::format("{} of {} rounds started their variants where asked; a build too old to "
                                          "be asked starts each round at another, so what a round's first samples "
                                          "pay may fall on different variants in the two builds (rebuild it)",
                                          cost.rounds_turned, cost.rounds),
                              width));
  for (const auto& key : out.only_in_base)
    fmt::print(report, "{}", wrap_with_lead("ab: ", "only the base build has " + key, width, "/,["));
  for (const auto& key : out.only_in_new)
    fmt::print(report, "{}", wrap_with_lead("ab: ", "only the new build has " + key, width, "/,["));
  for (const ab_fewer_pairs& f : out.on_fewer_pairs)
    fmt::print(report, "{}",
               wrap_with_lead("ab: ",
                              fmt::format("{} measured on {} of {} pairs of workers: all of them would take longer "
                                          "than --size-budget ({:g} s)",
                                          f.size, f.pairs, f.of, plan.size_budget_s),
                              width, "/,["));
  for (const auto& key : sizes_out_of_memory(out))
    fmt::print(report, "{}",
               wrap_with_lead("ab: ",
                              fmt::format("{} ran out of GPU memory with {} workers sharing the GPU; not judged. "
                                          "Fewer --workers leave each more memory",
                                          key, 2 * set.workers),
                              width, "/,["));

  compare_options o;
  if (history.sessions > 0) {
    pair_history_use use = use_pair_history(history, out.base.prov.device.name);
    o.pair_history = std::move(use.records);
    fmt::print(report, "{}", wrap_with_lead("ab: ", use.line, width));
  } else if (a.quick) {
    fmt::print(report, "{}",
               wrap_with_lead("ab: ",
                              fmt::format("--quick without --history: each record's between-process level rests on "
                                          "its own {} pairs of workers alone ({} degrees of freedom, fewer for sizes "
                                          "on fewer pairs); give --history with earlier sessions' --json files for "
                                          "the resolution the quick mode is made for",
                                          set.workers, set.workers - 1),
                              width));
  }
  o.threshold = a.threshold_pct ? *a.threshold_pct / 100 : 0.02;
  o.critical = a.critical_pct ? *a.critical_pct / 100 : std::max(0.15, o.threshold);
  if (a.alpha) o.alpha = *a.alpha;
  if (a.noise_limit_pct) o.noise_limit = *a.noise_limit_pct / 100;
  const comparison c = compare_profiles(out.base, out.next, o, "base " + a.base, "new " + a.next);
  return emit_comparison(c, a.outputs, a.fail_on, false);
}

}  // namespace gpubench::app
