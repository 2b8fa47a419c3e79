#pragma once
// Helpers shared by the run store's tests: synthetic runs, and the gpubench binary with a store.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpubench/profile.hpp"
#include "gpubench/record.hpp"
#include "gpubench/stats.hpp"
#include "test_support.hpp"

namespace store_test {

/// A complete profile of one GPU run: `records` records ch01/trend/baseline[n=1024·k], each with
/// 20 samples spread ±0.2% about `median_s`, started at `started_at` from commit `sha`. Valid: it
/// reads back (profile_from_json), so it can be stored.
inline gpubench::profile synthetic_run(double median_s, const std::string& started_at, const std::string& sha,
                                       const std::string& gpu = "NVIDIA H200", int records = 1) {
  using namespace gpubench;
  profile p;
  p.complete = true;
  p.prov.gpubench_version = "0.1.0";
  p.prov.git_sha = sha;
  p.prov.argv = {"gpubench", "run", "--chapter", "1"};
  p.prov.started_at = started_at;
  p.prov.finished_at = started_at;
  p.prov.hostname = "gpu-host";
  p.prov.os = "Linux";
  p.prov.device.name = gpu;
  p.prov.device.uuid = "GPU-00000000-0000-0000-0000-000000000001";
  p.ceil.source = "theoretical";
  p.options = {{"chapter", 1}, {"mode", "measure"}, {"seed", 1}};
  for (int k = 0; k < records; ++k) {
    record r{.chapter = 1,
             .pair = "trend",
             .variant = "baseline",
             .size = size_point({{"n", axis_value{std::int64_t{1024} * (k + 1)}}})};
    for (int i = 0; i < 20; ++i) r.timing.samples_s.push_back(median_s * (1 + 0.0002 * ((i * 7) % 11 - 5)));
    r.stats = summarize(r.timing.samples_s);
    p.records.push_back(r);
  }
  return p;
}

/// "2026-01-01T00:00:00Z" plus `minutes`.
inline std::string minute(int minutes) {
  return fmt::format("2026-01-{:02d}T{:02d}:{:02d}:00Z", 1 + minutes / 1440, minutes / 60 % 24, minutes % 60);
}

/// Writes `p` as `gpubench run` would.
inline void write_run(const std::filesystem::path& file, const gpubench::profile& p) {
  std::filesystem::create_directories(file.parent_path());
  gpubench::write_profile(file, p);
}

/// `gpubench ARGS` in `dir` with GPUBENCH_DB=`db`, stdout and stderr together.
inline shell_result gpubench_with(const std::string& db, const std::string& args,
                                  const std::filesystem::path& dir = ".", const std::string& env = "") {
  return run_shell(
      fmt::format("cd '{}' && GPUBENCH_DB='{}' {} '{}' {} 2>&1", dir.string(), db, env, GPUBENCH_EXE, args));
}

/// Starts `gpubench ARGS` with GPUBENCH_DB=`db` (no shell), its output into `log`; returns its pid.
inline pid_t spawn_gpubench(const std::vector<std::string>& args, const std::string& db, const std::string& log) {
  std::vector<std::string> argv = {GPUBENCH_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> env = {"GPUBENCH_DB=" + db};
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string(*e).rfind("GPUBENCH_DB=", 0) != 0) env.emplace_back(*e);
  std::vector<char*> cenv;
  for (auto& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  if (posix_spawn(&pid, GPUBENCH_EXE, &actions, nullptr, cargv.data(), cenv.data()) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

/// The exit status of `pid` once it ends; -1 when a signal ended it.
inline int wait_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// `count` runs of `records` records each, in `dir` as run-NNN.json, started a minute apart from
/// minute `first`; distinct documents (so none is stored twice).
inline void write_runs(const std::filesystem::path& dir, int count, int first = 0, int records = 1,
                       const std::string& gpu = "NVIDIA H200") {
  std::filesystem::create_directories(dir);
  for (int i = 0; i < count; ++i)
    write_run(dir / fmt::format("run-{:03d}.json", i),
              synthetic_run(1e-3, minute(first + i), "a73395e0d1d3", gpu, records));
}

/// A series of `n` runs of 1 ms with relative normal noise `noise`, times `step` from index `at`.
inline std::vector<double> noisy_levels(std::size_t n, double noise, std::size_t at, double step, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1e-3 * (i >= at ? step : 1.0) * (1 + noise * z(rng));
  return v;
}

}  // namespace store_test
