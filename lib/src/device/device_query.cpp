#include "gpubench/device_query.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstdio>

#include "device/nvml.hpp"
#include "gpubench/error.hpp"

namespace gpubench {

namespace {

// "cudaErrorInvalidDevice (invalid device ordinal)". Also clears the error, so a failed query
// does not resurface as the result of the next, unrelated CUDA call.
std::string describe(cudaError_t e) {
  cudaGetLastError();
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

// Errors with which the runtime says "there is nothing here to run on": no GPU, no driver, a
// driver too old or mismatched, or a stub libcuda. These mean "0 devices", not a failure.
bool means_no_device(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorStubLibrary:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return true;
    default:
      return false;
  }
}

void check(cudaError_t e, const std::string& call, int ordinal) {
  if (e != cudaSuccess) {
    throw runtime_error(call + " failed for device " + std::to_string(ordinal) + ": " + describe(e) +
                        ". Check that the driver works: nvidia-smi should list the GPU without errors.");
  }
}

int attribute(cudaDeviceAttr attr, const char* name, int ordinal) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, ordinal), std::string("cudaDeviceGetAttribute(") + name + ")",
        ordinal);
  return value;
}

// nvidia-smi's form: "GPU-" then the 16 bytes as 8-4-4-4-12 lowercase hex digits.
std::string format_uuid(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out += '-';
    }
    std::array<char, 3> hex{};
    std::snprintf(hex.data(), hex.size(), "%02x", static_cast<unsigned>(static_cast<unsigned char>(uuid.bytes[i])));
    out += hex.data();
  }
  return out;
}

}  // namespace

int device_count() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaSuccess) {
    return count;
  }
  if (means_no_device(e)) {
    cudaGetLastError();  // not sticky; clear it so later calls do not report it again
    return 0;
  }
  throw runtime_error("cudaGetDeviceCount failed: " + describe(e) +
                      ". Check the NVIDIA driver with nvidia-smi; `gpubench list` works without a GPU.");
}

device_info query_device(int ordinal) {
  const int count = device_count();
  if (count == 0) {
    throw runtime_error(no_device_message());
  }
  if (ordinal < 0 || ordinal >= count) {
    // A bad --device value is the user's input, hence a usage error rather than a CUDA failure.
    throw usage_error("there is no CUDA device " + std::to_string(ordinal) + "; this machine has " +
                      std::to_string(count) + " (ordinals 0 to " + std::to_string(count - 1) + ")");
  }

  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties", ordinal);

  device_info d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.uuid = format_uuid(prop.uuid);
  std::array<char, 64> bus_id{};  // "0000:00:00.0" needs 13; leave room for wider domains
  check(cudaDeviceGetPCIBusId(bus_id.data(), static_cast<int>(bus_id.size()), ordinal), "cudaDeviceGetPCIBusId",
        ordinal);
  d.pci_bus_id = bus_id.data();
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  // CUDA 13 removed clockRate and memoryClockRate from cudaDeviceProp; the attributes remain.
  // Both are peak clocks in kHz.
  d.sm_clock_max_mhz = attribute(cudaDevAttrClockRate, "cudaDevAttrClockRate", ordinal) / 1000.0;
  d.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, "cudaDevAttrMemoryClockRate", ordinal) / 1000.0;
  d.memory_bus_width_bits = prop.memoryBusWidth;
  d.memory_bytes = prop.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
  d.shared_per_sm_bytes = prop.sharedMemPerMultiprocessor;
  d.ecc_enabled = prop.ECCEnabled != 0;
  check(cudaDriverGetVersion(&d.driver_version), "cudaDriverGetVersion", ordinal);
  check(cudaRuntimeGetVersion(&d.runtime_version), "cudaRuntimeGetVersion", ordinal);

  // NVML adds what the runtime does not know. Its absence is normal (containers without the
  // management library, WSL), so it only leaves those fields empty.
  const detail::nvml nvml;
  if (nvml.available()) {
    if (auto version = nvml.driver_version()) {
      d.driver_string = *version;
    }
    if (const auto device = nvml.device_by_pci_bus_id(d.pci_bus_id)) {
      // "available" means NVML answered for this very device, not merely that the library loaded.
      d.nvml_available = true;
      const auto as_int = [](std::optional<unsigned> v) -> std::optional<int> {
        return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
      };
      d.pcie_gen_max = as_int(nvml.pcie_gen_max(*device));
      d.pcie_width_max = as_int(nvml.pcie_width_max(*device));
      d.pcie_gen_current = as_int(nvml.pcie_gen_current(*device));
      d.pcie_width_current = as_int(nvml.pcie_width_current(*device));
      d.power_limit_w = nvml.power_limit_w(*device);
    }
  }
  return d;
}

std::string no_device_message() {
  return "No CUDA device found: either the NVIDIA driver is not installed (or not visible to this process, "
         "e.g. a container started without GPU access) or this machine has no NVIDIA GPU. Running benchmarks "
         "needs one. Without a GPU these still work: `gpubench list`, `gpubench compare`, `gpubench export`, "
         "`gpubench roofline --from PROFILE`, `gpubench metrics --list` (and every command's --help).";
}

}  // namespace gpubench
