// Branch and tag names for a run (gpubench/run_refs.hpp): given, from the CI's variables, or
// asked of git (started without a shell, process/spawn.hpp).
#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/run_refs.hpp"
#include "process/spawn.hpp"

namespace gpubench {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool usable_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 && std::none_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

void add(std::vector<run_ref>& refs, const std::string& name, const char* kind) {
  if (!usable_name(name)) return;
  if (std::none_of(refs.begin(), refs.end(), [&](const run_ref& r) { return r.name == name; }))
    refs.push_back({name, kind});
}

/// The lines git printed, or nothing when it failed or could not be started.
std::vector<std::string> git_lines(const std::filesystem::path& git, const std::vector<std::string>& args,
                                   const detail::private_dir& scratch) {
  const auto log = scratch.path() / "git.out";
  std::filesystem::remove(log);
  const detail::program_result r = detail::run_program(git, args, log);
  std::vector<std::string> lines;
  if (!r.started || r.exit_code != 0) return lines;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line) && lines.size() < 64;)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

/// The checkout's branch and tags, when its HEAD is the commit gpubench was built from.
void add_from_git(std::vector<run_ref>& refs, const std::string& build_sha) {
  const std::string sha = build_sha.substr(0, build_sha.find("-dirty"));
  if (sha.size() < 7) return;
  const auto git = detail::find_program("git");
  if (git.empty()) return;
  try {
    detail::private_dir scratch;
    const auto head = git_lines(git, {"rev-parse", "HEAD"}, scratch);
    if (head.size() != 1 || head.front().rfind(sha, 0) != 0) return;  // another commit: not this build's code
    for (const auto& b : git_lines(git, {"symbolic-ref", "--short", "-q", "HEAD"}, scratch)) add(refs, b, "branch");
    for (const auto& t : git_lines(git, {"tag", "--points-at", "HEAD"}, scratch)) add(refs, t, "tag");
  } catch (const error&) {  // no scratch directory: the run is recorded without git's names
  }
}

}  // namespace

std::vector<run_ref> tag_refs(const std::vector<std::string>& tags) {
  std::vector<run_ref> refs;
  for (const auto& t : tags) {
    if (!usable_name(t))
      throw usage_error(
          fmt::format("--tag '{}': a tag is 1 to 200 characters without control characters", t.substr(0, 60)));
    add(refs, t, "tag");
  }
  return refs;
}

std::vector<run_ref> detect_run_refs(const std::vector<std::string>& tags, const std::string& build_sha) {
  std::vector<run_ref> refs = tag_refs(tags);
  const std::size_t given = refs.size();
  if (const std::string pr = env("GITHUB_HEAD_REF"); !pr.empty()) add(refs, pr, "branch");
  else if (const std::string gh = env("GITHUB_REF_NAME"); !gh.empty())
    add(refs, gh, env("GITHUB_REF_TYPE") == "tag" ? "tag" : "branch");
  if (const std::string tag = env("CI_COMMIT_TAG"); !tag.empty()) add(refs, tag, "tag");
  else if (const std::string gl = env("CI_COMMIT_REF_NAME"); !gl.empty()) add(refs, gl, "branch");
  if (const std::string own = env("GPUBENCH_REF"); !own.empty()) add(refs, own, "branch");
  if (refs.size() == given) add_from_git(refs, build_sha);
  return refs;
}

}  // namespace gpubench
