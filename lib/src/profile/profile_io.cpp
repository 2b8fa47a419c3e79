/// Profile files: atomic writes (the run rewrites the profile after every pair, so a crash or a
/// full disk must never leave a half-written file where the last good one was; write_text_file,
/// gpubench/text_file.hpp), validated reads, and the provenance strings the writer records.
#include <ctime>
#include <string>

#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/input_file.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/profile_document.hpp"
#include "gpubench/strict_json.hpp"
#include "gpubench/text_file.hpp"

#ifndef GPUBENCH_VERSION
#define GPUBENCH_VERSION "0.0.0"
#endif
#ifndef GPUBENCH_GIT_SHA
#define GPUBENCH_GIT_SHA ""
#endif

namespace gpubench {

namespace fs = std::filesystem;

void write_profile(const fs::path& path, const profile& p, bool force) {
  // Always a file: a profile path of "-" is the caller's business (run prints to stdout itself).
  // json_text: argv may hold a file name that is not UTF-8, which nlohmann would refuse to write.
  write_text_file(path == "-" ? "./-" : path.string(), json_text(to_json(p)) + "\n", force);
}

profile read_profile(const fs::path& path) { return profile_from_json(read_profile_document(path), path.string()); }

nlohmann::ordered_json read_profile_document(const fs::path& path) {
  const std::string name = path.string();
  // Regular files of bounded size only, read without blocking (gpubench/input_file.hpp).
  const std::string text = read_input_file(path, "profile");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw usage_error(name + ": the file is empty; expected a gpubench profile (JSON)");
  // Repeated keys, deep nesting and numbers beyond a double are refused here (gpubench/strict_json.hpp).
  return parse_strict_json(text, name);
}

std::string version_string() { return GPUBENCH_VERSION; }

std::string build_git_sha() { return GPUBENCH_GIT_SHA; }

std::string now_utc_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[32];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string(buf, n);
}

}  // namespace gpubench
