#pragma once
// Starting another program without a shell: posix_spawn with an argument vector, so no file name
// or argument is ever parsed as shell syntax. CUDA-free.
#include <filesystem>
#include <string>
#include <vector>

namespace gpubench::detail {

/// What a finished program did.
struct program_result {
  bool started = false;  ///< false: it could not be started (`error` says why)
  int exit_code = -1;    ///< its exit status; -1 when it did not exit normally (a signal)
  int signal = 0;        ///< the signal that ended it, if one did
  std::string error;
};

/// Runs `program` with `args` (argv[1..]; argv[0] is the program's file name), stdin from
/// /dev/null, stdout and stderr into `log` (created, mode 0600) or, when `log` is empty, stdout
/// to /dev/null and stderr shared with this process. Waits for it.
program_result run_program(const std::filesystem::path& program, const std::vector<std::string>& args,
                           const std::filesystem::path& log = {});

}  // namespace gpubench::detail
