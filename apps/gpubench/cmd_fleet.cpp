// `gpubench fleet submit|begin|task|report`: fleet runs through Slurm (docs/fleet.md). submit
// writes an ordinary batch script and hands it to sbatch; inside the job, begin records the
// allocation and each task (one per GPU) runs `gpubench run` and stores its tagged profile; report
// ranks every GPU against the fleet.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/error.hpp"
#include "gpubench/fleet.hpp"
#include "gpubench/fleet_report.hpp"
#include "gpubench/fleet_store.hpp"
#include "gpubench/fleet_task.hpp"
#include "gpubench/slurm.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench::app {

namespace fs = std::filesystem;

CLI::App* add_fleet(CLI::App& app, fleet_args& a) {
  auto* fleet =
      app.add_subcommand("fleet", "Fleet runs through Slurm: one task per GPU, each profile stored in a shared "
                                  "folder, every GPU ranked against the fleet (docs/fleet.md)");
  fleet->require_subcommand(1);
  fleet->footer(kExitCodeFooter);

  a.submit = fleet->add_subcommand(
      "submit", "Write a Slurm batch script (one task per GPU, GRES gpu:1 each, running `gpubench run RUN_ARGS`) and "
                "submit it with sbatch, after checking that Slurm is there and would accept it");
  a.submit->add_option("--store", a.store, "Shared folder every node mounts; the profiles go to STORE/job-JOBID/")
      ->required();
  a.submit->add_option("--nodes", a.nodes, "Nodes to run on (default 1)")->check(CLI::Range(1, 100000));
  a.submit->add_option("--gpus-per-node", a.gpus_per_node, "GPUs per node: one task each (default 1)")
      ->check(CLI::Range(1, 64));
  a.submit->add_option("--partition", a.partition, "Slurm partition (default: the cluster's)");
  a.submit->add_option("--account", a.account, "Slurm account (default: yours)");
  a.submit->add_option("--time", a.time_limit, "Time limit, Slurm's form (default 01:00:00)");
  a.submit->add_option("--job-name", a.job_name, "Job name (default gpubench-fleet)");
  a.submit->add_option("--nodelist", a.nodelist, "Exactly these nodes (as many as --nodes)")->delimiter(',');
  a.submit->add_option("--recorded-profile", a.recorded_profile,
                       "Store this profile from every task instead of measuring (a cluster without GPUs, such as CI): "
                       "only the measurement step is replaced");
  a.submit->add_flag("--dry-run", a.dry_run, "Print the batch script and submit nothing (needs no Slurm)");
  a.submit->add_option("--script", a.script,
                       "Also keep the batch script here (default: STORE/gpubench-fleet-TIME.sbatch)");
  a.submit->add_option("run_args", a.run_args,
                       "After --: the arguments of `gpubench run` on every GPU, e.g. -- --chapter 2");
  a.submit->footer(kExitCodeFooter);

  a.begin =
      fleet->add_subcommand("begin", "Inside a fleet job's batch script: record the job's allocation in the store");
  a.begin->add_option("--store", a.store, "The job's store folder")->required();

  a.task = fleet->add_subcommand(
      "task", "Inside a fleet job step (srun): run `gpubench run RUN_ARGS` on this task's GPU and store the profile, "
              "tagged with host, GPU UUID, PCI bus id, driver and job id, or the reason it failed");
  a.task->add_option("--store", a.store, "The job's store folder")->required();
  a.task->add_option("--recorded-profile", a.recorded_profile,
                     "Store this profile instead of measuring (see fleet submit)");
  a.task->add_option("run_args", a.run_args, "After --: the arguments of `gpubench run`");

  a.report = fleet->add_subcommand(
      "report", "Rank every GPU of a stored fleet job against the fleet's median per record; flag GPUs outside "
                "--band with confidence; list failed and missing tasks; --html draws a GPUs × records heatmap");
  a.report->add_option("--store", a.store, "The store folder")->required();
  a.report->add_option("--job", a.job, "The job id (default: the newest job in the store, named in the output)");
  a.report->add_option("--band", a.band_pct, "Flag GPUs beyond ±this percent of the fleet median (default 5)")
      ->check(CLI::Range(0.1, 100.0));
  a.report->add_option("--alpha", a.alpha, "Family-wise error over a model's GPU × record cells (default 0.05)")
      ->check(CLI::Range(1e-9, 0.5));
  a.report->add_option("--html", a.html, "Also write the HTML page with the heatmap here (.html)");
  a.report->add_flag("--fail-on-flag", a.fail_on_flag, "Exit 4 when a GPU is flagged, a task failed or one is missing");
  a.report->add_flag("--force", a.force, "Replace a read-only --html or write through a symbolic link");
  a.report->footer(kExitCodeFooter);
  return fleet;
}

namespace {

std::string self_binary() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw runtime_error("cannot find the gpubench binary (/proc/self/exe): " + ec.message());
  return p.string();
}

std::string absolute(const std::string& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

void refuse_out(const std::vector<std::string>& run_args) {
  for (const auto& arg : run_args)
    if (arg == "--out" || arg.rfind("--out=", 0) == 0)
      throw usage_error(
          "the run arguments hold --out: each fleet task writes its own profile into the store; drop --out");
}

int run_submit(const fleet_args& a) {
  refuse_out(a.run_args);
  fleet_submit_options o;
  o.gpubench = self_binary();
  o.store = absolute(a.store);
  o.run_args = a.run_args;
  o.nodes = a.nodes;
  o.gpus_per_node = a.gpus_per_node;
  o.partition = a.partition;
  o.account = a.account;
  if (!a.time_limit.empty()) o.time_limit = a.time_limit;
  if (!a.job_name.empty()) o.job_name = a.job_name;
  o.nodelist = a.nodelist;
  if (!a.recorded_profile.empty()) {
    o.recorded_profile = absolute(a.recorded_profile);
    (void)read_profile(o.recorded_profile);  // refused here, not on every node
  }
  const std::string script = sbatch_script(o);
  if (a.dry_run) {
    if (!a.script.empty()) write_text_file(a.script, script, a.force);
    fmt::print("{}", script);
    return 0;
  }
  // Everything Slurm could refuse is asked before anything is submitted.
  if (const std::string why = slurm_problem(a.partition); !why.empty()) throw runtime_error(why);
  folder_store store(o.store, true);
  const std::string path =
      a.script.empty()
          ? (store.dir() / fmt::format("gpubench-fleet-{}-{}.sbatch", now_utc_iso8601(), ::getpid())).string()
          : a.script;
  write_text_file(path, script, a.force);
  if (const std::string why = sbatch_test_only(path); !why.empty())
    throw usage_error(fmt::format("Slurm would not run this job (sbatch --test-only {}): {}", path, why));
  const std::string job = sbatch_submit(path);
  fmt::print("fleet: submitted job {} ({} node{} x {} GPU{}), script {}\n", job, o.nodes, o.nodes == 1 ? "" : "s",
             o.gpus_per_node, o.gpus_per_node == 1 ? "" : "s", path);
  fmt::print("fleet: when it has run: gpubench fleet report --store {} --job {}\n", o.store, job);
  return 0;
}

int run_begin(const fleet_args& a) {
  const slurm_task_env env = read_slurm_env();
  const auto store = open_fleet_store(a.store);
  const fleet_manifest m = manifest_from_env(env);
  store->put_manifest(m);
  fmt::print("fleet: job {}: {} task{} on {} node{}, stored in {}\n", m.job_id, m.tasks, m.tasks == 1 ? "" : "s",
             m.nodes.size(), m.nodes.size() == 1 ? "" : "s", store->describe());
  return 0;
}

int run_task(const fleet_args& a) {
  const slurm_task_env env = read_slurm_env();
  const auto store = open_fleet_store(a.store);
  const fleet_task_outcome r = run_fleet_task(*store, env, {self_binary(), a.run_args, a.recorded_profile});
  if (!r.stored_profile) {
    fmt::print(stderr, "fleet: task {} on {}: failed: {}\n", r.tags.task, r.tags.node, r.failure);
    return r.exit_code;
  }
  fmt::print("fleet: task {} on {}: stored {} ({} records, {}){}\n", r.tags.task, r.tags.node, r.tags.gpu_name,
             r.records, r.tags.gpu_uuid.empty() ? "no UUID" : r.tags.gpu_uuid,
             r.tags.run_exit != 0 ? fmt::format("; gpubench run exited {}", r.tags.run_exit) : "");
  return r.exit_code;
}

int run_fleet_report(const fleet_args& a) {
  if (!a.html.empty()) {
    const std::string ext = fs::path(a.html).extension().string();
    if (ext != ".html" && ext != ".htm")
      throw usage_error(fmt::format("--html {}: give a file name ending in .html", a.html));
    check_writable(a.html, a.force);
  }
  const auto store = open_fleet_store(a.store);
  std::string job = a.job;
  if (job.empty()) {
    const auto jobs = store->jobs();
    if (jobs.empty())
      throw usage_error(fmt::format("{} holds no fleet job; `gpubench fleet submit --store {}` makes one",
                                    store->describe(), a.store));
    job = jobs.back();
    fmt::print("fleet: job {}, the newest of {} in {}\n", job, jobs.size(), store->describe());
  }
  fleet_options o;
  if (a.band_pct) o.band = *a.band_pct / 100;
  if (a.alpha) o.alpha = *a.alpha;
  const fleet_ranking r = rank_fleet(store->load(job), o);
  fmt::print("{}", fleet_console(r));
  if (!a.html.empty()) {
    write_text_file(a.html,
                    html_fleet_page(r, fmt::format("gpubench {}{}", version_string(),
                                                   build_git_sha().empty() ? "" : " (" + build_git_sha() + ")")),
                    a.force);
    fmt::print("fleet: wrote {}\n", a.html);
  }
  std::size_t flagged = 0;
  for (const auto& g : r.groups) flagged += g.flagged_cells();
  const bool faults = flagged > 0 || !r.failures.empty() || !r.missing.empty();
  return a.fail_on_flag && faults ? static_cast<int>(exit_code::regression) : 0;
}

}  // namespace

int run_fleet(const fleet_args& a) {
  if (a.submit->parsed()) return run_submit(a);
  if (a.begin->parsed()) return run_begin(a);
  if (a.task->parsed()) return run_task(a);
  return run_fleet_report(a);
}

}  // namespace gpubench::app
