/// Profile files: atomic writes (the run rewrites the profile after every pair, so a crash or a
/// full disk must never leave a half-written file where the last good one was), validated reads,
/// and the provenance strings the writer records. write_text_file (export.hpp) is the one atomic
/// writer: profiles, exports and compare reports all go through it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "gpubench/error.hpp"
#include "gpubench/export.hpp"
#include "gpubench/profile.hpp"

#ifndef GPUBENCH_VERSION
#define GPUBENCH_VERSION "0.0.0"
#endif
#ifndef GPUBENCH_GIT_SHA
#define GPUBENCH_GIT_SHA ""
#endif

namespace gpubench {

namespace fs = std::filesystem;

namespace {

/// "<path>.tmp.<pid>": beside the target, so the final rename stays on one file system (and is
/// therefore atomic), and per process, so two runs writing the same path cannot collide.
fs::path temp_path_for(const fs::path& path) {
  fs::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  return tmp;
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

/// Writes all of `text` to `fd`, retrying short writes and EINTR. Returns 0 or an errno value.
int write_all(int fd, const std::string& text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

/// 1-based line and column of byte offset `byte` (nlohmann reports 1-based byte positions).
std::string where_in(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

void write_text_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    // stdout: nothing to replace atomically, but a closed pipe or a full disk is still an error.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw runtime_error(std::string("cannot write to standard output: ") + std::strerror(errno));
    return;
  }
  if (path.empty()) throw usage_error("the output path is empty; give a file name, or '-' for standard output");
  const fs::path target(path);
  const fs::path tmp = temp_path_for(target);
  auto fail = [&](int err, const char* step) {
    ::unlink(tmp.c_str());  // best effort; the target keeps its previous contents either way
    throw runtime_error("cannot write " + quoted(target) + " (" + step + " " + quoted(tmp) +
                        "): " + std::strerror(err) + "; check free space and permissions of its directory");
  };
  // POSIX calls rather than an ofstream: they report the real errno, and fsync makes the new
  // contents durable before the rename publishes them (a power loss then keeps old or new, not
  // an empty file).
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(errno, "creating");
  if (const int err = write_all(fd, text); err != 0) {
    ::close(fd);
    fail(err, "writing");
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail(err, "flushing");
  }
  if (::close(fd) != 0) fail(errno, "closing");
  if (::rename(tmp.c_str(), target.c_str()) != 0) fail(errno, "renaming");
}

void write_profile(const fs::path& path, const profile& p) {
  // Always a file: a profile path of "-" is the caller's business (run prints to stdout itself).
  write_text_file(path == "-" ? "./-" : path.string(), to_json(p).dump(2) + "\n");
}

profile read_profile(const fs::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw usage_error(name + ": no such file; pass the profile that `gpubench run --out` wrote");
  if (fs::is_directory(path, ec)) throw usage_error(name + ": is a directory, not a profile file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(name + ": cannot open: " + std::strerror(errno));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw usage_error(name + ": cannot read: " + std::strerror(errno));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw usage_error(name + ": the file is empty; expected a gpubench profile (JSON)");

  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // A profile is rewritten atomically, so one that ends early was cut by something else
    // (a copy, an editor); say so rather than leave the user to decode the parser's message.
    const bool truncated = e.byte >= text.size();
    // nlohmann's text repeats the position after an "[json.exception...] parse error at" prefix.
    std::string detail = e.what();
    if (const auto col = detail.find(", column "); col != std::string::npos)
      if (const auto colon = detail.find(": ", col); colon != std::string::npos) detail.erase(0, colon + 2);
    throw usage_error(name + ": not valid JSON at " + where_in(text, e.byte) +
                      (truncated ? " (the file ends early: truncated?)" : "") + ": " + detail);
  }
  return profile_from_json(j, name);
}

void check_writable(const fs::path& path) {
  if (path.empty()) throw usage_error("the output path is empty; give a file name, or '-' for standard output");
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw usage_error(quoted(path) + " is a directory; give a file name for the profile, e.g. " +
                      quoted(path / "profile.json"));
  const fs::path parent = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  if (!fs::exists(parent, ec))
    throw usage_error("cannot write " + quoted(path) + ": directory " + quoted(parent) +
                      " does not exist; create it (mkdir -p " + parent.string() + ") or choose another path");
  if (!fs::is_directory(parent, ec))
    throw usage_error("cannot write " + quoted(path) + ": " + quoted(parent) + " is not a directory");
  // Permission bits do not tell the whole story (read-only mounts, ACLs, quotas): try it.
  const fs::path probe = temp_path_for(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    throw usage_error("cannot write " + quoted(path) + ": cannot create files in " + quoted(parent) +
                      ": " + std::strerror(err) + "; choose a writable location");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

std::string version_string() { return GPUBENCH_VERSION; }

std::string build_git_sha() { return GPUBENCH_GIT_SHA; }

std::string now_utc_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(buf, n);
}

}  // namespace gpubench
