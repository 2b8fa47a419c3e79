// Outputs that would eat inputs (gpubench/output_paths.hpp). A string comparison misses "./a.json"
// against "a.json", a hard link and a symbolic link; a file's identity is its device and inode.
// A file that does not exist yet has no inode: two outputs to create are the same file when their
// paths resolve to the same place (links in the directories followed).
#include "gpubench/output_paths.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <system_error>

#include "gpubench/error.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

struct identity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string resolved;  ///< for a file that does not exist: its absolute path, links resolved

  [[nodiscard]] bool same(const identity& o) const {
    if (exists != o.exists) return false;
    return exists ? device == o.device && inode == o.inode : resolved == o.resolved;
  }
};

std::optional<identity> identify(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  identity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
    return id;
  }
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(fs::absolute(path, ec), ec);
  id.resolved = ec ? fs::path(path).lexically_normal().string() : resolved.string();
  return id;
}

std::string quoted(const std::string& p) { return "'" + p + "'"; }

}  // namespace

void check_outputs_distinct(const std::vector<named_path>& inputs, const std::vector<named_path>& outputs) {
  std::vector<std::optional<identity>> in, out;
  for (const named_path& p : inputs) in.push_back(identify(p.path));
  for (const named_path& p : outputs) out.push_back(identify(p.path));
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (!out[o]) continue;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (in[i] && out[o]->same(*in[i]))
        throw usage_error(outputs[o].role + " " + quoted(outputs[o].path) + " is the same file as " + inputs[i].role +
                          " " + quoted(inputs[i].path) +
                          ": writing it would destroy what is being read; choose "
                          "another path for " +
                          outputs[o].role);
    for (std::size_t k = 0; k < o; ++k)
      if (out[k] && out[o]->same(*out[k]))
        throw usage_error(outputs[k].role + " " + quoted(outputs[k].path) + " and " + outputs[o].role + " " +
                          quoted(outputs[o].path) +
                          " are the same file: one would overwrite the other; give each "
                          "its own path");
  }
}

}  // namespace gpubench
