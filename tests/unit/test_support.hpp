#pragma once
// Helpers shared by the unit tests.
#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

#include <gtest/gtest.h>

#include "gpubench/error.hpp"

/// Runs `f`, expects a gpubench::error with the usage exit code (2), returns its message.
template <class F>
std::string usage_message(F&& f) {
  try {
    f();
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage);
    return e.what();
  }
  ADD_FAILURE() << "expected gpubench::error (usage)";
  return {};
}

/// What a shell command printed on stdout, and how it exited.
struct shell_result {
  int status = -1;  ///< exit code, or -1 if the process did not exit normally
  std::string output;
};

/// Runs `cmd` through /bin/sh (test code only: the commands are the tests' own) and collects its
/// standard output; add " 2>&1" to `cmd` for stderr too.
inline shell_result run_shell(const std::string& cmd) {
  shell_result r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
  return r;
}
