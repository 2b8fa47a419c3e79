#pragma once
// Helpers shared by the unit tests.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

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

/// A temporary file a reporter writes into, read back whole by text().
struct tmp_file {
  std::FILE* f = std::tmpfile();
  tmp_file() = default;
  tmp_file(const tmp_file&) = delete;
  tmp_file& operator=(const tmp_file&) = delete;
  ~tmp_file() {
    if (f) std::fclose(f);
  }
  std::string text() const {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, n);
    return s;
  }
};

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

/// A fresh empty directory (mkdtemp under the system's temporary directory), removed with what is
/// in it at the end of the test.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& prefix = "gpubench_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) != nullptr) path = tmpl;
  }
  ~temp_dir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  [[nodiscard]] bool empty() const { return std::filesystem::is_empty(path); }
  /// The names in it, sorted.
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

/// A gnuplot script that runs nothing, whoever wrote the names in it: gnuplot runs `...` inside
/// double-quoted strings and a newline ends a command, so no double quote and no backquote outside
/// single-quoted strings and comments, no control character but a tab, and no comment continued
/// onto the next line. A backslash at the end of a code line continues the command, as the plot
/// commands do.
inline void expect_inert_gnuplot(const std::string& script) {
  enum { code, single, comment } state = code;
  std::size_t line = 1;
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    const auto where = "line " + std::to_string(line) + ": " + script.substr(script.rfind('\n', i) + 1, 120);
    if (c == '\n') {
      EXPECT_NE(state, single) << "a single-quoted string runs over the line end at " << where;
      if (state == comment && i > 0) EXPECT_NE(script[i - 1], '\\') << "a comment continues onto the next line at " << where;
      state = code;
      ++line;
      continue;
    }
    EXPECT_FALSE((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) << "control character at " << where;
    if (state == single) {
      if (c == '\'') state = (i + 1 < script.size() && script[i + 1] == '\'') ? (++i, single) : code;
    } else if (state == code) {
      EXPECT_NE(c, '"') << "a double-quoted string (gnuplot runs backquotes inside it) at " << where;
      EXPECT_NE(c, '`') << "a backquote outside a single-quoted string at " << where;
      if (c == '\'') state = single;
      if (c == '#') state = comment;
    }
  }
}
