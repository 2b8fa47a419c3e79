// The unit tests never touch the user's run store: every gpubench they start inherits GPUBENCH_DB
// set here, before main, to "none" (the store tests give their own --db). CI variables that name a
// branch are cleared too, so that recorded refs come only from what a test sets.
#include <cstdlib>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

const bool isolated = [] {
  setenv("GPUBENCH_DB", "none", 1);
  for (const char* name : {"GPUBENCH_DB_TIMEOUT", "GPUBENCH_REF", "GITHUB_HEAD_REF", "GITHUB_REF_NAME",
                           "GITHUB_REF_TYPE", "CI_COMMIT_TAG", "CI_COMMIT_REF_NAME"})
    unsetenv(name);
  return true;
}();

TEST(StoreIsolation, TestsRunWithTheStoreTurnedOff) {
  ASSERT_TRUE(isolated);
  ASSERT_NE(std::getenv("GPUBENCH_DB"), nullptr);
  EXPECT_STREQ(std::getenv("GPUBENCH_DB"), "none");
  const auto r = run_shell(std::string("'") + GPUBENCH_EXE + "' history 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("turned off"), std::string::npos) << r.output;
}

}  // namespace
