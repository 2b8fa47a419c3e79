// Worker processes on a GPU (gpubench/coordinator.hpp), through gpubench_example's command line:
// `run --processes 2` takes every round in one of two workers and tags it, `ab` with the same
// binary on both sides alternates their rounds in cycles and exits 0 (nothing changed), and each
// profile they write reads back, a worker told not to hold its state ("hold": false) builds a
// fresh one for every round, the first too, one told not to verify ("verify": false) says so
// and takes its rounds, one that verifies names what the others may warm and one told to warm
// ("warm") runs those variants and then takes its rounds, a round asked as added ("added": true) samples without the
// minimum time, and a worker asked to plan again (the next chapter) measures its new plan. The coordination itself is
// tested on the CPU with fake workers (tests/unit/coordinator_test.cpp).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "gpubench/profile.hpp"
#include "gpubench/worker_protocol.hpp"

namespace gpubench {
namespace {

int shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// gpubench_example: where the build put it, or GPUBENCH_EXAMPLE_EXE when the tests run elsewhere.
std::string exe() {
  const char* moved = std::getenv("GPUBENCH_EXAMPLE_EXE");
  return std::string("'") + (moved != nullptr ? moved : GPUBENCH_EXAMPLE_EXE) + "'";
}

TEST(workers, run_processes_spreads_the_rounds_over_the_workers) {
  const auto out = std::filesystem::temp_directory_path() / "gpubench_workers_processes.json";
  ASSERT_EQ(shell(exe() + " run --pair ch99/scale_add --smallest --processes 2 --quiet --out '" + out.string() +
                  "' >/dev/null 2>&1"),
            0);
  const profile p = read_profile(out);
  ASSERT_EQ(p.records.size(), 2u);
  for (const record& r : p.records) {
    SCOPED_TRACE(r.id());
    EXPECT_EQ(r.status, record_status::passed) << r.reason;
    std::set<int> processes;
    for (const round_info& ri : r.timing.rounds) processes.insert(ri.process);
    EXPECT_EQ(processes, (std::set<int>{0, 1}));
    EXPECT_GE(r.timing.rounds.size(), 4u);  // at least two rounds per worker
  }
  EXPECT_EQ(p.options.at("processes"), 2);
  std::filesystem::remove(out);
}

TEST(workers, ab_with_one_build_on_both_sides_finds_nothing) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto base = dir / "gpubench_workers_ab_base.json", next = dir / "gpubench_workers_ab_new.json";
  const auto console = dir / "gpubench_workers_ab.txt";
  const int code = shell(exe() + " ab --base " + exe() + " --new " + exe() +
                         " --pair ch99/scale_add --smallest --workers 2 --quiet --out-base '" + base.string() +
                         "' --out-new '" + next.string() + "' >'" + console.string() + "' 2>&1");
  EXPECT_EQ(code, 0) << "the same binary on both sides is never slower than itself";
  std::ifstream in(console);
  std::string text;  // the console's words, its wrapping undone
  for (std::string word; in >> word;) text += word + " ";
  // Both builds' workers held their samples on the CPU asked (the heading says so only then).
  EXPECT_NE(text.find("samples of each worker pair on one CPU of"), std::string::npos) << text;
  std::filesystem::remove(console);
  const profile b = read_profile(base), n = read_profile(next);
  ASSERT_EQ(b.records.size(), 2u);
  ASSERT_EQ(n.records.size(), 2u);
  EXPECT_EQ(b.options.at("ab_session"), n.options.at("ab_session"));
  for (const record& r : n.records) {
    SCOPED_TRACE(r.id());
    ASSERT_FALSE(r.timing.rounds.empty());
    for (const round_info& ri : r.timing.rounds) EXPECT_GE(ri.cycle, 0);
  }
  std::filesystem::remove(base);
  std::filesystem::remove(next);
}

/// The replies of one `gpubench_example worker` to hello, plan (scale_add at its smallest size,
/// with `timing`; asked twice when `plan_again`, as `ab` and `run --processes` plan each chapter in
/// turn), open with `open_fields`, the requests `after_open`, two rounds of `fused` of two planned
/// (the second asked as an added one when `second_added`), close and bye.
std::vector<nlohmann::ordered_json> two_rounds(const nlohmann::ordered_json& open_fields, worker_timing timing = {},
                                               bool second_added = false, bool plan_again = false,
                                               const std::vector<nlohmann::ordered_json>& after_open = {}) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto requests = dir / "gpubench_workers_requests.txt", replies = dir / "gpubench_workers_replies.txt";
  {
    worker_selection sel;
    sel.pairs = {"ch99/scale_add"};
    sel.smallest = true;
    timing.seed = 11;
    std::ofstream out(requests);
    const std::string plan =
        worker_request("plan", {{"selection", to_json(sel)}, {"timing", to_json(timing)}}).dump() + "\n";
    out << worker_request("hello", {{"protocol", kWorkerProtocol}}).dump() << "\n" << plan;
    if (plan_again) out << plan;
    out << worker_request("open", open_fields).dump() << "\n";
    for (const auto& request : after_open) out << request.dump() << "\n";
    for (int round = 0; round < 2; ++round) {
      nlohmann::ordered_json fields{{"item", 0}, {"round", round}, {"planned", 2}, {"variants", {"fused"}}};
      if (round == 1 && second_added) fields["added"] = true;
      out << worker_request("round", fields).dump() << "\n";
    }
    out << worker_request("close", {{"item", 0}}).dump() << "\n" << worker_request("bye").dump() << "\n";
  }
  EXPECT_EQ(shell(exe() + " worker <'" + requests.string() + "' >'" + replies.string() + "' 2>/dev/null"), 0);
  std::ifstream in(replies);
  std::vector<nlohmann::ordered_json> got;
  for (std::string line; std::getline(in, line);) got.push_back(nlohmann::ordered_json::parse(line));
  std::filesystem::remove(requests);
  std::filesystem::remove(replies);
  return got;
}

/// Replies `first` and `first` + 1 of two_rounds: each round timed its one variant, passed, with one
/// round of samples.
void expect_two_timed_rounds(const std::vector<nlohmann::ordered_json>& got, std::size_t first) {
  for (std::size_t round = 0; round < 2; ++round) {
    const profile p = worker_profile_from_json(got.at(first + round).at("profile"), "worker");
    ASSERT_EQ(p.records.size(), 1u);
    const record& r = p.records[0];
    EXPECT_EQ(r.status, record_status::passed) << r.reason;
    ASSERT_EQ(r.timing.rounds.size(), 1u);
    EXPECT_GT(r.timing.rounds[0].samples, 0u);
  }
}

TEST(workers, a_worker_that_does_not_verify_a_size_says_so_and_takes_its_rounds) {
  const std::vector<nlohmann::ordered_json> got = two_rounds({{"item", 0}, {"verify", false}});
  ASSERT_EQ(got.size(), 7u);
  for (const auto& reply : got) EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  const profile opened = worker_profile_from_json(got[2].at("profile"), "worker");
  ASSERT_FALSE(opened.records.empty());
  for (const record& r : opened.records) {
    EXPECT_EQ(r.status, record_status::passed) << r.reason;
    EXPECT_EQ(r.check.result, disposition::not_verified) << r.id();
    EXPECT_NE(r.check.message.find("another worker process"), std::string::npos) << r.check.message;
  }
  expect_two_timed_rounds(got, 3);
}

TEST(workers, a_verifying_open_names_the_variants_cheap_to_warm_elsewhere) {
  const std::vector<nlohmann::ordered_json> got = two_rounds({{"item", 0}});
  ASSERT_EQ(got.size(), 7u);
  for (const auto& reply : got) EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  // Microsecond kernels at 2^20: their first run waits on the GPU far less than a millisecond.
  EXPECT_EQ(got[2].at("warm"), nlohmann::ordered_json({"baseline", "fused"})) << got[2].dump();
  expect_two_timed_rounds(got, 3);
}

TEST(workers, a_worker_that_does_not_verify_warms_what_it_is_asked_then_takes_its_rounds) {
  const std::vector<nlohmann::ordered_json> got =
      two_rounds({{"item", 0}, {"verify", false}}, {}, false, false,
                 {worker_request("warm", {{"item", 0}, {"variants", {"fused", "not-a-variant"}}})});
  ASSERT_EQ(got.size(), 8u);
  for (const auto& reply : got) EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  EXPECT_FALSE(got[2].contains("warm")) << "only a worker that verified knows what is cheap";
  EXPECT_EQ(got[3].value("warmed", -1), 1) << got[3].dump();
  expect_two_timed_rounds(got, 4);
}

TEST(workers, a_worker_that_does_not_hold_its_state_builds_one_for_every_round) {
  const std::vector<nlohmann::ordered_json> got = two_rounds({{"item", 0}, {"hold", false}});
  ASSERT_EQ(got.size(), 7u);
  for (const auto& reply : got) EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  expect_two_timed_rounds(got, 3);
}

TEST(workers, an_added_round_samples_to_its_noise_target_without_the_minimum_time) {
  // 0.4 s of sampling over two planned rounds holds a planned round of this microsecond kernel for
  // 0.2 s; an added round stops at its counts and noise target, as a run's added rounds do.
  worker_timing timing;
  timing.total.min_time_s = 0.4;
  timing.total.timeout_s = 10;
  const std::vector<nlohmann::ordered_json> got = two_rounds({{"item", 0}}, timing, true);
  ASSERT_EQ(got.size(), 7u);
  for (const auto& reply : got) EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  std::size_t samples[2] = {0, 0};
  double wall[2] = {0, 0};
  for (int round = 0; round < 2; ++round) {
    const profile p = worker_profile_from_json(got[3 + static_cast<std::size_t>(round)].at("profile"), "worker");
    ASSERT_EQ(p.records.size(), 1u);
    ASSERT_EQ(p.records[0].timing.rounds.size(), 1u);
    samples[round] = p.records[0].timing.rounds[0].samples;
    wall[round] = p.records[0].timing.rounds[0].wall_s;
  }
  EXPECT_LT(wall[1], 0.1);    // the planned round took 0.2 s, or its 5000 samples
  EXPECT_GE(samples[1], 5u);  // a planned round's counts: ceil(10 / 2)
  EXPECT_LT(samples[1] * 4, samples[0]);
}

TEST(workers, a_worker_asked_to_plan_again_measures_its_new_plan) {
  const std::vector<nlohmann::ordered_json> got = two_rounds({{"item", 0}}, {}, false, true);
  ASSERT_EQ(got.size(), 8u);
  for (const auto& reply : got) EXPECT_TRUE(reply.value("ok", false)) << reply.dump();
  EXPECT_EQ(got[1].at("items"), got[2].at("items"));
  expect_two_timed_rounds(got, 4);
}

}  // namespace
}  // namespace gpubench
