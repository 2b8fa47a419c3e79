// `gpubench history import PATH...` and `history export RUN`: profiles into and out of the run
// store, validated both ways (gpubench/store.hpp).
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpubench/profile_document.hpp"
#include "gpubench/error.hpp"
#include "gpubench/run_refs.hpp"
#include "gpubench/text_file.hpp"
#include "store_choice.hpp"

namespace gpubench::app {

namespace fs = std::filesystem;

namespace {

/// The files PATHS name: each file as given, each folder's *.json (below it too), sorted by path.
std::vector<std::string> profile_files(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);  // a missing or unreadable file is reported by the reader
      continue;
    }
    std::vector<std::string> found;
    // Links to folders are not followed (no loops); links to files are read like files.
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) found.push_back(it->path().string());
    if (ec) throw usage_error(fmt::format("history import: cannot read the folder {}: {}", path, ec.message()));
    if (found.empty()) throw usage_error(fmt::format("history import: the folder {} holds no *.json profile", path));
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

}  // namespace

int run_history_import(const history_args& a) {
  const std::vector<run_ref> refs = tag_refs(a.tags);
  const std::vector<std::string> files = profile_files(a.paths);
  // Every file is validated before the first is stored: a bad one stores nothing.
  for (const auto& f : files) (void)profile_from_json(read_profile_document(f), f);
  const auto store = open_store_for_writing(a.db);
  if (!store) throw usage_error("history import: the run store is turned off (--db none): give --db FILE or a URL");
  std::size_t added = 0;
  for (const auto& f : files) {
    const add_result r = store->add(read_profile_document(f), refs);
    added += r.added ? 1 : 0;
    fmt::print("#{:<5} {}{}\n", r.id, f, r.added ? "" : " (stored before)");
  }
  // Not cut to 80 columns: the store's path or URL is the point of the line.
  fmt::print("history import: {} stored, {} stored before, in {}\n", added, files.size() - added,
             store->location().display());
  return 0;
}

int run_history_export(const history_args& a) {
  if (names_file(a.run))
    throw usage_error(
        fmt::format("history export {}: give a stored run (#ID, a git sha, a branch or tag), not a file", a.run));
  if (a.out != "-") check_writable(a.out, a.force);
  const auto store = open_store_if_present(a.db);
  if (!store) throw usage_error(fmt::format("history export: {}", no_store_reason(a.db)));
  // The choice goes to stderr: stdout may be the profile.
  const chosen_profile c = resolve_profile(store.get(), a.run, "export", stderr);
  write_text_file(a.out, store->document(c.run->id).dump(2) + "\n", a.force);
  return 0;
}

}  // namespace gpubench::app
