#pragma once
/// Finding and describing the GPUs of this machine, through the CUDA runtime and (when the driver
/// provides it) NVML. The only part of device facts that needs a GPU; device_info itself is plain
/// data.
#include <string>
#include <vector>

#include "gpubench/device_info.hpp"
#include "gpubench/peer_link.hpp"

namespace gpubench {

/// Number of CUDA devices. 0, not an error, when there is no GPU or no usable driver, so callers
/// can print no_device_message() instead of a raw CUDA error. Throws gpubench::error (exit 1)
/// only for an unexpected CUDA failure.
int device_count();

/// Every field of device_info for device `ordinal`: CUDA runtime facts, plus the driver string,
/// PCIe link and power limit from NVML when it is available. Throws gpubench::error: exit 1 when
/// there is no device or a CUDA call fails, exit 2 when `ordinal` names no device.
device_info query_device(int ordinal);

/// For every pair of `devices` (empty with fewer than two): peer access both ways (CUDA) and the
/// path between them (NVML, when the driver has it: NVLink direct or through NVSwitch, link count,
/// PCIe common ancestor). Throws gpubench::error on an unexpected CUDA failure.
std::vector<peer_link> query_peer_links(const std::vector<device_info>& devices);

/// What to tell the user when device_count() is 0: no CUDA device (no driver or no GPU), and
/// which commands still work without one.
std::string no_device_message();

}  // namespace gpubench
