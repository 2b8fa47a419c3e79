#pragma once
/// Files gpubench reads from a path it was given (profiles, --history runs, the ceilings cache):
/// one gate for every reader. Only a regular file of bounded size is read, and nothing that could
/// block (a FIFO without a writer, a terminal, a device) is waited on: it is refused before any
/// byte is read (docs/profile-schema.md, "Reading untrusted input"). CUDA-free.
#include <cstdint>
#include <filesystem>
#include <string>

namespace gpubench {

/// The largest input file read unless GPUBENCH_MAX_INPUT_MIB says otherwise: 64 MiB, twice a
/// profile holding one record of a million samples, the most a record may hold.
inline constexpr std::uint64_t kDefaultInputLimitBytes = std::uint64_t{64} << 20;
/// The environment variable that overrides the limit, in MiB (a whole number, 1 to 1048576).
inline constexpr const char* kInputLimitVariable = "GPUBENCH_MAX_INPUT_MIB";

/// The size limit in force: GPUBENCH_MAX_INPUT_MIB when set, else kDefaultInputLimitBytes.
/// usage_error (exit 2) when the variable holds anything but a whole number in range.
std::uint64_t input_limit_bytes();

/// The whole content of `path`, which must be a regular file (after following symbolic links) of
/// at most `limit` bytes. Refuses with usage_error (exit 2), naming the path and what to do: a
/// missing or unreadable file, a directory, a FIFO, a socket, a character or block device
/// (/dev/zero, /dev/stdin on a terminal), and a file larger than `limit`, checked from its size
/// before it is read and again while reading (a file that grows is cut off at the limit and
/// refused). `role` names what the file should be in messages ("profile", "ceilings cache").
std::string read_input_file(const std::filesystem::path& path, const std::string& role,
                            std::uint64_t limit = input_limit_bytes());

}  // namespace gpubench
