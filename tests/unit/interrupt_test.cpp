/// Unit tests for gpubench::interrupt_guard: Ctrl-C (SIGINT) prints where the profile is and
/// exits with 130, waits for a profile write in progress, and leaves the previous disposition
/// behind. Each case that exits runs in a death-test child process.
#include "gpubench/interrupt.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace {

using gpubench::interrupt_guard;

TEST(InterruptDeathTest, PrintsTheMessageAndExits130) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        interrupt_guard g("no profile was written");
        std::raise(SIGINT);
        std::fputs("not reached\n", stderr);
      },
      ::testing::ExitedWithCode(130), "gpubench: interrupted; no profile was written\n$");
}

TEST(InterruptDeathTest, ACtrlCDuringAWriteWaitsForItThenSaysWhatWasWritten) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        interrupt_guard g("nothing yet");
        g.begin_write("p.json keeps its old contents");
        std::raise(SIGINT);  // arrives mid-write: the handler returns
        std::fputs("write finished\n", stderr);
        g.end_write("the partial profile (4 records) is kept in p.json");
        std::fputs("not reached\n", stderr);
      },
      ::testing::ExitedWithCode(130),
      "write finished\n\ngpubench: interrupted; the partial profile \\(4 records\\) is kept in p.json\n$");
}

TEST(InterruptDeathTest, ASecondCtrlCDuringAWriteExitsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        interrupt_guard g("nothing yet");
        g.begin_write("p.json keeps its old contents");
        std::raise(SIGINT);
        std::raise(SIGINT);
        std::fputs("not reached\n", stderr);
      },
      ::testing::ExitedWithCode(130), "gpubench: interrupted; p.json keeps its old contents\n$");
}

TEST(InterruptDeathTest, AfterAWriteTheNewMessageIsTheOneShown) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        interrupt_guard g("no profile was written");
        g.begin_write("again");
        g.end_write("the partial profile (2 records) is kept in p.json");
        std::raise(SIGINT);
      },
      ::testing::ExitedWithCode(130), "interrupted; the partial profile \\(2 records\\) is kept in p.json\n$");
}

TEST(Interrupt, RestoresThePreviousDisposition) {
  struct sigaction before {};
  sigaction(SIGINT, nullptr, &before);
  {
    interrupt_guard g("x");
    struct sigaction during {};
    sigaction(SIGINT, nullptr, &during);
    EXPECT_NE(during.sa_handler, before.sa_handler);
    g.begin_write("y");
    g.end_write("z");  // no Ctrl-C came: returns
  }
  struct sigaction after {};
  sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
