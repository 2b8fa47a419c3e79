// gnuplot is started with posix_spawn and an argument vector, never through a shell (popen,
// system): file names and the PATH lookup then carry no shell syntax at all.
#include "roofline/gnuplot_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>

#include "gpubench/error.hpp"
#include "gpubench/roofline.hpp"

extern char** environ;

namespace gpubench {

namespace fs = std::filesystem;

fs::path find_gnuplot() {
  // execvp's rules: PATH's entries in order, an empty entry meaning the current directory, and
  // the system default path when PATH is unset.
  std::string path;
  if (const char* p = std::getenv("PATH")) {
    path = p;
  } else {
    path.resize(::confstr(_CS_PATH, nullptr, 0));
    if (!path.empty()) path.resize(::confstr(_CS_PATH, path.data(), path.size()) - 1);
  }
  for (std::size_t start = 0; start <= path.size();) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

namespace detail {

private_dir::private_dir() {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string name = (base / "gpubench-roofline-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr)
    throw runtime_error("cannot create a temporary directory in " + base.string() + ": " + std::strerror(errno) +
                        "; set TMPDIR to a writable directory");
  path_ = name;
}

private_dir::~private_dir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

bool run_gnuplot(const fs::path& gnuplot, const fs::path& script, const fs::path& scratch, std::string& output) {
  const fs::path log = scratch / "gnuplot.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string arg0 = "gnuplot", arg1 = script.string();
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    output = "cannot start " + gnuplot.string() + ": " + std::strerror(err) + "\n";
    return false;
  }
  int status = 0;
  pid_t waited = 0;
  do waited = ::waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);
  if (waited < 0) {
    output = std::string("lost track of gnuplot: ") + std::strerror(errno) + "\n";
    return false;
  }
  std::ifstream in(log, std::ios::binary);
  output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace detail
}  // namespace gpubench
