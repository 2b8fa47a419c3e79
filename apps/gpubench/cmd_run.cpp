// `gpubench run`: select pairs, measure them, print the results, keep the profile up to date.
#include <algorithm>
#include <optional>
#include <random>
#include <cstdio>
#include <ctime>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/confirm.hpp"
#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/interrupt.hpp"
#include "gpubench/metrics.hpp"
#include "gpubench/output_paths.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/sampling.hpp"
#include "run_processes.hpp"
#include "gpubench/text_file.hpp"
#include "gpubench/text_width.hpp"
#include "store_choice.hpp"

namespace gpubench::app {

CLI::App* add_run(CLI::App& app, run_args& a) {
  auto* cmd = app.add_subcommand("run", "Verify and measure pairs; write a JSON profile");
  cmd->add_option("--chapter", a.chapters,
                  "Chapter to run (repeatable, or a comma-separated list such as 2,3; see `gpubench list`)")
      ->delimiter(',')
      ->check(CLI::Range(1, 99));
  cmd->add_option("--pair", a.pairs, "Only this pair (repeatable; a name, or an id such as ch01/batched_gemm)");
  cmd->add_option("--axis", a.axes, "Override a size axis: NAME=V1,V2 (repeatable), e.g. --axis size_mib=1,64");
  cmd->add_option(
      "--out", a.out,
      "Profile to write (default gpubench-<UTC time>.json; '-' writes it to stdout and the report "
      "to stderr). Rewritten atomically after every size (a host-timed size once its last round is taken), so an "
      "interrupted run keeps what it finished");
  cmd->add_flag("--force", a.force, "Replace a read-only --out or write through a symbolic link (refused otherwise, exit 2)");
  cmd->add_flag("--quick", a.quick, "Fast, looser measurement: 2% noise target, >=5 samples, 0.2 s per variant, one round");
  cmd->add_option("--max-noise", a.max_noise_pct,
                  "Stop sampling once the median's relative standard error is below PCT percent (default 0.5)")
      ->check(CLI::Range(0.001, 100.0));
  cmd->add_option("--min-samples", a.min_samples, "Minimum samples per variant (default 10)")->check(CLI::Range(1, 1000000));
  cmd->add_option("--min-time", a.min_time_s, "Minimum sampling time per variant, seconds (default 0.05)")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--timeout", a.timeout_s, "Per-variant sampling time limit, seconds (default 1; at least 3 samples)")
      ->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--rounds", a.rounds,
                  "Independent rounds per size: fresh buffers each round, variants sampled in turn; compare "
                  "judges the spread between rounds (default 3, --quick 1). The limits above are shared by the rounds")
      ->check(CLI::Range(1, 100));
  cmd->add_option(
         "--max-rounds", a.max_rounds,
         fmt::format(
             "Up to N rounds for a device-timed size whose round medians still spread: after --rounds (2 or more),"
             " one more round while a variant's center (the mean of its round log medians) is known to be worse "
             "than --max-noise; an added round keeps a planned round's noise target and counts but not --min-time "
             "(default {}, --quick 1; N at or below --rounds: exactly --rounds). Host-timed pairs and bytes over "
             "PCIe or between GPUs get exactly --rounds: their rounds agree while processes differ",
             run_options{}.max_rounds))
      ->check(CLI::Range(1, 100));
  cmd->add_option("--rest", a.rest,
                  fmt::format("After each sample of {:g} us or more the GPU rests (one thread napping: awake, little "
                              "power) for RATIO times that sample's time, so long tensor-core work is timed below the "
                              "power cap, as ncu and a fresh GPU see it (default {:g}; 0: back to back, the "
                              "power-capped sustained speed). The rests count toward --min-time and --timeout. Pairs "
                              "whose bytes cross PCIe do not rest",
                              schedule_options{}.rest_after_s * 1e6, run_options{}.rest_ratio))
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_flag("--gpu-busy", a.gpu_busy,
                "Report device-timed records as GPU busy time from CUPTI activity records (the event span kept "
                "beside it) instead of the event span less the empty span. CUPTI instruments kernels to "
                "timestamp them (pre-Blackwell), which slows kernels of very many blocks: see docs/measurement.md, "
                "\"GPU busy time\"");
  cmd->add_flag("--profile", a.profile,
                "Run each variant once (verified, untimed, NVTX range named like the record id; the L2 read out "
                "first for a cold-cache pair, as before a timed sample) for use under ncu or nsys");
  cmd->add_flag("--smallest", a.smallest,
                "Run each pair only at its smallest size (every label kept): a quick smoke test, or a "
                "run under compute-sanitizer");
  cmd->add_option_function<std::vector<std::string>>(
         "--metrics", [&a](const std::vector<std::string>& v) { a.metrics = v.empty() ? std::string() : v.front(); },
         "Also collect hardware counters (CUPTI), in a pass after timing: --metrics = the default set; "
         "--metrics=SET[,SET|RAW...] with sets from `gpubench metrics --list` or raw CUPTI names such as "
         "dram__bytes_read.sum. Needs counter permission (see docs/counters.md); skipped under ncu/nsys")
      ->expected(0, 1);
  cmd->add_flag("--metrics-per-kernel", a.metrics_per_kernel,
                "With --metrics: also a per-kernel breakdown (a second collection, one CUPTI range per kernel)");
  cmd->add_option("--variant", a.variants,
                  "Time only this variant (repeatable); the baseline still runs once as the reference the "
                  "variant is verified against, untimed unless named too");
  cmd->add_option("--confirm", a.confirm,
                  "BASE.json: after the run, compare with BASE; re-measure each record that compare would call "
                  "slower, or whose interval reaches past the threshold, alone in a fresh gpubench process, and "
                  "add its rounds to the record before the profile is written (false alarms must then happen "
                  "twice; see docs/measurement.md, \"Confirm before failing\")");
  cmd->add_option("--processes", a.processes,
                  "Spread each size's rounds over K worker processes of this gpubench, one round at a time, so "
                  "that compare measures each record's between-process spread from its own rounds instead of "
                  "assuming a fitted floor (at least one round per process; whole sweeps over the processes are "
                  "added while a center is unsettled). Every process sets each size up and the first verifies it. "
                  "Host-timed records keep at least the fitted host term: the processes of one run share the "
                  "host's speed")
      ->check(CLI::Range(2, 16));
  cmd->add_flag("--no-replace", a.no_replace,
                "Build each fresh round's buffers without the random spacer that moves them to other pages (the "
                "allocator then hands back the same few places, and placement shows only between processes); "
                "with --processes, the workers also keep the C library's reuse of freed host pages");
  add_db_option(cmd, a.db)->description(
      "Record the finished run in this run store (docs/store.md): a SQLite file, a postgresql://USER@HOST/DB URL, "
      "or 'none' not to record it (default: $GPUBENCH_DB, else $XDG_DATA_HOME/gpubench/runs.db or "
      "~/.local/share/gpubench/runs.db). A lock held by another writer is waited for GPUBENCH_DB_TIMEOUT seconds "
      "(default 30), then exit 2");
  cmd->add_option("--tag", a.tags,
                  "Also record the run under this name (repeatable), for `compare --base NAME`; the branch comes "
                  "from the CI (GITHUB_REF_NAME, CI_COMMIT_REF_NAME, GPUBENCH_REF) or the git checkout");
  cmd->add_option("--seed", a.seed, "Seed for the random inputs (default: fresh each run; recorded in the profile)");
  cmd->add_option("--device", a.device, "CUDA device ordinal (default 0)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("-q,--quiet", a.quiet, "Print only failures and the final summary");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

namespace {

std::string default_out_path() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "gpubench-%Y%m%d-%H%M%S.json", &tm);
  return buf;
}

/// Rewrites the profile after every size so a crash or Ctrl-C keeps what was measured, and keeps
/// the Ctrl-C message true to what the file holds.
class profile_sink : public run_observer {
 public:
  profile_sink(profile& p, std::string path, interrupt_guard& guard, bool force)
      : p_(p), path_(std::move(path)), guard_(guard), force_(force) {}
  void size_end(const pair_def& /*pair*/, const std::vector<record>& records) override {
    p_.records.insert(p_.records.end(), records.begin(), records.end());
    if (path_ != "-") write(p_.records.size());
  }
  /// Writes the profile; `records` is how many a Ctrl-C message may say it holds.
  void write(std::size_t records) {
    guard_.begin_write(written_ == 0 ? std::string("no profile was written")
                                     : fmt::format("{} keeps the {} records written before", path_, written_));
    try {
      write_profile(path_, p_, force_);
    } catch (...) {
      guard_.end_write(message());
      throw;
    }
    written_ = records;
    guard_.end_write(message());
  }

 private:
  [[nodiscard]] std::string message() const {
    if (written_ == 0) return "no size was finished, so no profile was written";
    if (p_.complete) return fmt::format("the run had finished; its profile ({} records) is in {}", written_, path_);
    return fmt::format("the partial profile ({} records, \"complete\": false) is kept in {}", written_, path_);
  }
  profile& p_;
  std::string path_;
  interrupt_guard& guard_;
  bool force_;
  std::size_t written_ = 0;
};

nlohmann::ordered_json options_json(const run_args& a, const run_options& o) {
  nlohmann::ordered_json j;
  // One chapter as its number, several as a list, none as null.
  const std::vector<int> chapters = chapter_set(a.chapters, a.pairs);
  j["chapter"] = chapters.empty()       ? nlohmann::ordered_json(nullptr)
                 : chapters.size() == 1 ? nlohmann::ordered_json(chapters.front())
                                        : nlohmann::ordered_json(chapters);
  j["pairs"] = a.pairs;
  j["axes"] = a.axes;
  j["quick"] = a.quick;
  j["smallest"] = a.smallest;
  if (!a.variants.empty()) j["variants"] = a.variants;
  j["mode"] = o.profile_mode ? "profile" : "measure";
  j["max_noise"] = o.stopping.max_noise;
  j["min_samples"] = o.stopping.min_samples;
  j["min_time_s"] = o.stopping.min_time_s;
  j["timeout_s"] = o.stopping.timeout_s;
  j["max_samples"] = o.stopping.max_samples;
  j["warmup_runs"] = o.warmup_runs;
  j["rounds"] = o.rounds;
  j["max_rounds"] = std::max(o.rounds, o.max_rounds);
  j["rest_ratio"] = o.rest_ratio;
  j["gpu_busy_time"] = o.gpu_busy_time;
  j["replace_memory"] = o.replace_memory;
  if (a.processes) j["processes"] = *a.processes;
  j["seed"] = o.seed;
  j["device"] = a.device;
  if (!o.metrics.empty()) {
    j["metrics"] = o.metrics;
    j["metrics_per_kernel"] = o.metrics_per_kernel;
  }
  return j;
}

}  // namespace

std::vector<int> chapter_set(std::vector<int> chapters, const std::vector<std::string>& pairs) {
  std::sort(chapters.begin(), chapters.end());
  chapters.erase(std::unique(chapters.begin(), chapters.end()), chapters.end());
  if (chapters.size() > 1 && !pairs.empty())
    throw usage_error("--pair with more than one --chapter: give the pairs alone (an id such as ch02/transpose names "
                      "its chapter), or one --chapter");
  return chapters;
}

std::vector<const pair_def*> resolve_selection(const std::vector<int>& chapters, const std::vector<std::string>& names,
                                               const std::vector<std::string>& axes,
                                               const std::vector<std::string>& variants, run_options& o) {
  // select() matches a name or a full id such as ch01/batched_gemm (whose chapter must then match).
  std::vector<const pair_def*> pairs;
  if (chapters.empty()) pairs = registry::global().select(std::nullopt, names);
  for (int c : chapter_set(chapters, names)) {
    const std::vector<const pair_def*> in = registry::global().select(c, names);
    pairs.insert(pairs.end(), in.begin(), in.end());
  }
  for (const auto& text : axes) {
    auto ov = parse_axis_override(text);
    bool known = false;
    for (const auto* p : pairs)
      for (const auto& ax : p->axes) known = known || ax.name == ov.name;
    if (!known) throw usage_error(fmt::format("--axis {}: none of the selected pairs has an axis '{}'; `gpubench list` shows them", text, ov.name));
    for (const auto* p : pairs) (void)apply_overrides(p->axes, {ov}, p->id());  // validates the values now
    o.axis_overrides.push_back(std::move(ov));
  }
  for (const auto& v : variants) {
    bool known = false;
    std::string all;
    for (const auto* p : pairs)
      for (const auto& var : p->variants) {
        known = known || var.name == v;
        all += (all.empty() ? "" : ", ") + var.name;
      }
    if (!known) throw usage_error(fmt::format("--variant {}: no selected pair has it (they have: {})", v, all));
  }
  o.only_variants = variants;
  // --variant narrows the pairs too: one with none of the named variants would only run its reference.
  if (!variants.empty())
    std::erase_if(pairs, [&](const pair_def* p) {
      return std::none_of(p->variants.begin(), p->variants.end(), [&](const variant_def& v) {
        return std::find(variants.begin(), variants.end(), v.name) != variants.end();
      });
    });
  return pairs;
}

std::vector<worker_selection> worker_selections(const std::vector<int>& chapters, const worker_selection& rest) {
  std::vector<worker_selection> out;
  for (int c : chapter_set(chapters, rest.pairs)) {
    out.push_back(rest);
    out.back().chapter = c;
  }
  if (out.empty()) out.push_back(rest);
  return out;
}

run_outcome execute_run(const run_args& a, const std::vector<std::string>& argv, const std::string& extra_check) {
  if (a.chapters.empty() && a.pairs.empty())
    throw usage_error("choose what to run: --chapter N (see `gpubench list`) or --pair ID such as ch01/batched_gemm");

  // Everything that can be checked without the GPU is checked first: names, sizes, the output path.
  run_options o = a.quick ? run_options::quick() : run_options{};
  if (a.max_noise_pct) o.stopping.max_noise = *a.max_noise_pct / 100.0;
  if (a.min_samples) o.stopping.min_samples = *a.min_samples;
  if (a.min_time_s) o.stopping.min_time_s = *a.min_time_s;
  if (a.timeout_s) o.stopping.timeout_s = *a.timeout_s;
  if (a.rounds) o.rounds = *a.rounds;
  if (a.max_rounds) o.max_rounds = *a.max_rounds;
  if (a.rest) o.rest_ratio = *a.rest;
  o.gpu_busy_time = a.gpu_busy;
  o.replace_memory = !a.no_replace;
  if (a.seed) o.seed = *a.seed;
  o.profile_mode = a.profile;
  o.smallest = a.smallest;
  if (a.metrics) {
    o.metrics = resolve_metrics(*a.metrics);  // usage errors before the GPU is touched
    o.metrics_per_kernel = a.metrics_per_kernel;
    if (a.profile)
      throw usage_error("--metrics collects counters itself; --profile is for running under ncu/nsys: choose one");
  } else if (a.metrics_per_kernel) {
    throw usage_error("--metrics-per-kernel needs --metrics");
  }
  if (a.processes && a.profile)
    throw usage_error("--processes spreads timed rounds over processes; --profile runs each variant once, untimed: "
                      "choose one");
  const auto pairs = resolve_selection(a.chapters, a.pairs, a.axes, a.variants, o);
  // A whole chapter asked for, with pairs this build left out: say which and why (exit code unchanged).
  if (a.pairs.empty())
    for (int c : chapter_set(a.chapters, a.pairs))
      for (const auto* absent : registry::global().absent(c))
        fmt::print(stderr, "gpubench: note: {} is not in this build: {}\n", absent->id(), absent->reason);
  std::optional<profile> confirm_base;
  if (!a.confirm.empty()) {
    if (a.profile) throw usage_error("--confirm re-measures timed records; --profile runs untimed: choose one");
    confirm_base = read_profile(a.confirm);  // a bad base is the user's mistake, found before the GPU work
  }
  const std::string out_path = a.out.empty() ? default_out_path() : a.out;
  if (out_path != "-") check_writable(out_path, a.force);
  if (!extra_check.empty()) check_writable(extra_check);
  check_outputs_distinct({{"the --confirm base", a.confirm}}, {{"--out", out_path}});

  // The workers and this process must measure the same inputs: a seed chosen here, once.
  if (a.processes && o.seed == 0) o.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32);
  std::optional<runner> in_process;
  std::optional<process_pool> pool;
  if (a.processes) {
    pool.emplace(*a.processes, a.device, o,
                 worker_selections(a.chapters, {0, a.pairs, a.axes, a.variants, a.smallest}));
  } else {
    in_process.emplace(a.device, o);  // throws (exit 1) with a plain message when there is no GPU
    o = in_process->options();        // the seed it picked
  }
  const device_info& dev = pool ? pool->device() : in_process->device();
  run_recorder recorder = prepare_recording(a.db, a.tags);  // a store that cannot be written fails before measuring
  profile prof;
  prof.prov.gpubench_version = version_string();
  prof.prov.git_sha = build_git_sha();
  prof.prov.argv = argv;
  prof.prov.started_at = now_utc_iso8601();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  prof.prov.hostname = host;
  utsname u{};
  if (uname(&u) == 0) prof.prov.os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  prof.prov.device = dev;
  prof.ceil = pool ? pool->device_ceilings() : in_process->device_ceilings();

  std::FILE* report = out_path == "-" ? stderr : stdout;
  console_reporter console(report, stderr, detect_style(report, a.quiet, stderr));
  std::size_t sizes = 0;
  for (const auto* p : pairs) sizes += planned_sizes(p->axes, o.smallest, o.axis_overrides, p->id()).size();
  console.plan(sizes);
  // Ctrl-C from here on says where the partial profile is and exits with 130.
  interrupt_guard on_ctrl_c(out_path == "-" ? "nothing was written (with --out -, the profile is printed at the end)"
                                            : "no size was finished, so no profile was written");
  profile_sink sink(prof, out_path, on_ctrl_c, a.force);
  observer_list observers({&console, &sink});
  // The run's header lines, each wrapped to the console (continuation lines under its text).
  const auto header = [&](std::string_view lead, const std::string& text) {
    fmt::print(report, "{}", wrap_with_lead(lead, text, console_width(report)));
  };
  header("", fmt::format("gpubench {} on {} (sm_{}{}, {} SMs), {}; floors from {} ceilings{}", version_string(),
                         dev.name, dev.cc_major, dev.cc_minor, dev.sm_count,
                         o.profile_mode ? "profile mode: each variant once, untimed" : "measuring", prof.ceil.source,
                         prof.ceil.source == "measured" ? "" : " (`gpubench device --ceilings` measures them)"));
  if (!o.profile_mode) {
    std::string rounds =
        o.max_rounds > o.rounds
            ? fmt::format("{} rounds per size (up to {} where device-timed rounds spread)", o.rounds, o.max_rounds)
            : fmt::format("{} rounds per size", o.rounds);
    if (a.processes)
      rounds =
          fmt::format("{} worker processes, rounds taken in turn, at least {} per size (up to {} where "
                      "device-timed centers spread), whole sweeps over the workers",
                      *a.processes, std::max(o.rounds, *a.processes), std::max({o.rounds, o.max_rounds, *a.processes}));
    const bool host_timed = std::any_of(pairs.begin(), pairs.end(),
                                        [](const pair_def* p) { return p->timing == timing_method::host_wall; });
    if (!a.processes && o.rounds > 1 && host_timed)
      rounds += fmt::format("; host-timed sizes take rounds 2-{} in sweeps after the other pairs, so their results "
                            "come last",
                            o.rounds);
    if (!o.gpu_busy_time)
      header("timing: ", fmt::format("{}; device-timed records report CUDA-event spans after a read flush of L2, less "
                                     "the empty span measured before each round",
                                     rounds));
    else if (const std::string why = in_process ? in_process->gpu_busy_unavailable() : std::string(); !why.empty())
      header("timing: ",
             fmt::format("{}; GPU busy time unavailable ({}), so CUDA-event spans less the empty span", rounds, why));
    else header("timing: ", fmt::format("{}; device-timed records report GPU busy time (CUPTI activity)", rounds));
    if (o.rest_ratio > 0)
      header("timing: ", fmt::format("after each sample of {:g} us or more the GPU rests for {:g}x its time (--rest)",
                                     schedule_options{}.rest_after_s * 1e6, o.rest_ratio));
    else header("timing: ", "samples back to back (--rest 0): long tensor-core work is timed at the power cap");
  }
  if (!o.metrics.empty()) {
    if (const std::string why = in_process ? in_process->metrics_unavailable() : std::string(); !why.empty())
      header("metrics: ", "not collected in this run: " + why);
    else
      fmt::print(report, "metrics: {} counters per variant, collected after timing\n", o.metrics.size());
  }
  // The runner picked the seed when none was given: record the one actually used.
  prof.options = options_json(a, o);

  auto records = pool ? pool->run(pairs, observers) : in_process->run(pairs, observers);
  // The sink kept records as sizes finished, host-timed ones last; the profile keeps the run's order.
  prof.records = records;
  if (confirm_base) {
    // This process leaves the GPU idle while each confirmation process measures its record.
    const auto confirmed = confirm_regressions(prof, *confirm_base, a.confirm, a.device, o, report);
    prof.options["confirm"] = {{"base", a.confirm}, {"records", confirmed}};
    records = prof.records;
  }
  prof.complete = true;
  prof.prov.finished_at = now_utc_iso8601();
  if (out_path == "-") fmt::print(stdout, "{}\n", json_text(to_json(prof)));
  else sink.write(prof.records.size());
  console.summary(records);
  if (out_path != "-") fmt::print(report, "profile: {}\n", terminal_text(out_path));
  record_run(recorder, prof, report, out_path == "-" ? "standard output" : out_path);

  bool failed = false, errored = false;
  for (const auto& rec : records) {
    failed = failed || rec.status == record_status::failed;
    errored = errored || rec.status == record_status::error;
  }
  const exit_code code = failed ? exit_code::verification_failed : errored ? exit_code::runtime_failure : exit_code::success;
  return {std::move(prof), static_cast<int>(code)};
}

int run_run(const run_args& a, const std::vector<std::string>& argv) { return execute_run(a, argv).exit; }

}  // namespace gpubench::app
