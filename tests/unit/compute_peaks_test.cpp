// Compute peaks per precision: SMs x dense ops per SM per clock x clock reproduces NVIDIA's
// published peaks at the clocks they are quoted at (the sources cited in
// lib/src/device_model/compute_peaks.cpp), a profile without tensor peaks gets them on read, and a
// record is judged against its own precision's roof.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpubench/compute_peaks.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench {
namespace {

device_info part(const char* name, int major, int minor, int sms, double clock_mhz) {
  device_info d;
  d.name = name;
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = sms;
  d.sm_clock_max_mhz = clock_mhz;
  return d;
}

// Published dense peaks (TFLOP/s, TOPS for INT8) at the clock each source quotes them at.
void expect_peak(const device_info& d, flop_kind k, double published_tera) {
  EXPECT_NEAR(theoretical_peak(d, k) / 1e12, published_tera, 0.005 * published_tera) << d.name << " " << to_string(k);
}

TEST(ComputePeaks, H100Sxm5MatchesTheWhitepaperAtItsTensorClock) {
  const device_info d = part("NVIDIA H100 80GB HBM3", 9, 0, 132, 1830);  // tensor peaks quoted at 1830 MHz
  expect_peak(d, flop_kind::tf32, 494.7);
  expect_peak(d, flop_kind::fp16, 989.4);
  expect_peak(d, flop_kind::bf16, 989.4);
  expect_peak(d, flop_kind::fp8, 1978.9);
  expect_peak(d, flop_kind::int8, 1978.9);
  const device_info at_max = part("NVIDIA H100 80GB HBM3", 9, 0, 132, 1980);  // FP64 quoted at 1980 MHz
  expect_peak(at_max, flop_kind::fp64_tensor, 66.9);
  expect_peak(at_max, flop_kind::fp64, 33.5);
  expect_peak(at_max, flop_kind::fp32, 66.9);
}

TEST(ComputePeaks, A100HasNoFp8) {
  const device_info d = part("NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410);
  expect_peak(d, flop_kind::tf32, 156);
  expect_peak(d, flop_kind::bf16, 312);
  expect_peak(d, flop_kind::int8, 624);
  expect_peak(d, flop_kind::fp64_tensor, 19.5);
  expect_peak(d, flop_kind::fp64, 9.7);
  EXPECT_EQ(theoretical_peak(d, flop_kind::fp8), 0.0);
}

TEST(ComputePeaks, AmpereAndAdaDataCenterPartsRunFullRate) {
  const device_info a40 = part("NVIDIA A40", 8, 6, 84, 1740);
  expect_peak(a40, flop_kind::tf32, 74.8);
  expect_peak(a40, flop_kind::bf16, 149.7);
  expect_peak(a40, flop_kind::int8, 299.3);
  EXPECT_EQ(theoretical_peak(a40, flop_kind::fp8), 0.0);
  EXPECT_EQ(theoretical_peak(a40, flop_kind::fp64_tensor), 0.0);
  const device_info l4 = part("NVIDIA L4", 8, 9, 58, 2040);  // datasheet figures with sparsity, halved
  expect_peak(l4, flop_kind::bf16, 121);
  expect_peak(l4, flop_kind::fp8, 242.5);
  expect_peak(l4, flop_kind::int8, 242.5);
}

TEST(ComputePeaks, GeForceHalvesFp32Accumulation) {
  const device_info d = part("NVIDIA GeForce RTX 4090", 8, 9, 128, 2520);
  expect_peak(d, flop_kind::bf16, 165.2);
  expect_peak(d, flop_kind::tf32, 82.6);
  expect_peak(d, flop_kind::fp8, 330.3);
  expect_peak(d, flop_kind::int8, 660.6);  // integer accumulation keeps the full rate
  expect_peak(d, flop_kind::fp64, 1.29);
  const device_info rtx3090 = part("NVIDIA GeForce RTX 3090", 8, 6, 82, 1695);
  expect_peak(rtx3090, flop_kind::fp16, 71.2);
  expect_peak(rtx3090, flop_kind::tf32, 35.6);
}

TEST(ComputePeaks, UnknownArchitecturesHaveNoTensorPeak) {
  for (const auto& [major, minor] : {std::pair{7, 5}, std::pair{8, 7}, std::pair{10, 0}, std::pair{5, 2}}) {
    const device_info d = part("GPU", major, minor, 100, 1500);
    for (const flop_kind k :
         {flop_kind::tf32, flop_kind::fp16, flop_kind::bf16, flop_kind::fp8, flop_kind::int8, flop_kind::fp64_tensor})
      EXPECT_EQ(theoretical_peak(d, k), 0.0) << major << "." << minor << " " << to_string(k);
  }
}

TEST(ComputePeaks, TheoreticalCeilingsCarryEveryPrecision) {
  const ceilings c = theoretical_ceilings(part("NVIDIA H100 80GB HBM3", 9, 0, 132, 1980));
  EXPECT_DOUBLE_EQ(c.bf16_flops_per_s, 132.0 * 4096 * 1.98e9);
  EXPECT_DOUBLE_EQ(c.fp8_flops_per_s, 132.0 * 8192 * 1.98e9);
  EXPECT_DOUBLE_EQ(c.int8_ops_per_s, 132.0 * 8192 * 1.98e9);
  EXPECT_DOUBLE_EQ(c.fp64_tensor_flops_per_s, 132.0 * 256 * 1.98e9);
  for (const flop_kind k : kAllFlopKinds) EXPECT_STREQ(compute_peak_source(c, k), "theoretical");
}

TEST(ComputePeaks, FillKeepsMeasuredPeaksAndAddsTheMissingOnes) {
  ceilings c;
  c.source = "measured";
  c.bf16_flops_per_s = 7.8e14;
  c.table = {{"bf16", "FLOP/s", 7.8e14, 0, 7.8e14, "cuBLAS"}};
  const auto filled = fill_missing_peaks(c, part("NVIDIA H100 80GB HBM3", 9, 0, 132, 1980));
  EXPECT_DOUBLE_EQ(c.bf16_flops_per_s, 7.8e14);
  EXPECT_STREQ(compute_peak_source(c, flop_kind::bf16), "measured");
  EXPECT_DOUBLE_EQ(c.fp8_flops_per_s, 132.0 * 8192 * 1.98e9);
  EXPECT_STREQ(compute_peak_source(c, flop_kind::fp8), "theoretical");
  EXPECT_EQ(filled.size(), kAllFlopKinds.size() - 1);
  EXPECT_TRUE(fill_missing_peaks(c, device_info{}).empty()) << "nothing left to fill";
}

nlohmann::ordered_json committed(const std::string& name) {
  std::ifstream in(std::filesystem::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / name);
  return nlohmann::ordered_json::parse(in);
}

const record& find(const profile& p, const std::string& id) {
  for (const record& r : p.records)
    if (r.id() == id) return r;
  throw std::runtime_error("no record " + id);
}

// A profile written before tensor peaks existed (theoretical ceilings of FP32 and FP64 only):
// h100-ch05.json's records under the ceilings its device facts give, as a first run without
// `device --ceilings` would have them.
profile ch05_with_old_theoretical_ceilings() {
  profile old = profile_from_json(committed("h100-ch05.json"), "h100-ch05.json");
  const ceilings t = theoretical_ceilings(old.prov.device);
  // As a gpubench from before the tensor peaks wrote it: theoretical ceilings without them, and
  // the floors derived from those ceilings (the reader checks that they agree).
  old.ceil = ceilings{};
  old.ceil.source = "theoretical";
  old.ceil.dram_bytes_per_s = t.dram_bytes_per_s;
  old.ceil.pcie_bytes_per_s = t.pcie_bytes_per_s;
  old.ceil.fp32_flops_per_s = t.fp32_flops_per_s;
  old.ceil.fp64_flops_per_s = t.fp64_flops_per_s;
  for (record& r : old.records) r.floor = floor_of(r, old.ceil);
  auto j = to_json(old);
  j["ceilings"] = {{"source", "theoretical"},
                   {"dram_bytes_per_s", t.dram_bytes_per_s},
                   {"pcie_bytes_per_s", t.pcie_bytes_per_s},
                   {"fp32_flops_per_s", t.fp32_flops_per_s},
                   {"fp64_flops_per_s", t.fp64_flops_per_s}};
  return profile_from_json(j, "h100-ch05 (theoretical)");
}

TEST(ComputePeaks, AnOldProfileJudgesBf16AgainstTheBf16Roof) {
  const profile p = ch05_with_old_theoretical_ceilings();
  const double bf16_peak = 132.0 * 4096 * 1.98e9;  // 1.07 PFLOP/s: the device facts, SMs x rate x max clock
  EXPECT_DOUBLE_EQ(p.ceil.bf16_flops_per_s, bf16_peak);
  const record& r = find(p, "ch05/matmul_precision/bf16[shape=8192]");
  ASSERT_TRUE(r.floor.has_value());
  EXPECT_EQ(r.floor->bound, "bf16");  // no longer "dram" (8.6% of floor) or FP32 (over 1000%)
  const double achieved = r.declared.flops / r.stats->median;
  EXPECT_NEAR(r.floor->fraction, achieved / bf16_peak, 1e-12);
  // This record ran at 685 TFLOP/s: 64.0% of the BF16 roof at the 1980 MHz maximum clock (a run
  // at 789 TFLOP/s reads 73.7%).
  EXPECT_NEAR(r.floor->fraction, 0.640, 0.001);
  // Every tensor record is judged against its own precision.
  for (const record& x : p.records)
    if (x.floor && x.declared.flops_kind != flop_kind::fp32 && x.floor->bound != "dram")
      EXPECT_EQ(x.floor->bound, to_string(x.declared.flops_kind)) << x.id();
}

TEST(ComputePeaks, TheRooflineDrawsTheRoofOfEachPointsPrecision) {
  const profile p = ch05_with_old_theoretical_ceilings();
  const roofline_model m = build_roofline({p}, {"h100-ch05.json"}, {.points = points_mode::model});
  std::set<std::string> names;
  for (const roof& r : m.compute) {
    names.insert(r.name);
    EXPECT_EQ(r.source, "theoretical") << r.name;
  }
  for (const char* kind : {"fp32", "fp64", "tf32", "fp16", "bf16", "fp8"}) EXPECT_TRUE(names.count(kind)) << kind;
  EXPECT_FALSE(names.count("int8")) << "no point is int8: its roof is not listed";
  for (const roof_point& pt : m.points) {
    const roof_bound b = bound_of(m, pt);
    EXPECT_EQ(b.compute_roof, pt.flops_kind) << pt.id;
    if (pt.id == "ch05/matmul_precision/bf16[shape=8192]") EXPECT_NEAR(b.fraction, 0.640, 0.001);
  }
}

}  // namespace
}  // namespace gpubench
