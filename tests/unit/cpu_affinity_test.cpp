// Which CPUs this process may use, and holding a thread on one (gpubench/cpu_affinity.hpp).
#include "gpubench/cpu_affinity.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace {

using gpubench::allowed_cpus;

TEST(cpu_affinity, lists_cpus_as_ranges) {
  EXPECT_EQ(gpubench::cpu_list({}), "");
  EXPECT_EQ(gpubench::cpu_list({3}), "3");
  EXPECT_EQ(gpubench::cpu_list({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(gpubench::cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
}

TEST(cpu_affinity, holds_the_calling_thread_alone_and_gives_its_mask_back) {
  const std::vector<int> before = allowed_cpus();
  ASSERT_FALSE(before.empty());
  std::vector<int> other_thread;
  {
    const gpubench::thread_on_cpu held(before.back());
    EXPECT_TRUE(held.pinned());
    EXPECT_EQ(allowed_cpus(), std::vector<int>{before.back()});
    // Threads started while held inherit the one CPU: why only sampling is held, never set-up.
    std::thread([&] { other_thread = allowed_cpus(); }).join();
    EXPECT_EQ(other_thread, std::vector<int>{before.back()});
  }
  EXPECT_EQ(allowed_cpus(), before);
}

TEST(cpu_affinity, a_negative_or_impossible_cpu_holds_nothing) {
  const std::vector<int> before = allowed_cpus();
  for (int cpu : {-1, CPU_SETSIZE}) {
    const gpubench::thread_on_cpu held(cpu);
    EXPECT_FALSE(held.pinned()) << cpu;
    EXPECT_EQ(allowed_cpus(), before) << cpu;
  }
}

}  // namespace
