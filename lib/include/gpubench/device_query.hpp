#pragma once
/// Finding and describing the GPUs of this machine, through the CUDA runtime and (when the driver
/// provides it) NVML. The only part of device facts that needs a GPU; device_info itself is plain
/// data.
#include <string>

#include "gpubench/device_info.hpp"

namespace gpubench {

/// Number of CUDA devices. 0, not an error, when there is no GPU or no usable driver, so callers
/// can print no_device_message() instead of a raw CUDA error. Throws gpubench::error (exit 1)
/// only for an unexpected CUDA failure.
int device_count();

/// Every field of device_info for device `ordinal`: CUDA runtime facts, plus the driver string,
/// PCIe link and power limit from NVML when it is available. Throws gpubench::error: exit 1 when
/// there is no device or a CUDA call fails, exit 2 when `ordinal` names no device.
device_info query_device(int ordinal);

/// What to tell the user when device_count() is 0: no CUDA device (no driver or no GPU), and
/// which commands still work without one.
std::string no_device_message();

}  // namespace gpubench
