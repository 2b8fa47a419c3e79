#pragma once
/// Text files gpubench writes (profiles, exports, reports, caches): atomically, and never over
/// what the user did not ask to replace. CUDA-free.
#include <filesystem>
#include <string>

namespace gpubench {

/// Writes `text` to `path` atomically (a uniquely named temporary file beside it, then rename;
/// removed again on any error); "-" writes to stdout. Never destroys what the user did not ask
/// to replace: an existing read-only file or a symbolic link is refused with usage_error unless
/// `force`, which replaces the read-only file or writes the file the link points to (the link
/// stays). Anything that is not a regular file is always refused. Other failures: runtime_error.
void write_text_file(const std::string& path, const std::string& text, bool force = false);

/// Checks before a run that `path` can be written (creates nothing that stays behind). Throws
/// usage_error for a missing or unwritable directory and, unless `force`, for an existing file
/// that is read-only (no write bit, or not writable by us) or a symbolic link, and always for
/// an existing path that is not a regular file (a device, a pipe, a socket).
void check_writable(const std::filesystem::path& path, bool force = false);

}  // namespace gpubench
