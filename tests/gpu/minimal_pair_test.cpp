// examples/minimal_pair.cu on a GPU: both variants run, the fused one verifies against the
// baseline, and both are timed; through the engine and through gpubench_example's `run`, whose
// profile must read back. Its declaration is checked on the CPU (tests/unit/minimal_pair_test.cpp).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "gpubench/profile.hpp"
#include "gpubench/runner.hpp"

namespace gpubench {
namespace {

void expect_passed_and_timed(const std::vector<record>& records) {
  ASSERT_EQ(records.size(), 2u);  // the smallest size: baseline and fused
  for (const record& r : records) {
    SCOPED_TRACE(r.id());
    EXPECT_EQ(r.status, record_status::passed) << r.reason;
    ASSERT_TRUE(r.stats.has_value());
    EXPECT_GT(r.stats->median, 0);
  }
  EXPECT_EQ(records[0].check.result, disposition::reference);
  EXPECT_EQ(records[1].check.result, disposition::passed) << records[1].reason;
  EXPECT_TRUE(records[1].speedup.has_value());
}

TEST(minimal_pair, runs_and_verifies_through_the_engine) {
  run_options o = run_options::quick();
  o.smallest = true;
  runner r(0, o);
  run_observer quiet;
  expect_passed_and_timed(r.run(registry::global().select(99, {"scale_add"}), quiet));
}

TEST(minimal_pair, runs_and_verifies_through_the_command_line) {
  const auto out = std::filesystem::temp_directory_path() / "gpubench_minimal_pair_test.json";
  // Where the build put gpubench_example, or GPUBENCH_EXAMPLE_EXE when the tests run elsewhere.
  const char* moved = std::getenv("GPUBENCH_EXAMPLE_EXE");
  const std::string cmd = std::string("'") + (moved != nullptr ? moved : GPUBENCH_EXAMPLE_EXE) +
                          "' run --pair ch99/scale_add --smallest --quick --quiet --out '" + out.string() +
                          "' >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "0: every variant verified (3 would be a failed verification)";
  expect_passed_and_timed(read_profile(out).records);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace gpubench
