#pragma once
// NVML's side of a link between two GPUs (gpubench/peer_link.hpp): CUDA-free, so tested on the CPU
// against a fake NVML library.
#include <optional>
#include <string>

#include "device/nvml.hpp"
#include "gpubench/peer_link.hpp"

namespace gpubench::detail {

/// "0000:18:00.0" (CUDA's form) or "00000000:18:00.0" (NVML's): domain, bus, device; nullopt if malformed.
std::optional<nvml::pci_address> parse_pci_bus_id(const std::string& id);

/// Fills `out`'s NVML facts for GPUs `a` and `b` (b at `b_address`): whether NVML answered at all,
/// the PCIe common ancestor, NVLink P2P status, and the NVLinks of each GPU and those from a to b.
void add_nvml_facts(const nvml& nv, nvml::device_handle a, nvml::device_handle b, const nvml::pci_address& b_address,
                    peer_link& out);

}  // namespace gpubench::detail
