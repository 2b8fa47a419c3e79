#pragma once
/// The work model: the minimum a size's problem must do, independent of any variant. The library
/// derives throughput, the physical floor (bytes over bandwidth, FLOPs over peak) and the
/// fraction of it each variant reaches from this.
#include <string>

namespace gpubench {

/// Which link the declared bytes must cross. pcie_duplex: `bytes` cross PCIe in EACH direction at
/// the same time (H2D and D2H concurrently, as a copy/compute pipeline does); its floor uses the
/// per-direction rate measured with both directions busy, which a link may not sustain at the
/// one-direction rate. peer: `bytes` cross the link between two GPUs (NVLink or PCIe peer-to-peer)
/// in one direction; peer_duplex: `bytes` cross it in EACH direction at the same time (a copy
/// both ways, or a two-GPU all-reduce). Both use the link's per-direction rate (ceilings::
/// peer_bytes_per_s: theoretical, from NVML), which is the same both ways (docs/chapters.md,
/// "Chapter 8").
enum class bytes_path { dram, pcie, pcie_duplex, peer, peer_duplex };
/// Which arithmetic unit the declared FLOPs run on (decides the peak used for the floor).
/// fp32 and fp64: FMA pipes (SIMT); tf32, fp16, bf16, fp8 (E4M3/E5M2, Hopper and Ada): tensor
/// cores with FP32 accumulation; fp64_tensor: FP64 tensor cores (A100, H100/H200); int8: INT8
/// tensor-core operations (counted like FLOPs: a multiply-add is 2).
enum class flop_kind { fp32, fp64, tf32, fp16, bf16, fp8, int8, fp64_tensor };

struct work {
  double bytes = 0;            ///< bytes that must move across `path` (each input read once, each output written once)
  double flops = 0;            ///< floating-point operations that must be done (an FMA counts 2)
  bytes_path path = bytes_path::dram;
  flop_kind flops_kind = flop_kind::fp32;
  double items = 0;            ///< optional count of user-visible items (kernels, matrices) for a per-item cost
  std::string item_name;       ///< singular noun for `items`, e.g. "kernel"
};

const char* to_string(bytes_path p);
const char* to_string(flop_kind k);

}  // namespace gpubench
