#pragma once
// Running gnuplot without a shell, in a private scratch directory. CUDA-free.
#include <cstddef>
#include <filesystem>
#include <string>

#include "process/spawn.hpp"  // private_dir, run_program

namespace gpubench::detail {

/// Runs `gnuplot script` (posix_spawn, no shell; stdin from /dev/null). Returns true when it
/// exited with status 0; `output` receives what it printed on stdout and stderr as one line for an
/// error message (its lines joined by " | ", at most kMaxGnuplotOutputBytes of it).
inline constexpr std::size_t kMaxGnuplotOutputBytes = 4000;
bool run_gnuplot(const std::filesystem::path& gnuplot, const std::filesystem::path& script, const std::filesystem::path& scratch,
                 std::string& output);

}  // namespace gpubench::detail
