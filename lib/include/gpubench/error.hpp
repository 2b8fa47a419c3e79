#pragma once
/// Errors and the exit codes every subcommand shares (the table in README.md, "Exit codes").
/// Library code throws gpubench::error; main() catches it once, prints the message, and exits
/// with its code. Messages name what happened and what to do about it.
#include <stdexcept>
#include <string>

namespace gpubench {

enum class exit_code : int {
  success = 0,
  runtime_failure = 1,      ///< no device, CUDA error, a variant crashed
  usage = 2,                ///< bad arguments or input (unknown pair, unreadable/invalid profile)
  verification_failed = 3,  ///< a variant computed a different result than its baseline
  regression = 4,           ///< compare: regression beyond the threshold
  inconclusive = 5,         ///< compare: inconclusive, when asked to gate on it
  interrupted = 130,        ///< run: stopped by Ctrl-C (128 + SIGINT); the partial profile is kept
};

class error : public std::runtime_error {
 public:
  error(exit_code code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] exit_code code() const noexcept { return code_; }

 private:
  exit_code code_;
};

/// Thrown by a pair's State or variant when this GPU cannot run it (FP8 on a GPU without FP8
/// tensor cores, say): the record is skipped with this message, not failed.
class not_supported : public error {
 public:
  explicit not_supported(const std::string& message) : error(exit_code::success, message) {}
};

/// Bad arguments or bad input: exit code 2.
inline error usage_error(const std::string& message) { return {exit_code::usage, message}; }
/// The machine or the GPU failed us: exit code 1.
inline error runtime_error(const std::string& message) { return {exit_code::runtime_failure, message}; }

}  // namespace gpubench
