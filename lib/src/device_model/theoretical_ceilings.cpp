// Theoretical ceilings from device facts. Pure C++ on purpose: it belongs to the CPU-only core, so
// a profile recorded on a GPU machine can be judged against its ceilings anywhere.
#include "gpubench/compute_peaks.hpp"
#include "gpubench/device_info.hpp"

namespace gpubench {

// Lanes per SM are the "results per clock cycle per multiprocessor" for 32-bit and 64-bit
// floating-point add, multiply, multiply-add in the CUDA C Programming Guide, "Arithmetic
// Instructions" throughput table. A compute capability the table does not give us (or that we
// have not checked) answers 0, so its ceiling reads as unknown instead of a guess.

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 7:  // Volta, Turing
      return 64;
    case 8:
      if (cc_minor == 0) return 64;                                   // A100
      if (cc_minor == 6 || cc_minor == 7 || cc_minor == 9) return 128;  // GA10x, Orin, Ada
      return 0;
    case 9:
      return cc_minor == 0 ? 128 : 0;  // Hopper
    case 10:
    case 12:
      return 128;  // Blackwell
    default:
      return 0;
  }
}

int fp64_lanes_per_sm(int cc_major, int cc_minor) {
  if (cc_major == 7 && cc_minor == 0) return 32;   // V100
  if (cc_major == 8 && cc_minor == 0) return 32;   // A100
  if (cc_major == 9 && cc_minor == 0) return 64;   // H100/H200
  if (cc_major == 10 && cc_minor == 0) return 64;  // B200
  // Consumer parts run FP64 at 1/64 of FP32.
  if (cc_major == 8 && (cc_minor == 6 || cc_minor == 9)) return 2;
  if (cc_major == 12) return 2;
  return 0;
}

double pcie_bytes_per_s(int generation, int width) {
  // Per-lane signalling rate (GT/s) and the fraction of it that carries data after line encoding.
  // The result is the raw link payload rate; packet (TLP/DLLP) overhead comes on top, which is
  // why a good copy reaches 80-90% of it, not 100%.
  double gt_per_s = 0;
  double encoding = 0;
  switch (generation) {
    case 1: gt_per_s = 2.5; encoding = 8.0 / 10.0; break;
    case 2: gt_per_s = 5.0; encoding = 8.0 / 10.0; break;
    case 3: gt_per_s = 8.0; encoding = 128.0 / 130.0; break;
    case 4: gt_per_s = 16.0; encoding = 128.0 / 130.0; break;
    case 5: gt_per_s = 32.0; encoding = 128.0 / 130.0; break;
    // Gen6 drops 128b/130b for PAM4 signalling with fixed-size FLITs (and FEC/CRC inside each
    // FLIT); 128b/130b is kept here as an approximation of its efficiency, close enough for a
    // ceiling and consistent with gen3-5.
    case 6: gt_per_s = 64.0; encoding = 128.0 / 130.0; break;
    default: return 0;
  }
  if (width <= 0) {
    return 0;
  }
  return gt_per_s * 1e9 * encoding / 8.0 * width;
}

ceilings theoretical_ceilings(const device_info& d) {
  ceilings c;
  c.source = "theoretical";
  // HBM and GDDR transfer on both clock edges, hence the factor 2 on the reported memory clock.
  c.dram_bytes_per_s = 2.0 * d.memory_clock_mhz * 1e6 * d.memory_bus_width_bits / 8.0;
  c.pcie_bytes_per_s =
      d.pcie_gen_max && d.pcie_width_max ? pcie_bytes_per_s(*d.pcie_gen_max, *d.pcie_width_max) : 0.0;
  c.pcie_duplex_bytes_per_s = c.pcie_bytes_per_s;  // the link is full duplex on paper
  // FP32/FP64 FMA pipes and the tensor cores of every precision (lib/src/device_model/compute_peaks.cpp).
  for (const flop_kind k : kAllFlopKinds) compute_peak_field(c, k) = theoretical_peak(d, k);
  return c;
}

}  // namespace gpubench
