#pragma once
/// Text files gpubench writes (profiles, exports, reports, caches): atomically, and never over
/// what the user did not ask to replace. CUDA-free.
#include <filesystem>
#include <string>
#include <string_view>

namespace gpubench {

/// Writes `text` to `path` atomically (a uniquely named temporary file beside it, then rename;
/// removed again on any error); "-" writes to stdout. Never destroys what the user did not ask
/// to replace: an existing read-only file or a symbolic link is refused with usage_error unless
/// `force`, which replaces the read-only file or writes the file the link points to (the link
/// stays). Anything that is not a regular file is always refused. Other failures: runtime_error.
void write_text_file(const std::string& path, const std::string& text, bool force = false);

/// A text file written piece by piece (an export too large to hold in memory) and published the
/// way write_text_file publishes one: into a temporary file beside `path`, renamed over it by
/// commit() only, so that a failure or an exception before commit() leaves the previous file as it
/// was. "-" writes to standard output as it goes. Refuses what write_text_file refuses.
class atomic_text_output {
 public:
  explicit atomic_text_output(const std::string& path, bool force = false);
  ~atomic_text_output();  ///< removes the temporary file unless commit() ran
  atomic_text_output(const atomic_text_output&) = delete;
  atomic_text_output& operator=(const atomic_text_output&) = delete;

  /// Appends `text` (buffered). runtime_error when the disk is full or the file cannot be written.
  void write(std::string_view text);
  /// Flushes, makes the contents durable and renames the temporary file over the target.
  void commit();

 private:
  void put(std::string_view text);
  void flush();
  [[noreturn]] void fail(int err, const char* step);

  std::string target_;  ///< the file replaced; empty for standard output
  std::string tmp_;     ///< the temporary file beside it
  int fd_ = -1;
  std::string buffer_;
  bool committed_ = false;
};

/// Checks before a run that `path` can be written (creates nothing that stays behind). Throws
/// usage_error for a missing or unwritable directory and, unless `force`, for an existing file
/// that is read-only (no write bit, or not writable by us) or a symbolic link, and always for
/// an existing path that is not a regular file (a device, a pipe, a socket).
/// `example_name` is the file name a message about a directory suggests in it ("report.html").
void check_writable(const std::filesystem::path& path, bool force = false,
                    const std::string& example_name = "profile.json");

}  // namespace gpubench
