#pragma once
/// No output may be one of the inputs, and no two outputs one file: checked by what the paths
/// are (the same file after following links, the same place for a file not written yet), never
/// by how they are spelled, before anything is written (every command that writes files calls it).
/// CUDA-free.
#include <string>
#include <vector>

namespace gpubench {

/// A path a command reads or writes, with what it is for the message ("--json", "the base profile").
struct named_path {
  std::string role;
  std::string path;
};

/// Refuses (usage_error, exit 2), naming both roles and the path: an output that is the same file
/// as an input (the same device and inode, so a hard link, a symbolic link, "./a.json" and
/// "dir/../a.json" all count), and two outputs that are the same file or, for files not written
/// yet, the same resolved path. "-" (standard output) and empty paths are not files and are skipped.
void check_outputs_distinct(const std::vector<named_path>& inputs, const std::vector<named_path>& outputs);

}  // namespace gpubench
