// The named metric sets and --metrics parsing. Every name is a full CUPTI metric (base name plus
// rollup and submetric); tests/unit/metrics_test.cpp checks each against the GH100 metric tables
// of the CUPTI host API and records its pass count, so a typo fails CI rather than a GPU run.
#include <algorithm>
#include <set>

#include "cupti/metric_names.hpp"
#include "gpubench/error.hpp"
#include "gpubench/metrics.hpp"

namespace gpubench {
namespace {

using namespace metric_names;

std::vector<std::string> join(std::initializer_list<std::vector<std::string>> parts) {
  std::vector<std::string> out;
  for (const auto& p : parts)
    for (const auto& m : p)
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  return out;
}

const std::vector<std::string> kDram{kDuration, kDramRead, kDramWrite};
const std::vector<std::string> kFlops{kFadd, kFmul, kFfma, kDadd, kDmul, kDfma, kHadd, kHmul, kHfma};
const std::vector<std::string> kTensor{kTensorFp16,       kTensorFp16Fp16, kTensorFp16Fp32, kTensorBf16,
                                       kTensorTf32,       kTensorFp64,     kTensorFp8,      kTensorFp8Fp16,
                                       kTensorFp8Fp32};
const std::vector<std::string> kCaches{kL2Bytes, kL1Bytes, kL2HitRate, kL1HitRate, kLoadEfficiency, kStoreEfficiency};
const std::vector<std::string> kThroughput{kSmThroughput, kMemoryThroughput};

std::vector<metric_set> build_sets() {
  std::vector<metric_set> s;
  s.push_back({"default",
               "duration, DRAM/L2/L1 traffic, FP32/FP64/FP16 and tensor FLOPs, SM and memory throughput, "
               "occupancy, hit rates, global load/store efficiency",
               join({kDram, kFlops, kTensor, kCaches, kThroughput, {kOccupancy}})});
  s.push_back({"roofline", "only what a roofline point needs: duration, DRAM bytes, FLOPs (fewest passes)",
               join({kDram, kFlops, kTensor})});
  s.push_back({"memory", "the memory hierarchy: DRAM, L2 and L1 traffic, throughput, hit rates, coalescing",
               join({kDram, {kDramThroughput, kMemoryThroughput}, kCaches,
                     {kGlobalLoadSectors, kGlobalLoadRequests, kGlobalStoreSectors, kGlobalStoreRequests}})});
  s.push_back({"compute", "FP32/FP64/FP16 FLOPs, SM throughput, instruction count, pipe utilisation",
               join({{kDuration}, kFlops, {kSmThroughput, kInstExecuted, kPipeFma, kPipeFp64, kPipeAlu}})});
  s.push_back({"tensor", "tensor-core math ops by input precision, tensor pipe utilisation",
               join({{kDuration}, kTensor, {kPipeTensor, kInstTensor}})});
  s.push_back({"occupancy", "achieved occupancy, active warps per cycle, CTAs and warps launched",
               {kDuration, kOccupancy, kWarpsPerCycle, kCtasLaunched, kWarpsLaunched, kSmCyclesActive}});
  std::vector<std::string> all;
  for (const auto& set : s)
    for (const auto& m : set.metrics)
      if (std::find(all.begin(), all.end(), m) == all.end()) all.push_back(m);
  s.push_back({"all", "every metric of the sets above", std::move(all)});
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

const std::vector<metric_set>& metric_sets() {
  static const std::vector<metric_set> sets = build_sets();
  return sets;
}

const metric_set* find_metric_set(std::string_view name) {
  for (const auto& s : metric_sets())
    if (s.name == name) return &s;
  return nullptr;
}

bool is_optional_metric(std::string_view name) {
  return std::find(kTensor.begin(), kTensor.end(), name) != kTensor.end();
}

std::vector<std::string> resolve_metrics(std::string_view spec) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& m) {
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  if (trim(spec).empty()) spec = "default";
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string word = trim(spec.substr(start, comma - start));
    start = comma + 1;
    if (word.empty()) continue;
    if (word.find("__") != std::string::npos) {
      // A raw CUPTI name: checked against the chip when collected (it may exist on one GPU only).
      if (word.find_first_of(" \"'") != std::string::npos)
        throw usage_error("--metrics: '" + word + "' is not a metric name");
      add(word);
      continue;
    }
    const metric_set* set = find_metric_set(word);
    if (!set) {
      std::string names;
      for (const auto& s : metric_sets()) names += (names.empty() ? "" : ", ") + s.name;
      throw usage_error("--metrics: unknown metric set '" + word + "'; sets: " + names +
                        " (or raw CUPTI metric names such as dram__bytes_read.sum; `gpubench metrics --list`)");
    }
    for (const auto& m : set->metrics) add(m);
  }
  return out;
}

}  // namespace gpubench
