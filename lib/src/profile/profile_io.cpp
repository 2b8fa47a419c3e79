/// Profile files: atomic writes (the run rewrites the profile after every pair, so a crash or a
/// full disk must never leave a half-written file where the last good one was), validated reads,
/// and the provenance strings the writer records. write_text_file (export.hpp) is the one atomic
/// writer: profiles, exports and compare reports all go through it.
#include <fcntl.h>
#include <sys/stat.h>
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

/// Creates a uniquely named temporary file beside `target` (so that the final rename stays on one
/// file system and is therefore atomic), never opening an existing file: a file of the user's that
/// happens to share the name is left alone. Returns the descriptor (or -1 with errno) and its path.
int open_temp_beside(const fs::path& target, fs::path& tmp) {
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string name = (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  tmp = name;
  if (fd >= 0) {
    // mkostemp creates 0600; a result file gets the usual 0644 less the umask.
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, static_cast<mode_t>(0644 & ~mask));
  }
  return fd;
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

namespace {

/// The file a write to `path` replaces: `path` itself, or with `force` the file a symbolic link
/// points to. Refuses (usage_error) what the user did not ask to destroy: a file nobody may
/// write, the target of a link, anything that is not a regular file.
fs::path output_target(const fs::path& path, bool force, int depth = 0) {
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (ec || !fs::exists(link)) return path;  // a new file (or a missing directory, reported by the writer)
  if (fs::is_symlink(link)) {
    if (!force)
      throw usage_error(quoted(path) + " is a symbolic link; gpubench does not write through links unless told to: "
                        "give the real file's path, or add --force to replace the file it points to");
    // Write the file the link points to, atomically beside it; the link stays as it is.
    fs::path target = fs::read_symlink(path, ec);
    if (ec || depth > 32) throw usage_error("cannot resolve the symbolic link " + quoted(path) + (ec ? ": " + ec.message() : ""));
    if (target.is_relative()) target = path.parent_path() / target;
    return output_target(target, force, depth + 1);
  }
  if (fs::is_directory(link))
    throw usage_error(quoted(path) + " is a directory; give a file name, e.g. " + quoted(path / "out.json"));
  if (!fs::is_regular_file(link))
    throw usage_error(quoted(path) + " exists and is not a regular file (a device, a pipe or a socket); "
                      "choose another path (use '-' for standard output where the option allows it)");
  // Permission bits, not access(2): root may write anything, yet a file nobody may write
  // (chmod 444) says "do not replace me" to root as well.
  const fs::perms p = link.permissions();
  const bool read_only = (p & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) == fs::perms::none ||
                         ::access(path.c_str(), W_OK) != 0;
  if (read_only && !force)
    throw usage_error(quoted(path) + " is read-only; gpubench does not replace it unless told to: choose another "
                      "path, or add --force to replace it");
  return path;
}

}  // namespace

void write_text_file(const std::string& path, const std::string& text, bool force) {
  if (path == "-") {
    // stdout: nothing to replace atomically, but a closed pipe or a full disk is still an error.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      throw runtime_error(std::string("cannot write to standard output: ") + std::strerror(errno));
    return;
  }
  if (path.empty()) throw usage_error("the output path is empty; give a file name, or '-' for standard output");
  // Checked again at the moment of writing, not only before the run: the file may have changed since.
  const fs::path target = output_target(path, force);
  fs::path tmp;
  auto fail = [&](int err, const char* step) {
    if (!tmp.empty()) ::unlink(tmp.c_str());  // best effort; the target keeps its previous contents either way
    throw runtime_error("cannot write " + quoted(target) + " (" + step + " " + quoted(tmp) +
                        "): " + std::strerror(err) + "; check free space and permissions of its directory");
  };
  // POSIX calls rather than an ofstream: they report the real errno, and fsync makes the new
  // contents durable before the rename publishes them (a power loss then keeps old or new, not
  // an empty file).
  const int fd = open_temp_beside(target, tmp);
  if (fd < 0) {
    const int err = errno;
    tmp.clear();  // nothing was created
    fail(err, "creating a temporary file like");
  }
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

void write_profile(const fs::path& path, const profile& p, bool force) {
  // Always a file: a profile path of "-" is the caller's business (run prints to stdout itself).
  write_text_file(path == "-" ? "./-" : path.string(), to_json(p).dump(2) + "\n", force);
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

void check_writable(const fs::path& path, bool force) {
  if (path.empty()) throw usage_error("the output path is empty; give a file name, or '-' for standard output");
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw usage_error(quoted(path) + " is a directory; give a file name for the profile, e.g. " +
                      quoted(path / "profile.json"));
  const fs::path target = output_target(path, force);
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::exists(parent, ec))
    throw usage_error("cannot write " + quoted(path) + ": directory " + quoted(parent) +
                      " does not exist; create it (mkdir -p " + parent.string() + ") or choose another path");
  if (!fs::is_directory(parent, ec))
    throw usage_error("cannot write " + quoted(path) + ": " + quoted(parent) + " is not a directory");
  // Permission bits do not tell the whole story (read-only mounts, ACLs, quotas): try it.
  fs::path probe;
  const int fd = open_temp_beside(target, probe);
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
