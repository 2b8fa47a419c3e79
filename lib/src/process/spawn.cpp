// posix_spawn, never a shell (process/spawn.hpp).
#include "process/spawn.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "gpubench/error.hpp"

extern char** environ;

namespace gpubench::detail {

private_dir::private_dir() {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string name = (base / "gpubench-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr)
    throw runtime_error("cannot create a temporary directory in " + base.string() + ": " + std::strerror(errno) +
                        "; set TMPDIR to a writable directory");
  path_ = name;
}

private_dir::~private_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path find_program(const std::string& name) {
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
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

program_result run_program(const std::filesystem::path& program, const std::vector<std::string>& args,
                           const std::filesystem::path& log) {
  program_result r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (log.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  }
  std::vector<std::string> storage;
  storage.push_back(program.filename().string());
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    r.error = "cannot start " + program.string() + ": " + std::strerror(err);
    return r;
  }
  r.started = true;
  int status = 0;
  pid_t waited = 0;
  do waited = ::waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);
  if (waited < 0) {
    r.error = "lost track of " + program.filename().string() + ": " + std::strerror(errno);
    return r;
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace gpubench::detail
