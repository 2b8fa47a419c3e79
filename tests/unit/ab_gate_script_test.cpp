/// examples/ci/ab-gate.sh without a GPU, against a stand-in gpubench that logs its calls: bad input
/// is refused before anything runs, the newest earlier sessions go to ab as --history, a judged
/// session is kept for the next job and an unjudged one is not, the kept history stays bounded, and a
/// job with fewer than two earlier sessions says how to seed them.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

/// A stand-in gpubench: logs each call's arguments to calls.log, one line a call; for `ab` it
/// writes a small session file to --json and exits $FAKE_RC (default 0).
std::string write_stand_in(const temp_dir& d) {
  const fs::path gb = d.path / "gpubench";
  std::ofstream(gb) << "#!/bin/sh\n"
                    << "echo \"$*\" >> '" << (d.path / "calls.log").string() << "'\n"
                    << "[ \"$1\" = ab ] || exit 0\n"
                    << "while [ $# -gt 0 ]; do [ \"$1\" = --json ] && echo '{\"ab_session\": \"s\"}' > \"$2\"; "
                       "shift; done\n"
                    << "exit ${FAKE_RC:-0}\n";
  EXPECT_EQ(run_shell("chmod +x '" + gb.string() + "'").status, 0);
  return gb.string();
}

std::vector<std::string> calls(const temp_dir& d) {
  std::ifstream in(d.path / "calls.log");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// ab-gate.sh run in `d` with the stand-in as both builds, its cache and reports inside `d`.
shell_result gate(const temp_dir& d, const std::string& args, const std::string& env = "") {
  const std::string gb = (d.path / "gpubench").string();
  return run_shell("cd '" + d.path.string() + "' && " + env + " GPUBENCH='" + gb + "' BASE_GPUBENCH='" + gb +
                   "' GPUBENCH_CACHE='" + (d.path / "cache").string() + "' GPUBENCH_OUT='" + (d.path / "out").string() +
                   "' bash '" + GPUBENCH_SOURCE_DIR + "/examples/ci/ab-gate.sh' " + args + " 2>&1");
}

/// The path a run said it kept as history, or "" if it kept none.
std::string kept_path(const std::string& output) {
  const std::string mark = "kept this session as history: ";
  const auto at = output.find(mark);
  if (at == std::string::npos) return "";
  return output.substr(at + mark.size(), output.find('\n', at) - at - mark.size());
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::size_t history_files(const temp_dir& d) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(d.path / "cache"))
    if (e.is_regular_file() && e.path().extension() == ".json") ++n;
  return n;
}

TEST(AbGateScript, RefusesBadInputBeforeAnythingRuns) {
  temp_dir d("gpubench_ab_gate");
  write_stand_in(d);
  for (const auto& [args, env, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"", "", "usage: examples/ci/ab-gate.sh BASE_REF"},
           {"main '2;rm -rf x'", "", "CHAPTERS must be a comma-separated list"},
           {"main 2", "AB_MODE=fast", "AB_MODE must be quick or default"},
           {"main 2", "AB_HISTORY=many", "AB_HISTORY must be a whole number"},
           {"main 2", "AB_HISTORY=0", "AB_HISTORY must be a whole number of at least 1"},
       }) {
    const auto r = gate(d, args, env);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, says)) << args << "\n" << r.output;
  }
  // Without BASE_GPUBENCH the base is built from BASE_REF, which must name a commit here.
  const auto r = run_shell("cd '" + d.path.string() + "' && GIT_CEILING_DIRECTORIES='" + d.path.string() +
                           "' GPUBENCH='" + (d.path / "gpubench").string() + "' GPUBENCH_CACHE='" +
                           (d.path / "cache").string() + "' GPUBENCH_OUT='" + (d.path / "out").string() + "' bash '" +
                           GPUBENCH_SOURCE_DIR + "/examples/ci/ab-gate.sh' main 2 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "BASE_REF 'main' is no commit of this repository")) << r.output;
  EXPECT_TRUE(calls(d).empty());
}

TEST(AbGateScript, PassesTheNewestSessionsAsHistoryAndKeepsEachJudgedOne) {
  temp_dir d("gpubench_ab_gate");
  const std::string gb = write_stand_in(d);
  std::vector<std::string> kept;
  for (int job = 0; job < 6; ++job) {
    const auto r = gate(d, "main", "AB_HISTORY=2");
    ASSERT_EQ(r.status, 0) << r.output;
    const auto log = calls(d);
    ASSERT_EQ(log.size(), std::size_t(job + 1));
    const std::string& call = log.back();
    EXPECT_TRUE(has(call, "ab --base " + gb + " --new " + gb + " --chapter 2,3,4,5,6,7 --quick")) << call;
    EXPECT_TRUE(has(call, "--json " + (d.path / "out" / "ab.json").string())) << call;
    // The newest two earlier sessions, none older.
    EXPECT_EQ(count(call, "--history "), std::size_t(std::min(job, 2))) << call;
    for (std::size_t k = 0; k < kept.size(); ++k)
      EXPECT_EQ(has(call, "--history " + kept[k]), k + 2 >= kept.size()) << k << ": " << call;
    // With fewer than two sessions to pass, the job says its intervals are wider and how to seed.
    EXPECT_EQ(has(r.output, "fewer than two earlier sessions as history, so intervals are wider"), job < 2) << r.output;
    kept.push_back(kept_path(r.output));
    ASSERT_FALSE(kept.back().empty()) << r.output;
    EXPECT_TRUE(fs::exists(kept.back()));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // distinct modification times
  }
  EXPECT_EQ(history_files(d), 4u) << "twice AB_HISTORY are kept, the older ones removed";
}

TEST(AbGateScript, KeepsASessionOnlyWhenAbJudgedIt) {
  temp_dir d("gpubench_ab_gate");
  write_stand_in(d);
  auto r = gate(d, "main 1 --fail-on slower", "FAKE_RC=1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "ab exited 1; this session is not kept as history")) << r.output;
  EXPECT_EQ(history_files(d), 0u);
  r = gate(d, "main 1 --fail-on slower", "FAKE_RC=4");
  EXPECT_EQ(r.status, 4) << r.output;
  EXPECT_EQ(history_files(d), 1u) << "a session that caught a regression still samples the spread";
  std::string call = calls(d).back();
  EXPECT_FALSE(has(call, "--history")) << "the failed session was not kept: " << call;
  EXPECT_TRUE(has(call, "--fail-on slower")) << call;
  r = gate(d, "main 1");
  EXPECT_EQ(r.status, 0) << r.output;
  call = calls(d).back();
  EXPECT_EQ(count(call, "--history "), 1u) << call;
  EXPECT_TRUE(has(call, "--chapter 1 --quick --history ")) << call;
  // The default mode has a history of its own and passes no --quick.
  r = gate(d, "main 1", "AB_MODE=default");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(has(calls(d).back(), "--quick")) << calls(d).back();
  EXPECT_FALSE(has(calls(d).back(), "--history")) << calls(d).back();
  EXPECT_TRUE(has(r.output, "0 earlier sessions as history")) << r.output;
}

}  // namespace
