// `gpubench collective`: chapter 8's collective pairs, one process per GPU, under mpirun or srun
// (docs/fleet.md, "Collectives, one process per GPU"). Every rank measures in lockstep; rank 0
// prints and writes the profile, with every rank's host and GPU in its options.
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/format.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/text_file.hpp"
#include "gpubench/text_width.hpp"
#ifdef GPUBENCH_HAVE_MPI
#include "gpubench/mpi_world.hpp"
#include "gpubench/rank_runner.hpp"
#endif

namespace gpubench::app {

CLI::App* add_collective(CLI::App& app, collective_args& a) {
  auto* cmd = app.add_subcommand(
      "collective", "Run chapter 8's collective pairs one process per GPU, launched by mpirun or srun (e.g. `mpirun "
                    "-np 2 gpubench collective`): each rank verifies its own result, samples are timed from a barrier "
                    "to the slowest rank's end, as nccl-tests does; rank 0 writes the profile");
  cmd->add_option("--pair", a.pairs,
                  "Only these pairs (names or ids); default: every pair that runs one process per GPU");
  cmd->add_option("--axis", a.axes, "Override an axis: name=v1,v2 (repeatable), as for `gpubench run`");
  cmd->add_option("--out", a.out, "The profile rank 0 writes (default gpubench-collective-<time>.json)");
  cmd->add_flag("--quick", a.quick, "Looser noise target and shorter limits, one round (a smoke test)");
  cmd->add_flag("--smallest", a.smallest, "Each pair at its smallest size only");
  cmd->add_option("--rounds", a.rounds, "Rounds per size (default 3)")->check(CLI::Range(1, 100));
  cmd->add_option("--seed", a.seed, "Inputs' seed (default: rank 0 draws one)");
  cmd->add_flag("--force", a.force, "Replace a read-only --out or write through a symbolic link");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

#ifndef GPUBENCH_HAVE_MPI
int run_collective(const collective_args&, const std::vector<std::string>&) {
  throw runtime_error("this gpubench was built without MPI, which `collective` needs to start one process per GPU: "
                      "install Open MPI (Debian: apt-get install libopenmpi-dev openmpi-bin), then configure and "
                      "build again");
}
#else
namespace {
int measure_collectives(const collective_args& a, const std::vector<std::string>& argv, rank_group& g);
}  // namespace

int run_collective(const collective_args& a, const std::vector<std::string>& argv) {
  const auto group = open_mpi_world();
  const bool lead = group->rank() == 0;
  // Every rank fails alike (the ranks agree on every failure), so rank 0 alone says why.
  try {
    return measure_collectives(a, argv, *group);
  } catch (const error& e) {
    if (!lead) return static_cast<int>(e.code());
    throw;
  }
}

namespace {
int measure_collectives(const collective_args& a, const std::vector<std::string>& argv, rank_group& g) {
  rank_group* const group = &g;
  const bool lead = group->rank() == 0;
  // Checks every rank makes alike (same arguments), so every rank throws alike before any collective.
  if (group->size() < 2)
    throw usage_error(
        fmt::format("collective runs one process per GPU and found {} process: launch it with `mpirun -np "
                    "2 gpubench collective ...` (or srun --mpi=pmix -n 2)",
                    group->size()));
  const auto pairs = registry::global().select(std::nullopt, a.pairs, true);
  if (pairs.empty()) throw usage_error("this build has no pair that runs one process per GPU (it needs NCCL)");
  rank_run_options o;
  if (a.quick) {
    o.stopping.max_noise = 0.02;
    o.stopping.min_samples = 5;
    o.stopping.min_time_s = 0.01;
    o.stopping.timeout_s = 0.2;
    o.rounds = 1;
    o.warmup_runs = 0;
  }
  if (a.rounds) o.rounds = *a.rounds;
  if (a.seed) o.seed = *a.seed;
  o.smallest = a.smallest;
  for (const auto& text : a.axes) o.axis_overrides.push_back(parse_axis_override(text));
  const std::string out = a.out.empty() ? fmt::format("gpubench-collective-{}.json", now_utc_iso8601()) : a.out;
  if (lead) check_writable(out, a.force);

  rank_runner runner(g, o);
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
  prof.prov.device = runner.device();
  prof.ceil = runner.device_ceilings();
  // Every rank's host and GPU, in rank order: the profile says where each process ran.
  const auto where = group->all_gather(nlohmann::ordered_json{{"host", prof.prov.hostname},
                                                              {"gpu_uuid", runner.device().uuid},
                                                              {"pci_bus_id", runner.device().pci_bus_id}}
                                           .dump());
  prof.options["launcher"] = group->describe();
  prof.options["ranks"] = group->size();
  for (const auto& w : where) prof.options["rank_gpus"].push_back(nlohmann::ordered_json::parse(w));
  prof.options["seed"] = runner.options().seed;
  prof.options["rounds"] = runner.options().rounds;
  const std::size_t width = console_width(stdout);
  if (lead)
    fmt::print("{}", wrap_with_lead("",
                                    fmt::format("gpubench {} collective: {} on {} ({}), timed from a barrier to "
                                                "the slowest rank's end",
                                                version_string(), group->describe(), runner.device().name,
                                                terminal_text(prof.prov.hostname)),
                                    width));

  bool failed = false;
  prof.records = runner.run(pairs, [&](const std::vector<record>& size) {
    for (const record& r : size) {
      failed = failed || r.status == record_status::failed;
      if (!lead) continue;
      // The id on its line (wrapped at its commas when long), the figures under it.
      fmt::print("{}", wrap_with_lead("  ", r.id(), width, ",["));
      if (r.status == record_status::passed && r.stats)
        fmt::print("    {:>10}  {:>11}  verified on {} ranks\n", format_duration(r.stats->median),
                   format_si(r.bytes_per_s, "B/s"), group->size());
      else
        fmt::print("{}",
                   wrap_with_lead("    ", fmt::format("{}: {}", to_string(r.status), terminal_text(r.reason)), width));
    }
  });
  prof.complete = true;
  prof.prov.finished_at = now_utc_iso8601();
  if (lead) {
    write_profile(out, prof, a.force);
    fmt::print("wrote {} ({} records)\n", out, prof.records.size());
  }
  return failed ? static_cast<int>(exit_code::verification_failed) : 0;
}
}  // namespace
#endif

}  // namespace gpubench::app
