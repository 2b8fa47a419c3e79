#pragma once
// Starting another program without a shell: posix_spawn with an argument vector, so no file name
// or argument is ever parsed as shell syntax; and the private scratch directory such programs
// work in (gnuplot for the roofline and the report, gpubench itself for run --confirm). CUDA-free.
#include <filesystem>
#include <string>
#include <vector>

namespace gpubench::detail {

/// A fresh directory only this user can enter (mkdtemp, mode 0700) under the system's temporary
/// directory ($TMPDIR); removed with everything in it when this object goes.
class private_dir {
 public:
  private_dir();  ///< throws runtime_error when it cannot be created
  ~private_dir();
  private_dir(const private_dir&) = delete;
  private_dir& operator=(const private_dir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// What a finished program did.
struct program_result {
  bool started = false;  ///< false: it could not be started (`error` says why)
  int exit_code = -1;    ///< its exit status; -1 when it did not exit normally (a signal)
  int signal = 0;        ///< the signal that ended it, if one did
  std::string error;
};

/// `name` as execvp would find it on PATH (PATH's entries in order, an empty entry meaning the
/// current directory, the system's default path when PATH is unset): a regular, executable file;
/// empty when there is none. Searched here, so no shell is involved.
std::filesystem::path find_program(const std::string& name);

/// Runs `program` with `args` (argv[1..]; argv[0] is the program's file name), stdin from
/// /dev/null, stdout and stderr into `log` (created, mode 0600) or, when `log` is empty, stdout
/// to /dev/null and stderr shared with this process. Waits for it.
program_result run_program(const std::filesystem::path& program, const std::vector<std::string>& args,
                           const std::filesystem::path& log = {});

}  // namespace gpubench::detail
