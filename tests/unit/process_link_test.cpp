// Worker processes on a socket (gpubench/worker_link.hpp), with shell scripts standing in for
// `gpubench worker`: a link whose input has ended still reads what the worker says last, and a
// group of workers is let go at once rather than one after another.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "gpubench/worker_link.hpp"
#include "test_support.hpp"

namespace {

std::filesystem::path script(const std::filesystem::path& dir, const std::string& name, const std::string& body) {
  const auto path = dir / name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST(process_link, a_worker_whose_input_ended_can_still_answer) {
  temp_dir dir("gpubench_process_link");
  // Answers only once its input has ended, as a worker finishing its last request would.
  const auto worker = script(dir.path, "worker", "cat >/dev/null\necho '{\"ok\": true, \"last\": 1}'\n");
  gpubench::process_link link(worker, {}, "test worker");
  link.end_input();
  const auto reply = link.receive();
  EXPECT_EQ(reply.value("last", 0), 1) << reply.dump();
}

TEST(process_link, workers_are_let_go_at_once) {
  temp_dir dir("gpubench_process_group");
  // Each takes 0.4 s to exit once its input ends, as a worker tearing down its CUDA context.
  const auto worker = script(dir.path, "worker", "cat >/dev/null\nsleep 0.4\n");
  constexpr int kWorkers = 6;
  const auto t0 = std::chrono::steady_clock::now();
  {
    gpubench::worker_processes group;
    for (int i = 0; i < kWorkers; ++i) group.start(worker, {}, "worker " + std::to_string(i));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // One after another they would take 6 x 0.4 s; together, about one exit's time.
  EXPECT_LT(s, 0.4 * kWorkers / 2) << s;
}

}  // namespace
