#pragma once
/// Ctrl-C during `gpubench run`: say where the partial profile is and exit with code 130
/// (128 + SIGINT, the shell's convention; README.md, "Exit codes"). CUDA-free.
///
/// The profile is rewritten atomically after every size, so at any instant the file holds every
/// size finished so far; the handler only has to say so. It does that with async-signal-safe
/// calls only: one write(2) of a message composed beforehand, then _exit(2). A Ctrl-C that
/// arrives while the profile is being written waits for the write to finish (the writer exits
/// then), so the message never describes a file that is still changing. A second Ctrl-C at that
/// point exits at once: the rename has not happened yet, and the file keeps its previous contents.
#include <string>

#include "gpubench/error.hpp"

namespace gpubench {

/// Exit status after an interrupt: 128 + SIGINT.
inline constexpr int kInterruptedExit = static_cast<int>(exit_code::interrupted);

/// Installs the SIGINT handler for its lifetime; the previous disposition comes back on
/// destruction. One at a time (the state is process-wide).
class interrupt_guard {
 public:
  /// `message`: what to print on Ctrl-C (one line, without the newline), e.g. "no profile was
  /// written". Messages longer than 4000 bytes are cut.
  explicit interrupt_guard(const std::string& message);
  ~interrupt_guard();
  interrupt_guard(const interrupt_guard&) = delete;
  interrupt_guard& operator=(const interrupt_guard&) = delete;

  /// Before writing the profile: a Ctrl-C from now on waits for end_write().
  /// `message_if_again`: printed if a second Ctrl-C cuts the write short.
  void begin_write(const std::string& message_if_again);
  /// After the profile is written: `message` replaces the one given before. If a Ctrl-C came
  /// during the write, prints `message` and exits with kInterruptedExit now.
  void end_write(const std::string& message);
};

}  // namespace gpubench
