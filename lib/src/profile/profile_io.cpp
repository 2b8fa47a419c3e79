/// Profile files: atomic writes (the run rewrites the profile after every pair, so a crash or a
/// full disk must never leave a half-written file where the last good one was; write_text_file,
/// gpubench/text_file.hpp), validated reads, and the provenance strings the writer records.
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/profile_document.hpp"
#include "gpubench/text_file.hpp"

#ifndef GPUBENCH_VERSION
#define GPUBENCH_VERSION "0.0.0"
#endif
#ifndef GPUBENCH_GIT_SHA
#define GPUBENCH_GIT_SHA ""
#endif

namespace gpubench {

namespace fs = std::filesystem;

namespace {

/// 1-based line and column of byte offset `byte` (nlohmann reports 1-based byte positions).
std::string where_in(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

void write_profile(const fs::path& path, const profile& p, bool force) {
  // Always a file: a profile path of "-" is the caller's business (run prints to stdout itself).
  write_text_file(path == "-" ? "./-" : path.string(), to_json(p).dump(2) + "\n", force);
}

profile read_profile(const fs::path& path) { return profile_from_json(read_profile_document(path), path.string()); }

nlohmann::ordered_json read_profile_document(const fs::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw usage_error(name + ": no such file; pass the profile that `gpubench run --out` wrote");
  if (fs::is_directory(path, ec)) throw usage_error(name + ": is a directory, not a profile file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(name + ": cannot open: " + std::strerror(errno));
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw usage_error(name + ": cannot read: " + std::strerror(errno));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw usage_error(name + ": the file is empty; expected a gpubench profile (JSON)");

  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // A profile is rewritten atomically, so one that ends early was cut by something else
    // (a copy, an editor); say so rather than leave the user to decode the parser's message.
    const bool truncated = e.byte >= text.size();
    // nlohmann's text repeats the position after an "[json.exception...] parse error at" prefix.
    std::string detail = e.what();
    if (const auto col = detail.find(", column "); col != std::string::npos)
      if (const auto colon = detail.find(": ", col); colon != std::string::npos) detail.erase(0, colon + 2);
    throw usage_error(name + ": not valid JSON at " + where_in(text, e.byte) +
                      (truncated ? " (the file ends early: truncated?)" : "") + ": " + detail);
  }
  return j;
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
