/// Unit tests for gpubench::derive(): throughput, the physical floor, suspect marking, per-item
/// cost and speedup. Every expected value is the arithmetic of the work model written out in the
/// comment next to it.
#include <gtest/gtest.h>

#include "gpubench/record.hpp"

namespace {

using gpubench::bytes_path;
using gpubench::ceilings;
using gpubench::derive;
using gpubench::flop_kind;
using gpubench::record;
using gpubench::record_status;

gpubench::summary stats_with_median(double median) {
  gpubench::summary s;
  s.count = 10;
  s.median = s.min = s.max = median;
  return s;
}

ceilings sample_ceilings() {
  ceilings c;
  c.source = "theoretical";
  c.dram_bytes_per_s = 2e12;  // 2 TB/s
  c.pcie_bytes_per_s = 25e9;  // 25 GB/s
  c.fp32_flops_per_s = 1e13;  // 10 TFLOP/s
  c.fp64_flops_per_s = 5e12;
  return c;
}

/// 1 GB over DRAM and 2 GFLOP of fp32, median 1 ms.
record sample_record(double median = 1e-3) {
  record r;
  r.chapter = 1;
  r.pair = "p";
  r.variant = "optimized";
  r.declared.bytes = 1e9;
  r.declared.flops = 2e9;
  r.declared.path = bytes_path::dram;
  r.declared.flops_kind = flop_kind::fp32;
  r.stats = stats_with_median(median);
  return r;
}

TEST(Derive, ThroughputAndFloor) {
  auto r = sample_record();
  derive(r, sample_ceilings(), nullptr);
  EXPECT_DOUBLE_EQ(r.bytes_per_s, 1e12);  // 1e9 B / 1e-3 s
  EXPECT_DOUBLE_EQ(r.flops_per_s, 2e12);  // 2e9 FLOP / 1e-3 s
  EXPECT_EQ(r.s_per_item, 0.0);           // no items declared
  ASSERT_TRUE(r.floor.has_value());
  // bytes: 1e9 / 2e12 = 5e-4 s; flops: 2e9 / 1e13 = 2e-4 s; floor = max = 5e-4, DRAM-bound.
  EXPECT_DOUBLE_EQ(r.floor->time_s, 5e-4);
  EXPECT_EQ(r.floor->bound, "dram");
  EXPECT_DOUBLE_EQ(r.floor->fraction, 0.5);  // 5e-4 / 1e-3
  EXPECT_FALSE(r.floor->suspect);
  EXPECT_FALSE(r.speedup.has_value());  // no baseline
}

TEST(Derive, ComputeBoundFloorNamesTheFlopKind) {
  auto r = sample_record();
  r.declared.flops = 2e10;  // 2e10 / 1e13 = 2e-3 s > 5e-4 s of bytes
  derive(r, sample_ceilings(), nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.floor->time_s, 2e-3);
  EXPECT_EQ(r.floor->bound, "fp32");
  // Measured 1e-3 s against a 2e-3 s floor: fraction 2, and suspect (1e-3 < 2e-3 * 0.95).
  EXPECT_DOUBLE_EQ(r.floor->fraction, 2.0);
  EXPECT_TRUE(r.floor->suspect);
}

TEST(Derive, SuspectOnlyBelowFloorMinusSlack) {
  // Floor 5e-4 s; default slack 0.05 puts the threshold at 5e-4 * 0.95 = 4.75e-4 s.
  auto below = sample_record(4.7e-4);
  derive(below, sample_ceilings(), nullptr);
  EXPECT_TRUE(below.floor->suspect);

  auto at_floor = sample_record(5e-4);
  derive(at_floor, sample_ceilings(), nullptr);
  EXPECT_FALSE(at_floor.floor->suspect);
  EXPECT_DOUBLE_EQ(at_floor.floor->fraction, 1.0);

  auto within_slack = sample_record(4.9e-4);  // 2% under the floor, inside the 5% slack
  derive(within_slack, sample_ceilings(), nullptr);
  EXPECT_FALSE(within_slack.floor->suspect);

  // With no slack, the same record is suspect.
  derive(within_slack, sample_ceilings(), nullptr, 0.0);
  EXPECT_TRUE(within_slack.floor->suspect);
}

TEST(Derive, PcieUsesThePcieCeiling) {
  auto r = sample_record();
  r.declared.path = bytes_path::pcie;
  r.declared.flops = 0;
  derive(r, sample_ceilings(), nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.floor->time_s, 0.04);  // 1e9 / 25e9
  EXPECT_EQ(r.floor->bound, "pcie");
  EXPECT_DOUBLE_EQ(r.floor->fraction, 40.0);  // 0.04 / 1e-3: far faster than PCIe allows
  EXPECT_TRUE(r.floor->suspect);
  EXPECT_DOUBLE_EQ(r.bytes_per_s, 1e12);
  EXPECT_EQ(r.flops_per_s, 0.0);
}

TEST(Derive, PcieDuplexUsesTheBothWaysRate) {
  auto c = sample_ceilings();
  c.pcie_duplex_bytes_per_s = 20e9;  // slower per direction than one way (25 GB/s)
  auto r = sample_record();
  r.declared.path = bytes_path::pcie_duplex;
  r.declared.flops = 0;
  derive(r, c, nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.floor->time_s, 1e9 / 20e9);
  EXPECT_EQ(r.floor->bound, "pcie_duplex");
}

TEST(Derive, PeerBytesUseTheLinksRateEachWay) {
  // Chapter 8: bytes over the link between two GPUs, one way (peer) or each way at once
  // (peer_duplex, `bytes` per direction), take the link's per-direction rate.
  auto c = sample_ceilings();
  c.peer_bytes_per_s = 450e9;  // 18 NVLink 4 links x 25 GB/s
  for (const bytes_path path : {bytes_path::peer, bytes_path::peer_duplex}) {
    auto r = sample_record();  // 1 GB in 1 ms
    r.declared.path = path;
    r.declared.flops = 0;
    derive(r, c, nullptr);
    ASSERT_TRUE(r.floor.has_value()) << gpubench::to_string(path);
    EXPECT_DOUBLE_EQ(r.floor->time_s, 1e9 / 450e9);
    EXPECT_EQ(r.floor->bound, gpubench::to_string(path));
    EXPECT_DOUBLE_EQ(r.bytes_per_s, 1e12);
  }
  EXPECT_STREQ(gpubench::to_string(bytes_path::peer), "peer");
  EXPECT_STREQ(gpubench::to_string(bytes_path::peer_duplex), "peer_duplex");
}

TEST(Derive, PeerBytesWithoutALinkRateGiveThroughputButNoFloor) {
  // One GPU, no peer access or no NVML: the rate is 0, so no floor; the bytes/s is the figure
  // (nccl-tests' algbw for an all-reduce).
  auto r = sample_record();
  r.declared.path = bytes_path::peer_duplex;
  r.declared.flops = 0;
  derive(r, sample_ceilings(), nullptr);
  EXPECT_FALSE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.bytes_per_s, r.declared.bytes / r.stats->median);
}

TEST(Derive, PeerBytesBesideFlopsTakeTheLongerTerm) {
  // The overlap pair declares per-GPU FLOPs and its all-reduced bytes: the floor is the compute
  // alone while the link's term is shorter, the link's when it is longer.
  auto r = sample_record();  // 2 GFLOP at 10 TFLOP/s: 0.2 ms
  r.declared.path = bytes_path::peer_duplex;
  auto c = sample_ceilings();
  c.peer_bytes_per_s = 450e9;  // 1 GB: 2.2 ms
  derive(r, c, nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_EQ(r.floor->bound, "peer_duplex");
  c.peer_bytes_per_s = 0;
  derive(r, c, nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_EQ(r.floor->bound, "fp32");
}

TEST(Derive, UnknownCeilingGivesNoFloorTerm) {
  auto c = sample_ceilings();
  c.pcie_bytes_per_s = 0;  // unknown link (no NVML)
  auto r = sample_record();
  r.declared.path = bytes_path::pcie;
  r.declared.flops = 0;
  derive(r, c, nullptr);
  EXPECT_FALSE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.bytes_per_s, 1e12);  // throughput does not need a ceiling

  // With flops declared, only the flop term remains: 2e9 / 1e13 = 2e-4 s, fp32-bound.
  auto r2 = sample_record();
  r2.declared.path = bytes_path::pcie;
  derive(r2, c, nullptr);
  ASSERT_TRUE(r2.floor.has_value());
  EXPECT_DOUBLE_EQ(r2.floor->time_s, 2e-4);
  EXPECT_EQ(r2.floor->bound, "fp32");

  // Tensor-core kinds have no theoretical peak: a tf32-only work model has no floor.
  auto r3 = sample_record();
  r3.declared.bytes = 0;
  r3.declared.flops_kind = flop_kind::tf32;
  derive(r3, sample_ceilings(), nullptr);
  EXPECT_FALSE(r3.floor.has_value());
}

TEST(Derive, Fp64UsesTheFp64Peak) {
  auto r = sample_record();
  r.declared.bytes = 0;
  r.declared.flops_kind = flop_kind::fp64;
  derive(r, sample_ceilings(), nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.floor->time_s, 4e-4);  // 2e9 / 5e12
  EXPECT_EQ(r.floor->bound, "fp64");
}

TEST(Derive, Fp8UsesTheMeasuredFp8Peak) {
  auto r = sample_record();
  r.declared.bytes = 0;
  r.declared.flops_kind = flop_kind::fp8;
  auto c = sample_ceilings();
  derive(r, c, nullptr);
  EXPECT_FALSE(r.floor.has_value()) << "no FP8 peak measured: no floor";
  c.fp8_flops_per_s = 4e13;
  derive(r, c, nullptr);
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_DOUBLE_EQ(r.floor->time_s, 5e-5);  // 2e9 / 4e13
  EXPECT_EQ(r.floor->bound, "fp8");
}

TEST(Derive, ItemsGiveSecondsPerItem) {
  auto r = sample_record();
  r.declared.items = 40;
  r.declared.item_name = "matrix";
  derive(r, sample_ceilings(), nullptr);
  EXPECT_DOUBLE_EQ(r.s_per_item, 2.5e-5);  // 1e-3 s / 40
}

TEST(Derive, SpeedupOnlyWhenBothPassed) {
  auto base = sample_record(13.6e-3);
  base.variant = "baseline";
  derive(base, sample_ceilings(), nullptr);
  auto opt = sample_record(1e-3);
  derive(opt, sample_ceilings(), &base);
  ASSERT_TRUE(opt.speedup.has_value());
  EXPECT_DOUBLE_EQ(*opt.speedup, 13.6);  // 13.6e-3 / 1e-3

  auto slower = sample_record(27.2e-3);
  derive(slower, sample_ceilings(), &base);
  EXPECT_DOUBLE_EQ(*slower.speedup, 0.5);  // 13.6e-3 / 27.2e-3

  auto failed = sample_record(1e-3);
  failed.status = record_status::failed;
  derive(failed, sample_ceilings(), &base);
  EXPECT_FALSE(failed.speedup.has_value());

  auto bad_base = base;
  bad_base.status = record_status::error;
  auto opt2 = sample_record(1e-3);
  derive(opt2, sample_ceilings(), &bad_base);
  EXPECT_FALSE(opt2.speedup.has_value());

  auto untimed_base = base;
  untimed_base.stats.reset();
  derive(opt2, sample_ceilings(), &untimed_base);
  EXPECT_FALSE(opt2.speedup.has_value());
}

TEST(Derive, NoStatsClearsEverything) {
  auto r = sample_record();
  derive(r, sample_ceilings(), nullptr);
  ASSERT_TRUE(r.floor.has_value());
  // The same record, now untimed (e.g. skipped): derive() resets previously derived values.
  r.stats.reset();
  r.status = record_status::skipped;
  auto base = sample_record();
  derive(r, sample_ceilings(), &base);
  EXPECT_EQ(r.bytes_per_s, 0.0);
  EXPECT_EQ(r.flops_per_s, 0.0);
  EXPECT_EQ(r.s_per_item, 0.0);
  EXPECT_FALSE(r.floor.has_value());
  EXPECT_FALSE(r.speedup.has_value());

  auto zero = sample_record(0.0);  // a zero median is treated as untimed, not as infinite throughput
  derive(zero, sample_ceilings(), nullptr);
  EXPECT_EQ(zero.bytes_per_s, 0.0);
  EXPECT_FALSE(zero.floor.has_value());
}

TEST(Record, Id) {
  auto r = sample_record();
  r.pair = "batched_gemm";
  r.size = gpubench::size_point({{"batch", std::int64_t{40}}, {"m", std::int64_t{32}}});
  EXPECT_EQ(r.id(), "ch01/batched_gemm/optimized[batch=40,m=32]");
}

}  // namespace
