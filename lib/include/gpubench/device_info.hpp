#pragma once
/// Facts about one GPU, gathered from the CUDA runtime and (when present) NVML. Plain data, no
/// CUDA types, so profiles carry it and machines without a GPU can read it back.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench {

struct device_info {
  int ordinal = 0;
  std::string name;
  std::string uuid;            ///< "GPU-xxxxxxxx-..." as nvidia-smi prints it
  std::string pci_bus_id;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_max_mhz = 0;       ///< peak SM clock reported by the runtime
  double memory_clock_mhz = 0;       ///< peak memory clock reported by the runtime
  int memory_bus_width_bits = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t shared_per_sm_bytes = 0;
  bool ecc_enabled = false;
  int driver_version = 0;            ///< cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;           ///< cudaRuntimeGetVersion
  std::string driver_string;         ///< NVML's driver version string, e.g. "580.159.04" (may be empty)
  std::optional<int> pcie_gen_max, pcie_width_max;     ///< from NVML; absent without it
  std::optional<int> pcie_gen_current, pcie_width_current;
  std::optional<double> power_limit_w;
  bool nvml_available = false;
};

/// One ceiling of the device, measured by `gpubench device --ceilings` (or theoretical).
struct ceiling {
  std::string name;          ///< "dram", "l2", "fp32", "fp64", "tf32", "fp16", "bf16", "fp8",
                             ///< "pcie_h2d_pinned", "pcie_d2h_pinned", "pcie_duplex_pinned", "pcie_h2d_pageable",
                             ///< "pcie_d2h_pageable", "launch_stream", "launch_graph"
  std::string unit;          ///< "B/s", "FLOP/s" or "s" (latency)
  double value = 0;          ///< the measured value
  double theoretical = 0;    ///< from device facts, 0 when the device reports too little to compute it
  double reference = 0;      ///< what the vendor library reaches in the same run (cudaMemcpy D2D for
                             ///< dram, cuBLAS at 8192^3 for tensor peaks), 0 when not applicable
  std::string method;        ///< how it was measured, one line
};

/// Physical ceilings used for the floor of a work model (bytes/s and FLOP/s). Theoretical ones
/// come from device facts; measured ones replace them (source "measured") and add `table`.
struct ceilings {
  std::string source;                ///< "theoretical" (from device facts) or "measured"
  double dram_bytes_per_s = 0;       ///< theoretical: 2 * memory clock * bus width / 8 (DDR)
  double pcie_bytes_per_s = 0;       ///< per direction; theoretical: link generation and width; 0 if unknown
  double pcie_duplex_bytes_per_s = 0;  ///< per direction while both directions copy at once; theoretical:
                                       ///< the same as one direction (PCIe is full duplex)
  double fp32_flops_per_s = 0;       ///< theoretical: SMs * FP32 lanes/SM * 2 * max SM clock
  double fp64_flops_per_s = 0;
  /// Tensor-core peaks (dense, FP32 accumulation): measured by cuBLAS at 8192^3, else theoretical,
  /// SMs * dense ops per SM per clock * max SM clock (gpubench/compute_peaks.hpp). 0 = the GPU
  /// has no such unit, or its rate is unknown.
  double tf32_flops_per_s = 0;
  double fp16_flops_per_s = 0;
  double bf16_flops_per_s = 0;
  double fp8_flops_per_s = 0;        ///< 0 where the GPU has no FP8 tensor cores
  double fp64_tensor_flops_per_s = 0;  ///< FP64 tensor cores (A100, H100/H200); always theoretical
  double int8_ops_per_s = 0;           ///< INT8 tensor-core operations per second; always theoretical
  /// Per direction over the link between the run's GPU and the next one (chapter 8's pair), always
  /// theoretical: NVLink links x per-link rate, or the PCIe rate for peer-to-peer over PCIe (NVML;
  /// peer_link.hpp). 0 with one GPU, without peer access, or without NVML. Set by the runner, not
  /// by theoretical_ceilings() or `device --ceilings`, since it belongs to a pair of GPUs.
  double peer_bytes_per_s = 0;
  std::string measured_at;           ///< ISO 8601 UTC, when source is "measured"
  std::vector<ceiling> table;        ///< every measured ceiling, for `device --ceilings` and the roofline
};

/// FP32 and FP64 lanes per SM for a compute capability (0 when unknown).
int fp32_lanes_per_sm(int cc_major, int cc_minor);
int fp64_lanes_per_sm(int cc_major, int cc_minor);
/// Usable PCIe bandwidth per direction after line encoding, bytes/s (0 when unknown).
double pcie_bytes_per_s(int generation, int width);
/// Theoretical ceilings from device facts.
ceilings theoretical_ceilings(const device_info& d);

}  // namespace gpubench
