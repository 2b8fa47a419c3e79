// Which variants a build's other workers warm before their first round (gpubench/warming.hpp).
#include <gtest/gtest.h>

#include "gpubench/warming.hpp"

namespace {

using gpubench::bytes_path;
using gpubench::run_split;
using gpubench::worth_warming;

TEST(warming, a_first_library_call_spent_on_the_host_is_warmed) {
  // A GEMM's first call at a size: tens of milliseconds choosing kernels, then a short kernel.
  EXPECT_TRUE(worth_warming({.host_s = 0.090, .gpu_wait_s = 0.00006}, bytes_path::dram));
  // A longer kernel behind a long host part: the wait is within a quarter of the host time.
  EXPECT_TRUE(worth_warming({.host_s = 0.080, .gpu_wait_s = 0.020}, bytes_path::dram));
}

TEST(warming, a_short_run_is_warmed_whatever_its_host_part) {
  EXPECT_TRUE(worth_warming({.host_s = 0.00001, .gpu_wait_s = 0.0009}, bytes_path::dram));
  EXPECT_TRUE(worth_warming({.host_s = 0, .gpu_wait_s = gpubench::kWarmGpuWaitS}, bytes_path::dram));
}

TEST(warming, gpu_time_that_every_worker_would_queue_is_not_warmed) {
  // An atomic reduction of half a second, a GEMM at 8192: ten workers would queue them on one GPU.
  EXPECT_FALSE(worth_warming({.host_s = 0.00002, .gpu_wait_s = 0.47}, bytes_path::dram));
  EXPECT_FALSE(worth_warming({.host_s = 0.00002, .gpu_wait_s = 0.002}, bytes_path::dram));
  // A wait just over a quarter of the host time.
  EXPECT_FALSE(worth_warming({.host_s = 0.080, .gpu_wait_s = 0.0201}, bytes_path::dram));
}

TEST(warming, a_run_longer_than_the_limit_is_not_warmed_even_on_the_host) {
  EXPECT_FALSE(worth_warming({.host_s = 0.26, .gpu_wait_s = 0}, bytes_path::dram));
  EXPECT_FALSE(worth_warming({.host_s = 0.24, .gpu_wait_s = 0.011}, bytes_path::dram));
}

TEST(warming, copies_over_a_host_or_peer_link_are_not_warmed) {
  for (bytes_path p : {bytes_path::pcie, bytes_path::pcie_duplex, bytes_path::peer, bytes_path::peer_duplex})
    EXPECT_FALSE(worth_warming({.host_s = 0.005, .gpu_wait_s = 0}, p)) << static_cast<int>(p);
}

}  // namespace
