// Theoretical ceilings against numbers worked out by hand from the formulas in device_info.hpp.
#include <gtest/gtest.h>

#include "gpubench/device_info.hpp"

namespace gpubench {
namespace {

// The facts an H100 SXM5 80GB reports: 132 SMs, cc 9.0, 1980 MHz peak SM clock, HBM3 at 2619 MHz
// on a 5120-bit bus, PCIe gen5 x16.
device_info h100_sxm() {
  device_info d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.sm_clock_max_mhz = 1980;
  d.memory_clock_mhz = 2619;
  d.memory_bus_width_bits = 5120;
  d.pcie_gen_max = 5;
  d.pcie_width_max = 16;
  return d;
}

TEST(device_ceilings, h100_sxm_theoretical) {
  const ceilings c = theoretical_ceilings(h100_sxm());
  EXPECT_EQ(c.source, "theoretical");
  EXPECT_DOUBLE_EQ(c.fp32_flops_per_s, 132.0 * 128 * 2 * 1.98e9);  // ~66.9 TFLOP/s
  EXPECT_DOUBLE_EQ(c.fp64_flops_per_s, 132.0 * 64 * 2 * 1.98e9);   // ~33.5 TFLOP/s
  EXPECT_DOUBLE_EQ(c.dram_bytes_per_s, 2 * 2619e6 * 5120 / 8);     // ~3.35 TB/s
  EXPECT_NEAR(c.pcie_bytes_per_s, 63.015e9, 1e6);
  EXPECT_DOUBLE_EQ(c.pcie_duplex_bytes_per_s, c.pcie_bytes_per_s) << "full duplex on paper";
}

TEST(device_ceilings, no_pcie_facts_means_no_pcie_ceiling) {
  device_info d = h100_sxm();
  d.pcie_gen_max.reset();
  EXPECT_EQ(theoretical_ceilings(d).pcie_bytes_per_s, 0.0);
  d = h100_sxm();
  d.pcie_width_max.reset();
  EXPECT_EQ(theoretical_ceilings(d).pcie_bytes_per_s, 0.0);
}

TEST(device_ceilings, unknown_compute_capability_has_no_flop_ceiling) {
  device_info d = h100_sxm();
  d.cc_major = 5;
  d.cc_minor = 2;
  const ceilings c = theoretical_ceilings(d);
  EXPECT_EQ(c.fp32_flops_per_s, 0.0);
  EXPECT_EQ(c.fp64_flops_per_s, 0.0);
  EXPECT_GT(c.dram_bytes_per_s, 0.0);  // memory facts do not depend on the compute capability
}

TEST(device_ceilings, default_device_info_is_all_zero) {
  const ceilings c = theoretical_ceilings(device_info{});
  EXPECT_EQ(c.dram_bytes_per_s, 0.0);
  EXPECT_EQ(c.pcie_bytes_per_s, 0.0);
  EXPECT_EQ(c.fp32_flops_per_s, 0.0);
  EXPECT_EQ(c.fp64_flops_per_s, 0.0);
}

TEST(device_ceilings, fp32_lanes) {
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(7, 5), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(8, 7), 128);
  EXPECT_EQ(fp32_lanes_per_sm(8, 9), 128);
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(10, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(12, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(6, 0), 0);
  EXPECT_EQ(fp32_lanes_per_sm(8, 5), 0);
  EXPECT_EQ(fp32_lanes_per_sm(9, 1), 0);
  EXPECT_EQ(fp32_lanes_per_sm(0, 0), 0);
}

TEST(device_ceilings, fp64_lanes) {
  EXPECT_EQ(fp64_lanes_per_sm(7, 0), 32);
  EXPECT_EQ(fp64_lanes_per_sm(8, 0), 32);
  EXPECT_EQ(fp64_lanes_per_sm(9, 0), 64);
  EXPECT_EQ(fp64_lanes_per_sm(10, 0), 64);
  EXPECT_EQ(fp64_lanes_per_sm(8, 6), 2);
  EXPECT_EQ(fp64_lanes_per_sm(8, 9), 2);
  EXPECT_EQ(fp64_lanes_per_sm(12, 0), 2);
  EXPECT_EQ(fp64_lanes_per_sm(6, 0), 0);
  EXPECT_EQ(fp64_lanes_per_sm(0, 0), 0);
}

TEST(device_ceilings, pcie_by_generation) {
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(1, 1), 2.5e9 * 8 / 10 / 8);         // 250 MB/s
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(2, 16), 5e9 * 8 / 10 / 8 * 16);     // 8 GB/s
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(3, 16), 8e9 * 128 / 130 / 8 * 16);  // ~15.75 GB/s
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(4, 16), 16e9 * 128 / 130 / 8 * 16); // ~31.51 GB/s
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(5, 16), 32e9 * 128 / 130 / 8 * 16); // ~63.02 GB/s
  EXPECT_NEAR(pcie_bytes_per_s(5, 16), 63.015e9, 1e6);
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(6, 16), 64e9 * 128 / 130 / 8 * 16); // approximation, see source
  EXPECT_DOUBLE_EQ(pcie_bytes_per_s(4, 8), pcie_bytes_per_s(4, 16) / 2);
}

TEST(device_ceilings, pcie_unknown_is_zero) {
  EXPECT_EQ(pcie_bytes_per_s(0, 16), 0.0);
  EXPECT_EQ(pcie_bytes_per_s(7, 16), 0.0);
  EXPECT_EQ(pcie_bytes_per_s(-1, 16), 0.0);
  EXPECT_EQ(pcie_bytes_per_s(4, 0), 0.0);
  EXPECT_EQ(pcie_bytes_per_s(4, -16), 0.0);
}

}  // namespace
}  // namespace gpubench
