// GPU test of `gpubench device --ceilings`: one measurement on device 0, printed as a table, held
// to what a ceiling must be (finite, positive, our DRAM copy within 5% of cudaMemcpy, FP32 within
// 10% of the datasheet peak, graphs launching faster than streams, done within 20 s).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "gpubench/ceilings.hpp"
#include "gpubench/cuda.hpp"
#include "gpubench/device_query.hpp"

namespace gpubench {
namespace {

const ceiling* find_ceiling(const ceilings& c, const std::string& name) {
  for (const auto& x : c.table)
    if (x.name == name) return &x;
  return nullptr;
}

/// Value in the unit a person reads: GB/s, TFLOP/s or µs.
double scaled(const ceiling& c, double v) {
  if (c.unit == "B/s") return v / 1e9;
  if (c.unit == "FLOP/s") return v / 1e12;
  return v * 1e6;
}
const char* scaled_unit(const ceiling& c) {
  if (c.unit == "B/s") return "GB/s";
  if (c.unit == "FLOP/s") return "TFLOP/s";
  return "us";
}

TEST(gpu_ceilings, measured_ceilings_are_sane_and_reach_their_targets) {
  GPUBENCH_CUDA(cudaSetDevice(0));
  const device_info d = query_device(0);
  const auto t0 = std::chrono::steady_clock::now();
  const ceilings c = measure_ceilings(d, [&](const std::string& step) {
    const double at = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ceilings] %6.2f s: %s\n", at, step.c_str());
  });
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("\nceilings of %s (cc %d.%d, %d SMs, %.0f MHz max SM clock), measured in %.2f s\n", d.name.c_str(),
              d.cc_major, d.cc_minor, d.sm_count, d.sm_clock_max_mhz, took);
  std::printf("%-18s %12s %12s %12s %8s  %s\n", "name", "value", "theoretical", "reference", "fraction", "unit");
  for (const auto& x : c.table) {
    const double base = x.reference > 0 ? x.reference : x.theoretical;
    std::printf("%-18s %12.3f %12.3f %12.3f %8s  %s\n", x.name.c_str(), scaled(x, x.value), scaled(x, x.theoretical),
                scaled(x, x.reference), base > 0 ? std::to_string(x.value / base).substr(0, 5).c_str() : "-",
                scaled_unit(x));
  }
  for (const auto& x : c.table) std::printf("  %-18s %s\n", x.name.c_str(), x.method.c_str());
  std::printf("(fraction: value / reference where there is one, else value / theoretical)\n");
  std::fflush(stdout);

  EXPECT_EQ(c.source, "measured");
  EXPECT_FALSE(c.measured_at.empty());
  for (const auto& x : c.table) {
    SCOPED_TRACE(x.name);
    EXPECT_TRUE(std::isfinite(x.value));
    EXPECT_GT(x.value, 0);
    EXPECT_TRUE(std::isfinite(x.theoretical));
    EXPECT_TRUE(std::isfinite(x.reference));
    EXPECT_FALSE(x.method.empty());
  }
  for (const char* name : {"dram", "l2", "fp32", "fp64", "tf32", "fp16", "bf16", "pcie_h2d_pinned", "pcie_d2h_pinned",
                           "pcie_h2d_pageable", "pcie_d2h_pageable", "launch_stream", "launch_graph"})
    EXPECT_NE(find_ceiling(c, name), nullptr) << "missing ceiling " << name;

  const ceiling* dram = find_ceiling(c, "dram");
  ASSERT_NE(dram, nullptr);
  EXPECT_GT(dram->reference, 0);
  EXPECT_GE(dram->value, 0.95 * dram->reference) << "the copy kernel should reach 95% of cudaMemcpy D2D";

  const ceiling* fp32 = find_ceiling(c, "fp32");
  ASSERT_NE(fp32, nullptr);
  if (fp32->theoretical > 0) EXPECT_GE(fp32->value, 0.90 * fp32->theoretical) << "the FMA loop should reach 90% of peak";
  EXPECT_LE(took, 20.0) << "measure_ceilings must finish within 20 s";

  const ceiling* stream = find_ceiling(c, "launch_stream");
  const ceiling* graph = find_ceiling(c, "launch_graph");
  ASSERT_NE(stream, nullptr);
  ASSERT_NE(graph, nullptr);
  EXPECT_LT(graph->value, stream->value) << "a graph node should launch faster than a stream launch";

  EXPECT_GT(c.dram_bytes_per_s, 0);
  EXPECT_GT(c.pcie_bytes_per_s, 0);
  // Both ways at once can be slower per direction than one way, never meaningfully faster.
  EXPECT_GT(c.pcie_duplex_bytes_per_s, 0);
  EXPECT_LT(c.pcie_duplex_bytes_per_s, 1.05 * c.pcie_bytes_per_s);
  EXPECT_GT(c.fp32_flops_per_s, 0);
  EXPECT_GT(c.fp64_flops_per_s, 0);
  EXPECT_GT(c.tf32_flops_per_s, 0);
  EXPECT_GT(c.fp16_flops_per_s, 0);
  EXPECT_GT(c.bf16_flops_per_s, 0);
}

}  // namespace
}  // namespace gpubench
