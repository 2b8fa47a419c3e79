// Compute peaks per precision from device facts: SMs x dense operations per SM per clock x the
// maximum SM clock. The rates per SM per clock below are NVIDIA's published peaks divided by the
// part's SMs and the clock NVIDIA quotes them at; each line names the part it was checked on.
// Tensor rates are dense (no 2:4 sparsity) with FP32 accumulation, which is what gpubench's pairs
// and the measured ceilings (cuBLAS, CUBLAS_COMPUTE_32F) use.
#include "gpubench/compute_peaks.hpp"

namespace gpubench {

namespace {

struct tensor_rates {
  double tf32 = 0, fp16 = 0, fp8 = 0, int8 = 0, fp64 = 0;  // bf16 runs at the fp16 rate on every part here
};

// Sources, per compute capability (FLOP or OP per SM per clock = published peak / (SMs x clock)):
//  8.0 A100: "NVIDIA A100 Tensor Core GPU Architecture" whitepaper, A100 SXM4 peaks at 108 SMs and
//      1410 MHz: TF32 156 TFLOPS (1024), FP16/BF16 312 (2048), INT8 624 TOPS (4096), FP64 tensor 19.5 (128).
//  8.6 GA10x: A40 datasheet, 84 SMs at 1740 MHz: TF32 74.8 (512), FP16/BF16 149.7 (1024), INT8 299.3 (2048).
//  8.9 Ada: L4 datasheet, 58 SMs at 2040 MHz (its figures are with sparsity; dense is half): TF32 60
//      (512), FP16/BF16 121 (1024), FP8 242.5 (2048), INT8 242.5 TOPS (2048).
//  9.0 H100/H200: "NVIDIA H100 Tensor Core GPU Architecture" whitepaper, H100 SXM5 at 132 SMs, tensor
//      peaks quoted at 1830 MHz: TF32 494.7 (2048), FP16/BF16 989.4 (4096), FP8 1978.9 (8192), INT8
//      1978.9 TOPS (8192); FP64 tensor 66.9 at 1980 MHz (256).
// No FP8 before 8.9; no FP64 tensor cores on GA10x or Ada.
tensor_rates full_rates(int cc_major, int cc_minor) {
  const int cc = cc_major * 10 + cc_minor;
  switch (cc) {
    case 80: return {.tf32 = 1024, .fp16 = 2048, .fp8 = 0, .int8 = 4096, .fp64 = 128};
    case 86: return {.tf32 = 512, .fp16 = 1024, .fp8 = 0, .int8 = 2048, .fp64 = 0};
    case 89: return {.tf32 = 512, .fp16 = 1024, .fp8 = 2048, .int8 = 2048, .fp64 = 0};
    case 90: return {.tf32 = 2048, .fp16 = 4096, .fp8 = 8192, .int8 = 8192, .fp64 = 256};
    default: return {};
  }
}

// GeForce parts of GA10x and Ada run tensor math with FP32 accumulation at half the rate above
// (FP16 accumulation and INT8 keep it): "NVIDIA Ampere GA102 GPU Architecture" whitepaper, RTX 3090
// (82 SMs, 1695 MHz): FP16 with FP32 accumulate 71 TFLOPS (512), TF32 35.6 (256); "NVIDIA Ada GPU
// Architecture" whitepaper, RTX 4090 (128 SMs, 2520 MHz): FP16/BF16 with FP32 accumulate 165.2
// (512), TF32 82.6 (256), FP8 with FP32 accumulate 330.3 (1024), INT8 660.6 TOPS (2048).
bool halves_fp32_accumulation(const device_info& d) {
  const int cc = d.cc_major * 10 + d.cc_minor;
  return (cc == 86 || cc == 89) && d.name.find("GeForce") != std::string::npos;
}

}  // namespace

double ops_per_sm_per_clock(const device_info& d, flop_kind k) {
  const tensor_rates t = full_rates(d.cc_major, d.cc_minor);
  const double accumulate = halves_fp32_accumulation(d) ? 0.5 : 1.0;
  switch (k) {
    case flop_kind::fp32: return 2.0 * fp32_lanes_per_sm(d.cc_major, d.cc_minor);  // an FMA is 2 FLOPs
    case flop_kind::fp64: return 2.0 * fp64_lanes_per_sm(d.cc_major, d.cc_minor);
    case flop_kind::tf32: return t.tf32 * accumulate;
    case flop_kind::fp16:
    case flop_kind::bf16: return t.fp16 * accumulate;
    case flop_kind::fp8: return t.fp8 * accumulate;
    case flop_kind::int8: return t.int8;
    case flop_kind::fp64_tensor: return t.fp64;
  }
  return 0;
}

double theoretical_peak(const device_info& d, flop_kind k) {
  return d.sm_count * ops_per_sm_per_clock(d, k) * d.sm_clock_max_mhz * 1e6;
}

namespace {
// The field of `c` (const or not) holding the peak of kind `k`.
template <class Ceilings>
auto& peak_field(Ceilings& c, flop_kind k) {
  switch (k) {
    case flop_kind::fp32: return c.fp32_flops_per_s;
    case flop_kind::fp64: return c.fp64_flops_per_s;
    case flop_kind::tf32: return c.tf32_flops_per_s;
    case flop_kind::fp16: return c.fp16_flops_per_s;
    case flop_kind::bf16: return c.bf16_flops_per_s;
    case flop_kind::fp8: return c.fp8_flops_per_s;
    case flop_kind::int8: return c.int8_ops_per_s;
    case flop_kind::fp64_tensor: return c.fp64_tensor_flops_per_s;
  }
  return c.fp32_flops_per_s;  // unreachable: every enumerator is handled above
}
}  // namespace

double& compute_peak_field(ceilings& c, flop_kind k) { return peak_field(c, k); }

double compute_peak(const ceilings& c, flop_kind k) { return peak_field(c, k); }

const char* compute_peak_source(const ceilings& c, flop_kind k) {
  if (c.source == "measured")
    for (const ceiling& e : c.table)
      if (e.name == to_string(k) && e.unit == "FLOP/s" && e.value > 0) return "measured";
  return "theoretical";
}

std::vector<flop_kind> fill_missing_peaks(ceilings& c, const device_info& d) {
  std::vector<flop_kind> filled;
  for (const flop_kind k : kAllFlopKinds) {
    double& peak = compute_peak_field(c, k);
    if (peak > 0) continue;
    peak = theoretical_peak(d, k);
    if (peak > 0) filled.push_back(k);
  }
  return filled;
}

const flop_kind* flop_kind_named(const std::string& name) {
  for (const flop_kind& k : kAllFlopKinds)
    if (name == to_string(k)) return &k;
  return nullptr;
}

}  // namespace gpubench
