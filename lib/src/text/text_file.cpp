// Text files written atomically, refusing what the user did not ask to replace (gpubench/text_file.hpp).
// Profiles, exports, reports and the ceilings cache all go through write_text_file.
#include "gpubench/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "gpubench/error.hpp"

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
    if (ec || depth > 32)
      throw usage_error("cannot resolve the symbolic link " + quoted(path) + (ec ? ": " + ec.message() : ""));
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
  const bool read_only =
      (p & (fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write)) == fs::perms::none ||
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
    throw usage_error("cannot write " + quoted(path) + ": cannot create files in " + quoted(parent) + ": " +
                      std::strerror(err) + "; choose a writable location");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace gpubench
