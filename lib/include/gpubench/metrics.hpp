#pragma once
/// Hardware metrics (CUPTI Range Profiler): the named metric sets, the values derived from raw
/// counters, the cross-check of the work model against them, and the per-record result the
/// profile stores. CUDA-free: everything here is computed from plain numbers, so it is tested on
/// any machine. Collection itself lives in gpubench/cupti.hpp (gpubench_cuda).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpubench/work.hpp"

namespace gpubench {

/// A named list of raw metric names (full CUPTI names with rollup, e.g. `dram__bytes_read.sum`).
struct metric_set {
  std::string name;
  std::string description;
  std::vector<std::string> metrics;
};

/// The built-in sets in listing order: default, roofline, memory, compute, tensor, occupancy, all.
const std::vector<metric_set>& metric_sets();
const metric_set* find_metric_set(std::string_view name);

/// Metrics that exist on some architectures only (the tensor paths are named per chip family):
/// collection drops them quietly where the chip lacks them. Any other missing metric is named.
bool is_optional_metric(std::string_view name);

/// Resolves a --metrics value: comma-separated set names and raw metric names (a raw name contains
/// "__"), in order, without duplicates. Empty → the default set. Throws usage_error naming the
/// valid sets for an unknown word.
std::vector<std::string> resolve_metrics(std::string_view spec);

/// Values derived from raw metric values (keyed by raw name). A key is present only when every
/// metric it needs was collected. Keys and units:
///   duration_s                       gpu__time_duration.sum, seconds
///   dram_bytes_read, dram_bytes_write, dram_bytes   bytes
///   l2_bytes, l1_bytes               bytes through the L2 slices / L1TEX
///   flops_fp32, flops_fp64, flops_fp16   FLOP, counted like Nsight Compute's roofline:
///                                    add + mul + 2·fma thread instructions (predicated on)
///   flops_tensor_fp16, _bf16, _tf32, _fp64, _fp8, flops_tensor   tensor-path math ops
///   flops                            sum of every FLOP key present
///   arithmetic_intensity             flops / dram_bytes, FLOP/byte
///   flops_per_s, dram_bytes_per_s    over duration_s
///   sm_throughput_pct, memory_throughput_pct, dram_throughput_pct   % of peak, elapsed
///   achieved_occupancy_pct           active warps / max warps per SM, %
///   l1_hit_rate_pct, l2_hit_rate_pct, global_load_efficiency_pct, global_store_efficiency_pct   %
std::map<std::string, double> derive_metrics(const std::map<std::string, double>& raw);

/// One comparison of the declared work with what the counters saw. The work model is the
/// minimum a problem needs (each input read once, each output written once, the FLOPs of the
/// math as written), so counters above it are expected and only say how far a variant is from
/// that minimum: multi-pass kernels move more bytes, GEMMs re-read tiles, and exp/erf expand into
/// many FP instructions. Counters below the minimum contradict it (docs/counters.md, "Counters
/// against the work model").
struct work_check {
  std::string quantity;     ///< "dram_bytes" or "flops"
  double declared = 0;
  double measured = 0;
  double rel_diff = 0;      ///< (measured − declared) / declared
  bool exceeds = false;     ///< |rel_diff| > threshold, either way
  bool contradicts = false; ///< below the minimum by more than the threshold: a warning
  std::string message;      ///< set when contradicts: a warning for the console and the profile
  std::string note;         ///< set when above by more than the threshold: "moves 2.5× the minimum ..."
};
/// Compares declared DRAM bytes (path dram only) and FLOPs with `derived`; a quantity is checked
/// only when both sides are known and the declared value is positive.
std::vector<work_check> cross_check(const work& declared, const std::map<std::string, double>& derived,
                                    double threshold = 0.10);

enum class metrics_status {
  collected,    ///< every requested metric the chip has was collected
  unavailable,  ///< nothing collected; `reason` says why (permissions, under ncu, unsupported GPU, ...)
};
const char* to_string(metrics_status s);

/// One range's values (a kernel in per-kernel mode).
struct kernel_metrics {
  std::string name;
  std::map<std::string, double> values;
};

/// A record's hardware metrics, collected in a pass separate from timing.
struct metric_result {
  metrics_status status = metrics_status::unavailable;
  std::string reason;                      ///< why unavailable, or notes on a partial collection
  std::string chip;                        ///< e.g. "GH100"
  std::vector<std::string> requested;      ///< raw names asked for
  std::vector<std::string> missing;        ///< requested but not on this chip (optional ones included)
  int passes = 0;                          ///< replays of the variant it took
  double collection_s = 0;                 ///< wall time of the metrics pass for this record
  std::map<std::string, double> values;    ///< raw values, by metric name
  std::map<std::string, double> derived;   ///< derive_metrics(values)
  std::vector<std::string> warnings;       ///< work-model cross-check messages
  std::vector<kernel_metrics> kernels;     ///< per-kernel values when collected (may be empty)
};

/// The record's "metrics" object in the profile (docs/profile-schema.md).
nlohmann::ordered_json to_json(const metric_result& m);
/// Validates and converts; throws usage_error starting with `where` (file and JSON path).
metric_result metric_result_from_json(const nlohmann::ordered_json& j, const std::string& where);

}  // namespace gpubench
