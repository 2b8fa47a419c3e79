/// scripts/sanitize.sh without a GPU: it must refuse clearly (exit 1, "needs a GPU") rather than
/// report a wall of failed sanitizer runs, and reject bad arguments with exit 2. On a GPU machine
/// the no-GPU case is skipped (the script then really runs compute-sanitizer: minutes).
#include <gtest/gtest.h>

#include <string>
#include "test_support.hpp"

namespace {

shell_result sh(const std::string& cmd) { return run_shell(cmd + " 2>&1"); }

std::string script(const std::string& args) {
  return std::string("cd '") + GPUBENCH_SOURCE_DIR + "' && GB='" + GPUBENCH_EXE + "' bash scripts/sanitize.sh " + args;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(SanitizeScript, ParsesAsBash) {
  const auto r = sh(std::string("bash -n '") + GPUBENCH_SOURCE_DIR + "/scripts/sanitize.sh'");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(SanitizeScript, BadArgumentsAreUsageErrors) {
  auto r = sh(script("--tools memchek"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "unknown tool 'memchek'")) << r.output;
  r = sh(script("--chapters 'one'"));
  EXPECT_EQ(r.status, 2) << r.output;
  r = sh(script("--frobnicate"));
  EXPECT_EQ(r.status, 2) << r.output;
}

TEST(SanitizeScript, WithoutAGpuItSaysSoAndFails) {
  const auto device = sh(std::string("'") + GPUBENCH_EXE + "' device");
  if (device.status == 0) GTEST_SKIP() << "a CUDA device is present";
  const auto r = sh(script("--out /nonexistent-dir-never-created"));
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "compute-sanitizer needs a GPU")) << r.output;
  EXPECT_TRUE(has(r.output, "No CUDA device")) << r.output;  // gpubench's own reason, passed on
}

}  // namespace
