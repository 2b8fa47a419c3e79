#pragma once
// The hostile-input tests run the real gpubench in a child process and measure it: its exit, its
// wall time and its peak memory (getrusage of the child, through wait4), with a deadline after
// which it is killed, so that an input that never ends fails the test instead of hanging it.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

/// The gpubench under test: GPUBENCH_HOSTILE_EXE when set (to run these tests against another
/// build, e.g. an older one, and see them fail), else the one this build made.
inline std::string hostile_exe() {
  const char* other = std::getenv("GPUBENCH_HOSTILE_EXE");
  return other != nullptr && *other != '\0' ? other : GPUBENCH_EXE;
}

struct child_result {
  int exit = -1;           ///< exit code; -1 when killed by a signal (the deadline included)
  bool timed_out = false;  ///< killed at the deadline
  double wall_s = 0;
  double cpu_s = 0;     ///< user + system CPU time (less sensitive than wall time to other load)
  long max_rss_kb = 0;  ///< peak resident memory (ru_maxrss)
  std::string out, err;
};

/// "1.23 s wall, 0.98 s CPU, 254 MiB": what a run cost, for the test's log.
inline std::string cost(const child_result& r) {
  return std::to_string(r.wall_s) + " s wall, " + std::to_string(r.cpu_s) + " s CPU, " +
         std::to_string(r.max_rss_kb / 1024) + " MiB";
}

/// The bars every hostile input is held to (the audit's): no run past 10 s or 1 GB.
inline constexpr double kMaxSeconds = 10;
inline constexpr long kMaxRssKb = 1L << 20;

/// Runs `exe args...` in `dir` (relative paths are in it), with stdout and stderr into files there,
/// stdin from /dev/null, extra environment `env` ("NAME=value"), and kills it after `deadline_s`.
inline child_result run_bounded(const std::vector<std::string>& args, const std::filesystem::path& dir,
                                double deadline_s = kMaxSeconds + 5, const std::vector<std::string>& env = {}) {
  const std::filesystem::path out = dir / ".child.out", err = dir / ".child.err";
  const std::string exe = hostile_exe();
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open("/dev/null", O_RDONLY);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || o < 0 || e < 0 || chdir(dir.c_str()) != 0) _exit(126);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    for (const std::string& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  child_result r;
  if (pid < 0) {
    ADD_FAILURE() << "fork failed";
    return r;
  }
  int status = 0;
  rusage usage{};
  for (;;) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > deadline_s) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.max_rss_kb = usage.ru_maxrss;
  r.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

/// Holds a finished child to the bars: no more than `max_s` seconds and kMaxRssKb of memory.
inline void expect_bounded(const child_result& r, double max_s = kMaxSeconds) {
  EXPECT_FALSE(r.timed_out) << "still running after the deadline";
  EXPECT_LE(r.wall_s, max_s) << "took " << r.wall_s << " s";
  EXPECT_LE(r.max_rss_kb, kMaxRssKb) << "peak memory " << r.max_rss_kb / 1024 << " MiB";
}

/// The 2-second bars, in CPU time (user + system, getrusage of the child): what the command cost,
/// whatever else the machine is running (a shared 2-core CI machine can stretch its wall time
/// several times over). A command that waits instead of working (a FIFO without a writer) uses no
/// CPU: the deadline of run_bounded and expect_bounded's wall-time bar catch that.
inline void expect_quick(const child_result& r, double max_cpu_s) {
  expect_bounded(r);
  EXPECT_LE(r.cpu_s, max_cpu_s) << "took " << cost(r);
}
