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
int write_all(int fd, std::string_view text) {
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

atomic_text_output::atomic_text_output(const std::string& path, bool force) {
  if (path == "-") return;  // stdout: nothing to replace atomically
  if (path.empty()) throw usage_error("the output path is empty; give a file name, or '-' for standard output");
  // Checked again at the moment of writing, not only before the run: the file may have changed since.
  target_ = output_target(path, force).string();
  fs::path tmp;
  fd_ = open_temp_beside(target_, tmp);
  if (fd_ < 0) fail(errno, "creating a temporary file like");
  tmp_ = tmp.string();
}

atomic_text_output::~atomic_text_output() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !tmp_.empty()) ::unlink(tmp_.c_str());  // the target keeps its previous contents
}

void atomic_text_output::fail(int err, const char* step) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) ::unlink(tmp_.c_str());  // best effort
  const std::string tmp = "'" + (tmp_.empty() ? target_ : tmp_) + "'";
  tmp_.clear();
  if (target_.empty()) throw runtime_error(std::string("cannot write to standard output: ") + std::strerror(err));
  throw runtime_error("cannot write '" + target_ + "' (" + step + " " + tmp + "): " + std::strerror(err) +
                      "; check free space and permissions of its directory");
}

void atomic_text_output::put(std::string_view text) {
  if (text.empty()) return;
  if (target_.empty()) {
    // stdout: a closed pipe or a full disk is still an error.
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
      fail(errno, "writing");
  } else if (const int err = write_all(fd_, text); err != 0) {
    fail(err, "writing");
  }
}

void atomic_text_output::flush() {
  put(buffer_);
  buffer_.clear();
}

void atomic_text_output::write(std::string_view text) {
  constexpr std::size_t kBuffer = std::size_t{1} << 20;
  if (buffer_.size() + text.size() < kBuffer) {
    buffer_.append(text);
    return;
  }
  flush();
  if (text.size() >= kBuffer) put(text);  // a large piece goes out as it is, without a copy
  else buffer_.append(text);
}

void atomic_text_output::commit() {
  flush();
  committed_ = true;
  if (target_.empty()) return;
  // POSIX calls rather than an ofstream: they report the real errno, and fsync makes the new
  // contents durable before the rename publishes them (a power loss then keeps old or new, not
  // an empty file).
  if (::fsync(fd_) != 0) fail(errno, "flushing");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(errno, "closing");
  if (::rename(tmp_.c_str(), target_.c_str()) != 0) fail(errno, "renaming");
  tmp_.clear();
}

void write_text_file(const std::string& path, const std::string& text, bool force) {
  atomic_text_output out(path, force);
  out.write(text);
  out.commit();
}

void check_writable(const fs::path& path, bool force, const std::string& example_name) {
  if (path.empty()) throw usage_error("the output path is empty; give a file name, or '-' for standard output");
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw usage_error(quoted(path) + " is a directory; give the name of the file to write, e.g. " +
                      quoted(path / example_name));
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
