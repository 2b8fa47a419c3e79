// Names of the work model's enums as they appear in profiles and on the console. They are part of
// the profile schema: renaming one is an incompatible change (docs/profile-schema.md).
#include "gpubench/work.hpp"

namespace gpubench {

const char* to_string(bytes_path p) {
  switch (p) {
    case bytes_path::dram: return "dram";
    case bytes_path::pcie: return "pcie";
    case bytes_path::pcie_duplex: return "pcie_duplex";
    case bytes_path::peer: return "peer";
    case bytes_path::peer_duplex: return "peer_duplex";
  }
  return "?";
}

const char* to_string(flop_kind k) {
  switch (k) {
    case flop_kind::fp32: return "fp32";
    case flop_kind::fp64: return "fp64";
    case flop_kind::tf32: return "tf32";
    case flop_kind::fp16: return "fp16";
    case flop_kind::bf16: return "bf16";
    case flop_kind::fp8: return "fp8";
    case flop_kind::int8: return "int8";
    case flop_kind::fp64_tensor: return "fp64_tensor";
  }
  return "?";
}

}  // namespace gpubench
