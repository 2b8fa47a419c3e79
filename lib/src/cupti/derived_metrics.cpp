// Derived metrics and the work-model cross-check: arithmetic over raw counter values, so it is
// tested against hand-computed numbers and recomputable from any saved profile.
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string_view>

#include "cupti/metric_names.hpp"
#include "gpubench/metrics.hpp"

namespace gpubench {
namespace {

using namespace metric_names;
using values = std::map<std::string, double>;

std::optional<double> get(const values& raw, const char* name) {
  const auto it = raw.find(name);
  if (it == raw.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

/// add + mul + 2·fma, as Nsight Compute's roofline counts FLOPs; absent unless all three are known.
std::optional<double> flops_of(const values& raw, const char* add, const char* mul, const char* fma) {
  const auto a = get(raw, add), m = get(raw, mul), f = get(raw, fma);
  if (!a || !m || !f) return std::nullopt;
  return *a + *m + 2 * *f;
}

/// The sum of whichever of `names` were collected; absent when none was.
std::optional<double> sum_present(const values& raw, std::initializer_list<const char*> names) {
  std::optional<double> total;
  for (const char* n : names)
    if (const auto v = get(raw, n)) total = total.value_or(0) + *v;
  return total;
}

std::string human(double v, const char* unit) {
  const char* prefix[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s%s", v, prefix[i], unit);
  return buf;
}

}  // namespace

const char* to_string(metrics_status s) {
  switch (s) {
    case metrics_status::collected: return "collected";
    case metrics_status::unavailable: return "unavailable";
  }
  return "?";
}

values derive_metrics(const values& raw) {
  values d;
  const auto put = [&](const char* key, std::optional<double> v) {
    if (v && std::isfinite(*v)) d[key] = *v;
  };
  const auto duration_ns = get(raw, kDuration);
  if (duration_ns) put("duration_s", *duration_ns * 1e-9);
  const auto rd = get(raw, kDramRead), wr = get(raw, kDramWrite);
  put("dram_bytes_read", rd);
  put("dram_bytes_write", wr);
  if (rd && wr) put("dram_bytes", *rd + *wr);
  put("l2_bytes", get(raw, kL2Bytes));
  put("l1_bytes", get(raw, kL1Bytes));

  put("flops_fp32", flops_of(raw, kFadd, kFmul, kFfma));
  put("flops_fp64", flops_of(raw, kDadd, kDmul, kDfma));
  put("flops_fp16", flops_of(raw, kHadd, kHmul, kHfma));
  // GH100 reports one fp16 counter for both accumulator types; other chips split it. Never add
  // both spellings: a chip that had all three would count its fp16 ops twice.
  put("flops_tensor_fp16", get(raw, kTensorFp16) ? get(raw, kTensorFp16) : sum_present(raw, {kTensorFp16Fp16, kTensorFp16Fp32}));
  put("flops_tensor_bf16", get(raw, kTensorBf16));
  put("flops_tensor_tf32", get(raw, kTensorTf32));
  put("flops_tensor_fp64", get(raw, kTensorFp64));
  put("flops_tensor_fp8", get(raw, kTensorFp8) ? get(raw, kTensorFp8) : sum_present(raw, {kTensorFp8Fp16, kTensorFp8Fp32}));
  std::optional<double> tensor;
  for (const char* k : {"flops_tensor_fp16", "flops_tensor_bf16", "flops_tensor_tf32", "flops_tensor_fp64", "flops_tensor_fp8"})
    if (const auto it = d.find(k); it != d.end()) tensor = tensor.value_or(0) + it->second;
  put("flops_tensor", tensor);
  std::optional<double> flops;
  for (const char* k : {"flops_fp32", "flops_fp64", "flops_fp16", "flops_tensor"})
    if (const auto it = d.find(k); it != d.end()) flops = flops.value_or(0) + it->second;
  put("flops", flops);

  if (flops && rd && wr && *rd + *wr > 0) put("arithmetic_intensity", *flops / (*rd + *wr));
  if (duration_ns && *duration_ns > 0) {
    if (flops) put("flops_per_s", *flops / (*duration_ns * 1e-9));
    if (rd && wr) put("dram_bytes_per_s", (*rd + *wr) / (*duration_ns * 1e-9));
  }

  put("sm_throughput_pct", get(raw, kSmThroughput));
  put("memory_throughput_pct", get(raw, kMemoryThroughput));
  put("dram_throughput_pct", get(raw, kDramThroughput));
  put("achieved_occupancy_pct", get(raw, kOccupancy));
  put("l1_hit_rate_pct", get(raw, kL1HitRate));
  put("l2_hit_rate_pct", get(raw, kL2HitRate));
  put("global_load_efficiency_pct", get(raw, kLoadEfficiency));
  put("global_store_efficiency_pct", get(raw, kStoreEfficiency));
  return d;
}

std::vector<work_check> cross_check(const work& declared, const values& derived, double threshold) {
  std::vector<work_check> out;
  const auto check = [&](const char* quantity, double want, const char* key) {
    const auto it = derived.find(key);
    if (want <= 0 || it == derived.end()) return;
    const bool bytes = std::string_view(quantity) == "dram_bytes";
    const char* unit = bytes ? "B" : "FLOP";
    work_check c;
    c.quantity = quantity;
    c.declared = want;
    c.measured = it->second;
    c.rel_diff = (c.measured - want) / want;
    c.exceeds = std::fabs(c.rel_diff) > threshold;
    c.contradicts = c.rel_diff < -threshold;
    char num[96];
    if (c.contradicts) {
      std::snprintf(num, sizeof num, "%.0f%%", -c.rel_diff * 100);
      c.message = std::string(bytes ? "DRAM bytes" : "FLOPs") + ": counters saw " + human(c.measured, unit) + ", " +
                  num + " below the " + human(want, unit) + " minimum of the work model: " +
                  (bytes ? "the model counts bytes that never move, or data stayed in L2 (likely when it fits there)"
                         : "the model counts work that never happens, or counters miss it (tensor cores?)");
    } else if (c.rel_diff > threshold) {
      std::snprintf(num, sizeof num, "%.3g× ", c.measured / want);
      // Short, for one console line; docs/counters.md says why more than the minimum is normal.
      c.note = std::string(bytes ? "moves " : "executes ") + num + (bytes ? "the minimum DRAM bytes (" : "the modelled FLOPs (") +
               human(c.measured, unit) + " vs " + human(want, unit) + ")";
    }
    out.push_back(std::move(c));
  };
  // PCIe bytes cross no DRAM counter we collect, so only DRAM-path work is checked.
  if (declared.path == bytes_path::dram) check("dram_bytes", declared.bytes, "dram_bytes");
  check("flops", declared.flops, "flops");
  return out;
}

}  // namespace gpubench
