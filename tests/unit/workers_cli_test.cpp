// `gpubench ab`, `run --processes` and `gpubench worker` from the command line, where no GPU is
// needed: refusals before any work, a program that is no worker, a worker without a GPU, and the
// worker's answers to malformed requests. On a GPU: tests/gpu/workers_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace {

const std::string gb = std::string("'") + GPUBENCH_EXE + "'";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ab_cli, refuses_a_base_that_is_not_an_executable_file) {
  const auto r = run_shell(gb + " ab --base /nonexistent/gpubench --new " + gb + " --chapter 2 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "ab --base /nonexistent/gpubench: not an executable file")) << r.output;
}

TEST(ab_cli, asks_what_to_measure) {
  const auto r = run_shell(gb + " ab --base " + gb + " --new " + gb + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--chapter N or --pair ID")) << r.output;
}

TEST(ab_cli, refuses_two_outputs_on_stdout) {
  const auto r = run_shell(gb + " ab --base " + gb + " --new " + gb + " --chapter 2 --json - --junit - 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--junit and --json all write to stdout") || has(r.output, "--json and --junit"))
      << r.output;
}

TEST(ab_cli, no_output_may_replace_a_build_or_another_output) {
  const auto dir = std::filesystem::temp_directory_path() / "gpubench_ab_outputs";
  std::filesystem::create_directories(dir);
  const auto old_build = dir / "gpubench-old";
  std::filesystem::copy_file(GPUBENCH_EXE, old_build, std::filesystem::copy_options::overwrite_existing);
  const auto size = std::filesystem::file_size(old_build);
  const std::string old_gb = "'" + old_build.string() + "'";
  auto r =
      run_shell(gb + " ab --base " + old_gb + " --new " + gb + " --chapter 2 --out-base " + old_gb + " --force 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--out-base")) << r.output;
  EXPECT_EQ(std::filesystem::file_size(old_build), size) << "the base build was written over";
  const std::string same = "'" + (dir / "same.json").string() + "'";
  r = run_shell(gb + " ab --base " + old_gb + " --new " + gb + " --chapter 2 --json " + same + " --out-new " + same +
                " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "same.json"));
  std::filesystem::remove_all(dir);
}

TEST(ab_cli, a_bad_history_file_is_refused_before_any_worker_starts) {
  temp_dir dir("gpubench_ab_history_cli");
  const auto forged = dir.path / "forged.json";
  std::ofstream(forged) << R"({"ab_session": "a", "devices": {"base": "G", "new": "G"}, "records": [)"
                        << R"({"id": "ch02/x/v[n=1]", "judged_on": "cuda_events_net",)"
                        << R"( "between_pairs": {"var": -1, "df": 7}}]})";
  // /bin/true as both builds: had a worker been started, ab would say it is no gpubench worker.
  auto r = run_shell(gb + " ab --base /bin/true --new /bin/true --chapter 2 --history '" + forged.string() + "' 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "between_pairs.var is -1")) << r.output;
  EXPECT_FALSE(has(r.output, "gpubench worker")) << r.output;
  // No output may be written over a history file.
  const auto size = std::filesystem::file_size(forged);
  r = run_shell(gb + " ab --base /bin/true --new /bin/true --chapter 2 --history '" + forged.string() + "' --json '" +
                forged.string() + "' --force 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--history")) << r.output;
  EXPECT_EQ(std::filesystem::file_size(forged), size);
}

TEST(ab_cli, a_program_that_is_no_gpubench_worker_is_named_with_what_to_do) {
  const auto r = run_shell(gb + " ab --base /bin/true --new /bin/true --chapter 2 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "did not answer as a gpubench worker")) << r.output;
  EXPECT_TRUE(has(r.output, "rebuild that side")) << r.output;
}

/// A "build" in `dir` that notes each start in `log` and exits: ab starts every worker before it
/// speaks to one.
struct start_counting_build {
  std::filesystem::path fake, log;
  explicit start_counting_build(const temp_dir& dir) : fake(dir.path / "gpubench"), log(dir.path / "starts") {
    std::ofstream(fake) << "#!/bin/sh\necho started >> '" << log.string() << "'\n";
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  }
};

TEST(ab_cli, starts_sixteen_workers_a_build_and_six_with_quick_unless_workers_is_given) {
  temp_dir dir("gpubench_ab_quick_cli");
  const start_counting_build build(dir);
  const auto& fake = build.fake;
  const auto& log = build.log;
  const auto starts = [&](const std::string& options) {
    std::filesystem::remove(log);
    const auto r = run_shell(gb + " ab --base '" + fake.string() + "' --new '" + fake.string() + "' --chapter 2 " +
                             options + " 2>&1");
    EXPECT_EQ(r.status, 2) << r.output;  // no gpubench worker answered
    std::ifstream in(log);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) ++n;
    return n;
  };
  EXPECT_EQ(starts(""), 32);
  EXPECT_EQ(starts("--quick"), 12);
  EXPECT_EQ(starts("--quick --workers 2"), 4);
}

TEST(ab_cli, several_chapters_with_a_pair_are_refused_before_any_worker_starts) {
  temp_dir dir("gpubench_ab_chapters_cli");
  const start_counting_build build(dir);
  const auto r = run_shell(gb + " ab --base '" + build.fake.string() + "' --new '" + build.fake.string() +
                           "' --chapter 2,3 --pair transpose 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--pair with more than one --chapter")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(build.log)) << "no worker was started";
}

TEST(ab_cli, workers_without_a_gpu_fail_with_their_own_reason) {
  const auto r = run_shell("CUDA_VISIBLE_DEVICES= " + gb + " ab --base " + gb + " --new " + gb + " --chapter 2 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "worker 0")) << r.output;
}

TEST(run_processes_cli, refuses_profile_mode) {
  const auto r = run_shell(gb + " run --chapter 2 --processes 2 --profile 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--processes")) << r.output;
}

TEST(run_processes_cli, workers_without_a_gpu_fail_with_exit_1) {
  const temp_dir dir;
  const auto r = run_shell("CUDA_VISIBLE_DEVICES= " + gb + " run --chapter 2 --processes 2 --out '" +
                           (dir.path / "p.json").string() + "' 2>&1");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(dir.empty()) << "nothing written";
}

TEST(worker_cli, answers_each_malformed_request_with_a_failure_and_goes_on) {
  const auto r = run_shell("printf '%s\\n' 'not json' '{\"op\":\"nope\"}' '{\"op\":\"open\",\"item\":0}' "
                           "'{\"op\":\"prepare\",\"item\":0,\"round\":1}' '{\"op\":\"bye\"}' | " +
                           gb + " worker 2>/dev/null");
  EXPECT_EQ(r.status, 0) << r.output;
  std::vector<nlohmann::json> replies;
  std::size_t from = 0;
  for (std::size_t nl; (nl = r.output.find('\n', from)) != std::string::npos; from = nl + 1)
    replies.push_back(nlohmann::json::parse(r.output.substr(from, nl - from)));
  ASSERT_EQ(replies.size(), 5u) << r.output;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(replies[i]["ok"], false) << replies[i].dump();
    EXPECT_EQ(replies[i]["exit"], 2) << replies[i].dump();
  }
  EXPECT_TRUE(has(replies[1]["error"].get<std::string>(), "unknown request 'nope'"));
  EXPECT_TRUE(has(replies[2]["error"].get<std::string>(), "no plan yet"));
  EXPECT_TRUE(has(replies[3]["error"].get<std::string>(), "no plan yet"));
  EXPECT_EQ(replies[4]["ok"], true);
}

}  // namespace
