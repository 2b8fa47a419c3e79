// The one gate every reader of a user-named file goes through (gpubench/input_file.hpp).
//
// Why stat, then open with O_NONBLOCK, then fstat: stat tells a FIFO, a device or a socket apart
// without opening it (opening a FIFO for reading blocks until a writer comes; opening a socket
// fails), and a file swapped for one of those between the two calls is caught by fstat on the
// descriptor, which O_NONBLOCK kept from blocking. Only then is anything read, and never more
// than the limit plus one byte, so an endless file (/proc, a growing log) cannot exhaust memory.
#include "gpubench/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpubench/error.hpp"

namespace gpubench {

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxLimitMiB = std::uint64_t{1} << 20;  // 1 TiB: beyond any machine's memory

std::string mib(std::uint64_t bytes) {
  const double m = static_cast<double>(bytes) / static_cast<double>(kMiB);
  char buf[32];
  std::snprintf(buf, sizeof buf, m < 10 ? "%.1f MiB" : "%.0f MiB", m);
  return buf;
}

/// What a file that is not a regular one is, for the message; "" for a regular file.
const char* kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

[[noreturn]] void refuse_kind(const std::string& name, const char* kind, const std::string& role) {
  throw usage_error(name + " is " + kind + ", not a " + role +
                    " file: gpubench reads only regular files (a pipe or a device may never end, or never "
                    "start); save the data to a file and pass that");
}

[[noreturn]] void refuse_size(const std::string& name, std::uint64_t size, std::uint64_t limit, bool at_least) {
  throw usage_error(name + " is " + (at_least ? "more than " : "") + mib(size) + ", above the " + mib(limit) +
                    " gpubench reads from one file; if it really is that large, raise the limit with " +
                    kInputLimitVariable + "=<MiB>");
}

}  // namespace

std::uint64_t input_limit_bytes() {
  const char* v = std::getenv(kInputLimitVariable);
  if (v == nullptr || *v == '\0') return kDefaultInputLimitBytes;
  std::uint64_t value = 0;
  bool ok = std::strlen(v) <= 8;
  for (const char* p = v; ok && *p != '\0'; ++p) {
    ok = *p >= '0' && *p <= '9';
    value = value * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  if (!ok || value < 1 || value > kMaxLimitMiB)
    throw usage_error(std::string(kInputLimitVariable) + " must be a whole number of MiB, 1 to " +
                      std::to_string(kMaxLimitMiB) + "; unset it for the default of " + mib(kDefaultInputLimitBytes));
  return value * kMiB;
}

std::string read_input_file(const std::filesystem::path& path, const std::string& role, std::uint64_t limit) {
  const std::string name = path.string();
  if (name.empty()) throw usage_error("an empty path was given for a " + role + " file");
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) throw usage_error(name + ": no such file; pass the " + role + " file's path");
    throw usage_error(name + ": cannot open: " + std::strerror(err));
  }
  if (const char* kind = kind_of(before.st_mode); *kind != '\0') refuse_kind(name, kind, role);
  if (static_cast<std::uint64_t>(before.st_size) > limit)
    refuse_size(name, static_cast<std::uint64_t>(before.st_size), limit, false);

  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw usage_error(name + ": cannot open: " + std::strerror(errno));
  struct fd_closer {
    int fd;
    ~fd_closer() { ::close(fd); }
  } closer{fd};
  struct stat opened {};
  if (::fstat(fd, &opened) != 0) throw usage_error(name + ": cannot open: " + std::strerror(errno));
  if (const char* kind = kind_of(opened.st_mode); *kind != '\0') refuse_kind(name, kind, role);

  // Read to the end, but never past limit + 1 bytes: the size stat gave may already be stale.
  std::string text;
  text.resize(static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(opened.st_size), limit) + 1));
  std::size_t have = 0;
  for (;;) {
    if (have == text.size()) {
      if (have > limit) refuse_size(name, limit, limit, true);
      text.resize(std::min<std::size_t>(text.size() * 2 + 4096, static_cast<std::size_t>(limit) + 1));
    }
    const ssize_t n = ::read(fd, text.data() + have, text.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw usage_error(name + ": cannot read: " + std::strerror(errno));
    }
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  if (have > limit) refuse_size(name, limit, limit, true);
  text.resize(have);
  return text;
}

}  // namespace gpubench
