/// Unit tests for gpubench/metrics.hpp (sets, --metrics parsing, derived arithmetic against
/// hand-computed values, the work-model cross-check, JSON) and, through the CUPTI host API, which
/// needs no GPU, that every metric of every set exists on GH100 and how many passes each set takes.
#include "gpubench/metrics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "gpubench/cupti.hpp"
#include "report/console_metrics.hpp"
#include "test_support.hpp"

namespace {

using gpubench::metric_result;
using gpubench::resolve_metrics;
using values = std::map<std::string, double>;

constexpr const char* kFadd = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum";
constexpr const char* kFmul = "sm__sass_thread_inst_executed_op_fmul_pred_on.sum";
constexpr const char* kFfma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";

// ------------------------------------------------------------------------------------- sets

TEST(metric_sets, named_in_listing_order_with_descriptions) {
  std::vector<std::string> names;
  for (const auto& s : gpubench::metric_sets()) {
    names.push_back(s.name);
    EXPECT_FALSE(s.description.empty()) << s.name;
    EXPECT_FALSE(s.metrics.empty()) << s.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"default", "roofline", "memory", "compute", "tensor", "occupancy", "all"}));
}

TEST(metric_sets, every_name_is_a_full_metric_without_duplicates) {
  for (const auto& s : gpubench::metric_sets()) {
    std::set<std::string> seen;
    for (const auto& m : s.metrics) {
      EXPECT_NE(m.find("__"), std::string::npos) << s.name << ": " << m;
      EXPECT_NE(m.find('.'), std::string::npos) << s.name << ": " << m << " has no rollup (.sum, .avg, .pct...)";
      EXPECT_TRUE(seen.insert(m).second) << s.name << ": duplicate " << m;
    }
  }
}

TEST(metric_sets, all_is_the_union_and_default_covers_the_issue) {
  const auto* all = gpubench::find_metric_set("all");
  ASSERT_NE(all, nullptr);
  for (const auto& s : gpubench::metric_sets())
    for (const auto& m : s.metrics)
      EXPECT_NE(std::find(all->metrics.begin(), all->metrics.end(), m), all->metrics.end()) << m;
  const auto* def = gpubench::find_metric_set("default");
  ASSERT_NE(def, nullptr);
  for (const char* m : {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
                        "l1tex__t_bytes.sum", kFadd, kFmul, kFfma, "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
                        "sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "sm__ops_path_tensor_src_fp16.sum",
                        "sm__warps_active.avg.pct_of_peak_sustained_active",
                        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sector_hit_rate.pct",
                        "l1tex__t_sector_hit_rate.pct",
                        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"})
    EXPECT_NE(std::find(def->metrics.begin(), def->metrics.end(), m), def->metrics.end()) << m;
  EXPECT_EQ(gpubench::find_metric_set("nonsense"), nullptr);
}

TEST(metric_sets, only_tensor_paths_are_optional) {
  EXPECT_TRUE(gpubench::is_optional_metric("sm__ops_path_tensor_src_fp16.sum"));
  EXPECT_TRUE(gpubench::is_optional_metric("sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
  EXPECT_FALSE(gpubench::is_optional_metric("dram__bytes_read.sum"));
  EXPECT_FALSE(gpubench::is_optional_metric(kFfma));
}

// ---------------------------------------------------------------------------------- resolve

TEST(resolve_metrics, empty_and_default_give_the_default_set) {
  const auto& def = gpubench::find_metric_set("default")->metrics;
  EXPECT_EQ(resolve_metrics(""), def);
  EXPECT_EQ(resolve_metrics("default"), def);
  EXPECT_EQ(resolve_metrics(" default , "), def);
}

TEST(resolve_metrics, sets_and_raw_names_in_order_without_duplicates) {
  const auto got = resolve_metrics("dram__bytes_read.sum,occupancy,foo__bar.avg,dram__bytes_read.sum");
  const auto& occ = gpubench::find_metric_set("occupancy")->metrics;
  std::vector<std::string> want{"dram__bytes_read.sum"};
  want.insert(want.end(), occ.begin(), occ.end());
  want.push_back("foo__bar.avg");  // unknown raw names pass: the chip decides at collection time
  EXPECT_EQ(got, want);
  // Overlapping sets: gpu__time_duration.sum is in both and appears once.
  const auto two = resolve_metrics("roofline,memory");
  EXPECT_EQ(std::count(two.begin(), two.end(), "gpu__time_duration.sum"), 1);
  EXPECT_EQ(std::set<std::string>(two.begin(), two.end()).size(), two.size());
}

TEST(resolve_metrics, unknown_set_is_a_usage_error_naming_the_sets) {
  const std::string msg = usage_message([] { (void)resolve_metrics("default,memroy"); });
  EXPECT_NE(msg.find("unknown metric set 'memroy'"), std::string::npos) << msg;
  for (const char* s : {"default", "roofline", "memory", "compute", "tensor", "occupancy", "all"})
    EXPECT_NE(msg.find(s), std::string::npos) << msg;
  (void)usage_message([] { (void)resolve_metrics("dram__bytes read.sum"); });
}

// ---------------------------------------------------------------------------------- derived

TEST(derive_metrics, flops_like_ncu_roofline_and_rates_by_hand) {
  const values raw{
      {"gpu__time_duration.sum", 2000},  // ns
      {"dram__bytes_read.sum", 400},
      {"dram__bytes_write.sum", 600},
      {kFadd, 10},
      {kFmul, 20},
      {kFfma, 30},  // 10 + 20 + 2*30 = 90
      {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum", 1},
      {"sm__sass_thread_inst_executed_op_dmul_pred_on.sum", 2},
      {"sm__sass_thread_inst_executed_op_dfma_pred_on.sum", 3},  // 1 + 2 + 6 = 9
      {"sm__sass_thread_inst_executed_op_hadd_pred_on.sum", 0},
      {"sm__sass_thread_inst_executed_op_hmul_pred_on.sum", 0},
      {"sm__sass_thread_inst_executed_op_hfma_pred_on.sum", 4},  // 8
      {"sm__ops_path_tensor_src_fp16.sum", 1000},
      {"sm__ops_path_tensor_src_fp16_dst_fp32.sum", 7},  // never added to the GH100 spelling
      {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 100},
      {"lts__t_sector_hit_rate.pct", 49.5},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", 80},
  };
  const values d = gpubench::derive_metrics(raw);
  EXPECT_DOUBLE_EQ(d.at("duration_s"), 2e-6);
  EXPECT_DOUBLE_EQ(d.at("dram_bytes"), 1000);
  EXPECT_DOUBLE_EQ(d.at("flops_fp32"), 90);
  EXPECT_DOUBLE_EQ(d.at("flops_fp64"), 9);
  EXPECT_DOUBLE_EQ(d.at("flops_fp16"), 8);
  EXPECT_DOUBLE_EQ(d.at("flops_tensor_fp16"), 1000);
  EXPECT_DOUBLE_EQ(d.at("flops_tensor_bf16"), 100);
  EXPECT_DOUBLE_EQ(d.at("flops_tensor"), 1100);
  EXPECT_DOUBLE_EQ(d.at("flops"), 90 + 9 + 8 + 1100);
  EXPECT_DOUBLE_EQ(d.at("arithmetic_intensity"), 1207.0 / 1000);
  EXPECT_DOUBLE_EQ(d.at("flops_per_s"), 1207 / 2e-6);
  EXPECT_DOUBLE_EQ(d.at("dram_bytes_per_s"), 1000 / 2e-6);
  EXPECT_DOUBLE_EQ(d.at("l2_hit_rate_pct"), 49.5);
  EXPECT_DOUBLE_EQ(d.at("achieved_occupancy_pct"), 80);
  EXPECT_EQ(d.count("flops_tensor_tf32"), 0U);
  EXPECT_EQ(d.count("sm_throughput_pct"), 0U);
}

TEST(derive_metrics, split_tensor_counters_add_up_and_partial_inputs_give_no_value) {
  const values d = gpubench::derive_metrics({{"sm__ops_path_tensor_src_fp16_dst_fp16.sum", 3},
                                             {"sm__ops_path_tensor_src_fp16_dst_fp32.sum", 4},
                                             {kFadd, 5},
                                             {kFmul, 6},  // no ffma: fp32 FLOPs unknown, not 11
                                             {"dram__bytes_read.sum", 8}});
  EXPECT_DOUBLE_EQ(d.at("flops_tensor_fp16"), 7);
  EXPECT_DOUBLE_EQ(d.at("flops"), 7);
  EXPECT_EQ(d.count("flops_fp32"), 0U);
  EXPECT_EQ(d.count("dram_bytes"), 0U);  // write missing
  EXPECT_EQ(d.count("arithmetic_intensity"), 0U);
  EXPECT_EQ(d.count("flops_per_s"), 0U);  // no duration
  EXPECT_TRUE(gpubench::derive_metrics({}).empty());
}

// ------------------------------------------------------------------------------ cross-check

gpubench::work dram_work(double bytes, double flops) {
  gpubench::work w;
  w.bytes = bytes;
  w.flops = flops;
  return w;
}

TEST(cross_check, ten_percent_is_the_line) {
  auto checks = gpubench::cross_check(dram_work(1000, 0), {{"dram_bytes", 1099}});
  ASSERT_EQ(checks.size(), 1U);  // flops declared 0: not checked
  EXPECT_EQ(checks[0].quantity, "dram_bytes");
  EXPECT_NEAR(checks[0].rel_diff, 0.099, 1e-12);
  EXPECT_FALSE(checks[0].exceeds);
  EXPECT_FALSE(checks[0].contradicts);
  EXPECT_TRUE(checks[0].message.empty());
  EXPECT_TRUE(checks[0].note.empty());

  checks = gpubench::cross_check(dram_work(1000, 0), {{"dram_bytes", 901}});
  ASSERT_EQ(checks.size(), 1U);
  EXPECT_FALSE(checks[0].exceeds);
  EXPECT_FALSE(checks[0].contradicts);
}

TEST(cross_check, above_the_minimum_is_a_note_not_a_warning) {
  // The model is the minimum: a three-kernel softmax reading 2.5x the bytes and expf's FP
  // instructions tripling the FLOPs are expected (the H100 profile shows both).
  auto checks = gpubench::cross_check(dram_work(1000, 0), {{"dram_bytes", 1101}});
  ASSERT_EQ(checks.size(), 1U);
  EXPECT_TRUE(checks[0].exceeds);
  EXPECT_FALSE(checks[0].contradicts);
  EXPECT_TRUE(checks[0].message.empty());
  // 1101 / 1000 = 1.101 -> "1.1×" (3 significant digits, %g drops the trailing zero).
  EXPECT_EQ(checks[0].note, "moves 1.1× the minimum DRAM bytes (1.1 KB vs 1 KB)");

  // cuda_graphs at 1000 kernels: 2 KiB declared, ~166 KB counted (launch and instruction traffic).
  checks = gpubench::cross_check(dram_work(2048, 5.12e5), {{"dram_bytes", 1.66e5}, {"flops", 1.64e6}});
  ASSERT_EQ(checks.size(), 2U);
  EXPECT_FALSE(checks[0].contradicts || checks[1].contradicts);
  EXPECT_EQ(checks[0].note, "moves 81.1× the minimum DRAM bytes (166 KB vs 2.05 KB)");
  EXPECT_EQ(checks[1].note, "executes 3.2× the modelled FLOPs (1.64 MFLOP vs 512 KFLOP)");
}

TEST(cross_check, below_the_minimum_contradicts_the_model) {
  auto checks = gpubench::cross_check(dram_work(0, 2e9), {{"flops", 1.7e9}, {"dram_bytes", 5}});
  ASSERT_EQ(checks.size(), 1U);  // bytes declared 0: not checked
  EXPECT_EQ(checks[0].quantity, "flops");
  EXPECT_TRUE(checks[0].exceeds);
  EXPECT_TRUE(checks[0].contradicts);
  EXPECT_TRUE(checks[0].note.empty());
  EXPECT_NE(checks[0].message.find("FLOPs: counters saw 1.7 GFLOP, 15% below the 2 GFLOP minimum"), std::string::npos)
      << checks[0].message;
  EXPECT_NE(checks[0].message.find("never happens"), std::string::npos) << checks[0].message;

  // intensity_ladder/fused at n=2^20 on the H100: 7.0 MB counted, 8.39 MB declared (-17%).
  checks = gpubench::cross_check(dram_work(8.39e6, 0), {{"dram_bytes", 7.0e6}});
  ASSERT_EQ(checks.size(), 1U);
  EXPECT_TRUE(checks[0].contradicts);
  EXPECT_NE(checks[0].message.find("DRAM bytes: counters saw 7 MB, 17% below the 8.39 MB minimum"), std::string::npos)
      << checks[0].message;
  EXPECT_NE(checks[0].message.find("stayed in L2"), std::string::npos) << checks[0].message;
}

TEST(cross_check, pcie_bytes_and_unmeasured_quantities_are_not_checked) {
  gpubench::work w = dram_work(1000, 1000);
  w.path = gpubench::bytes_path::pcie;
  EXPECT_TRUE(gpubench::cross_check(w, {{"dram_bytes", 5000}}).empty());
  EXPECT_TRUE(gpubench::cross_check(dram_work(1000, 1000), {}).empty());
  EXPECT_EQ(gpubench::cross_check(dram_work(1000, 1000), {{"dram_bytes", 1000}, {"flops", 1000}}).size(), 2U);
}

// ------------------------------------------------------------------------------------- JSON

TEST(metrics_json, round_trip_and_unavailable_result) {
  metric_result m;
  m.status = gpubench::metrics_status::unavailable;
  m.reason = gpubench::kCounterPermissionMessage;
  m.requested = resolve_metrics("roofline");
  const metric_result back = gpubench::metric_result_from_json(nlohmann::ordered_json::parse(to_json(m).dump()), "mem");
  EXPECT_EQ(back.status, m.status);
  EXPECT_EQ(back.reason, m.reason);
  EXPECT_EQ(back.requested, m.requested);
  EXPECT_TRUE(back.values.empty());
  EXPECT_NE(std::string(gpubench::kCounterPermissionMessage).find("NVreg_RestrictProfilingToAdminUsers=0"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------- console

TEST(console_metrics, compact_lines_with_only_what_was_collected) {
  metric_result m;
  m.status = gpubench::metrics_status::collected;
  m.derived = {{"dram_bytes", 2.0e9},       {"dram_bytes_read", 1.5e9}, {"dram_bytes_write", 5.0e8},
               {"dram_bytes_per_s", 2.0e12}, {"flops", 4.0e9},          {"flops_fp32", 4.0e9},
               {"arithmetic_intensity", 2}, {"achieved_occupancy_pct", 80}, {"l2_hit_rate_pct", 49.5}};
  const auto lines = gpubench::detail::metrics_lines(m);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0], "DRAM 2.00 GB (read 1.50 GB · write 500 MB) · 2.00 TB/s");
  EXPECT_EQ(lines[1], "4.00 GFLOP (fp32 4.00 G) · AI 2 FLOP/B");
  EXPECT_EQ(lines[2], "occupancy 80.0% · hit L2 49.5%");
  EXPECT_TRUE(gpubench::detail::metrics_lines(metric_result{}).empty());
}

// ---------------------------------------------------------- CUPTI host API, offline (GH100)

// CUPTI's host API dlopens libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer refuses
// (github.com/google/sanitizers/issues/611): the catalog cannot be loaded in the
// GPUBENCH_HOST_SANITIZE build, so these cases are skipped there, and only there.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif
constexpr const char* kAsanDeepbind = "ASan build: libnvperf_host.so is dlopened with RTLD_DEEPBIND, which ASan refuses";

/// Every set's metrics on `chip`: the non-optional ones must all exist; prints the pass counts.
void check_sets_on(const std::string& chip) {
  const gpubench::metric_catalog catalog(chip);
  for (const auto& s : gpubench::metric_sets()) {
    std::vector<std::string> present;
    for (const auto& m : s.metrics) {
      const auto p = catalog.describe(m);
      if (p) present.push_back(m);
      else EXPECT_TRUE(gpubench::is_optional_metric(m)) << chip << " has no metric " << m << " (set " << s.name << ")";
    }
    ASSERT_FALSE(present.empty()) << s.name;
    const int passes = catalog.passes(present);
    std::printf("[metrics] %s: set %-9s %2zu of %2zu metrics, %2d pass(es)\n", chip.c_str(), s.name.c_str(),
                present.size(), s.metrics.size(), passes);
    EXPECT_GE(passes, 1) << s.name;
  }
}

TEST(metric_catalog, every_set_exists_on_gh100_with_pass_counts) {
  if (kUnderAsan) GTEST_SKIP() << kAsanDeepbind;
  check_sets_on("GH100");
  const gpubench::metric_catalog gh100("GH100");
  // Hopper's tensor counters use the combined fp16 spelling; the split one is another family's.
  EXPECT_TRUE(gh100.has("sm__ops_path_tensor_src_fp16.sum"));
  EXPECT_FALSE(gh100.has("sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
  EXPECT_FALSE(gh100.has("dram__bytes_red.sum"));
  const auto p = gh100.describe("dram__bytes_read.sum");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->unit, "byte");
  EXPECT_TRUE(p->counter);
  EXPECT_FALSE(gh100.describe("lts__t_sector_hit_rate.pct")->counter);  // a ratio: never summed over kernels
  // The roofline set exists to be cheap: fewer passes than the default set.
  const auto on_chip = [&](const char* set) {
    std::vector<std::string> out;
    for (const auto& m : gpubench::find_metric_set(set)->metrics)
      if (gh100.has(m)) out.push_back(m);
    return out;
  };
  EXPECT_LT(gh100.passes(on_chip("roofline")), gh100.passes(on_chip("default")));
  // The cross-check's inputs alone (DRAM bytes, duration, FP32 FLOP counters) are cheap: one pass
  // for the DRAM side, one for the SASS counters (CUDA 13.0's CUPTI).
  EXPECT_EQ(gh100.passes({"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"}), 1);
  EXPECT_EQ(gh100.passes({kFadd, kFmul, kFfma}), 1);
  EXPECT_LE(gh100.passes({"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", kFadd, kFmul, kFfma}), 2);
}

TEST(metric_catalog, sets_also_exist_on_ampere_and_ada) {
  if (kUnderAsan) GTEST_SKIP() << kAsanDeepbind;
  check_sets_on("GA100");
  check_sets_on("AD102");
}

TEST(metric_catalog, unknown_chip_names_the_known_ones) {
  if (kUnderAsan) GTEST_SKIP() << kAsanDeepbind;
  try {
    gpubench::metric_catalog c("GX999");
    ADD_FAILURE() << "accepted an unknown chip";
  } catch (const gpubench::error& e) {
    EXPECT_NE(std::string(e.what()).find("GX999"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GH100"), std::string::npos) << e.what();
  }
  const auto chips = gpubench::metric_catalog::supported_chips();
  EXPECT_NE(std::find(chips.begin(), chips.end(), "GH100"), chips.end());
}

TEST(metric_catalog, a_config_with_an_unknown_metric_fails_with_a_message) {
  if (kUnderAsan) GTEST_SKIP() << kAsanDeepbind;
  const gpubench::metric_catalog gh100("GH100");
  try {
    (void)gh100.passes({"dram__bytes_read.sum", "dram__bytes_red.sum"});
    ADD_FAILURE() << "built a config with an unknown metric";
  } catch (const gpubench::error& e) {
    EXPECT_NE(std::string(e.what()).find("dram__bytes_red.sum"), std::string::npos) << e.what();
  }
}

TEST(external_profiler, detected_from_the_environment) {
  const char* vars[] = {"NV_NSIGHT_INJECTION_TRANSPORT_TYPE", "NSYS_PROFILING_SESSION_ID", "NVPROF_ID",
                        "CUDA_INJECTION64_PATH"};
  for (const char* v : vars)
    if (std::getenv(v) != nullptr) GTEST_SKIP() << "these tests run under a profiler (" << v << " is set)";
  EXPECT_FALSE(gpubench::external_profiler_reason().has_value());
  setenv("NV_NSIGHT_INJECTION_TRANSPORT_TYPE", "2", 1);
  auto why = gpubench::external_profiler_reason();
  unsetenv("NV_NSIGHT_INJECTION_TRANSPORT_TYPE");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("Nsight Compute"), std::string::npos) << *why;
  setenv("NSYS_PROFILING_SESSION_ID", "7", 1);
  why = gpubench::external_profiler_reason();
  unsetenv("NSYS_PROFILING_SESSION_ID");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("Nsight Systems"), std::string::npos) << *why;
  EXPECT_FALSE(gpubench::external_profiler_reason().has_value());
}

}  // namespace
