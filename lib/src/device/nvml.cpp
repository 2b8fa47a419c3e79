#include "device/nvml.hpp"

#include <dlfcn.h>

#include <array>
#include <cstring>

namespace gpubench::detail {

namespace {

constexpr int nvml_success = 0;             // NVML_SUCCESS
constexpr int nvml_clock_sm = 1;            // NVML_CLOCK_SM (NVML_CLOCK_GRAPHICS is 0)
constexpr int nvml_temperature_gpu = 0;     // NVML_TEMPERATURE_GPU
constexpr unsigned driver_version_size = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

// dlsym hands back an object pointer; POSIX guarantees it converts to a function pointer.
template <class F>
F as_function(void* p) noexcept {
  return reinterpret_cast<F>(p);
}

}  // namespace

nvml::nvml(const char* library) {
  // RTLD_LOCAL: NVML's symbols stay out of the global namespace, so they can never satisfy (or
  // clash with) another library's references. RTLD_NOW: a broken install fails here, not
  // half-way through a query.
  library_ = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    const char* why = dlerror();
    // dlerror() already names the library and the cause ("...: cannot open shared object file").
    reason_ = (why != nullptr ? std::string(why) : std::string("cannot load ") + library) +
              " (the NVIDIA driver is not installed, or not visible to this process)";
    return;
  }
  auto init = as_function<init_fn>(symbol("nvmlInit_v2"));
  shutdown_ = as_function<shutdown_fn>(symbol("nvmlShutdown"));
  error_string_ = as_function<error_string_fn>(symbol("nvmlErrorString"));
  if (init == nullptr || shutdown_ == nullptr) {
    reason_ = std::string(library) + " has no nvmlInit_v2/nvmlShutdown; it is not a usable NVML library";
    return;
  }
  if (const nvml_return rc = init(); rc != nvml_success) {
    reason_ = "nvmlInit_v2 failed: " + error_text(rc);
    return;
  }
  initialized_ = true;

  // Optional entry points: a missing one only makes its own query answer nullopt.
  handle_by_pci_ = as_function<handle_by_pci_fn>(symbol("nvmlDeviceGetHandleByPciBusId_v2"));
  clock_info_ = as_function<clock_fn>(symbol("nvmlDeviceGetClockInfo"));
  max_clock_info_ = as_function<clock_fn>(symbol("nvmlDeviceGetMaxClockInfo"));
  // Renamed in driver 535 ("throttle" became "clocks event"); the old name stays exported but is
  // deprecated, so prefer the new one and fall back for older drivers.
  clock_event_reasons_ = as_function<reasons_fn>(symbol("nvmlDeviceGetCurrentClocksEventReasons"));
  if (clock_event_reasons_ == nullptr) {
    clock_event_reasons_ = as_function<reasons_fn>(symbol("nvmlDeviceGetCurrentClocksThrottleReasons"));
  }
  pcie_gen_max_ = as_function<uint_fn>(symbol("nvmlDeviceGetMaxPcieLinkGeneration"));
  pcie_width_max_ = as_function<uint_fn>(symbol("nvmlDeviceGetMaxPcieLinkWidth"));
  pcie_gen_current_ = as_function<uint_fn>(symbol("nvmlDeviceGetCurrPcieLinkGeneration"));
  pcie_width_current_ = as_function<uint_fn>(symbol("nvmlDeviceGetCurrPcieLinkWidth"));
  driver_version_ = as_function<driver_version_fn>(symbol("nvmlSystemGetDriverVersion"));
  enforced_power_limit_ = as_function<uint_fn>(symbol("nvmlDeviceGetEnforcedPowerLimit"));
  temperature_ = as_function<temperature_fn>(symbol("nvmlDeviceGetTemperature"));
  common_ancestor_ = as_function<ancestor_fn>(symbol("nvmlDeviceGetTopologyCommonAncestor"));
  p2p_status_ = as_function<p2p_status_fn>(symbol("nvmlDeviceGetP2PStatus"));
  nvlink_state_ = as_function<nvlink_state_fn>(symbol("nvmlDeviceGetNvLinkState"));
  nvlink_remote_ = as_function<nvlink_remote_fn>(symbol("nvmlDeviceGetNvLinkRemotePciInfo_v2"));
}

nvml::~nvml() {
  if (initialized_) {
    shutdown_();  // nvmlInit/nvmlShutdown are reference counted; this undoes only our init
  }
  if (library_ != nullptr) {
    dlclose(library_);
  }
}

void* nvml::symbol(const char* name) const noexcept {
  return library_ != nullptr ? dlsym(library_, name) : nullptr;
}

std::string nvml::error_text(nvml_return code) const {
  const char* text = error_string_ != nullptr ? error_string_(code) : nullptr;
  return std::string(text != nullptr ? text : "unknown error") + " (NVML error " + std::to_string(code) + ")";
}

std::optional<unsigned> nvml::query_uint(uint_fn fn, device_handle device) const noexcept {
  unsigned value = 0;
  if (!initialized_ || fn == nullptr || device == nullptr || fn(device, &value) != nvml_success) {
    return std::nullopt;
  }
  return value;
}

std::optional<nvml::device_handle> nvml::device_by_pci_bus_id(const std::string& bus_id) const noexcept {
  device_handle device = nullptr;
  if (!initialized_ || handle_by_pci_ == nullptr || handle_by_pci_(bus_id.c_str(), &device) != nvml_success ||
      device == nullptr) {
    return std::nullopt;
  }
  return device;
}

std::optional<unsigned> nvml::sm_clock_mhz(device_handle device) const noexcept {
  unsigned mhz = 0;
  if (!initialized_ || clock_info_ == nullptr || device == nullptr ||
      clock_info_(device, nvml_clock_sm, &mhz) != nvml_success) {
    return std::nullopt;
  }
  return mhz;
}

std::optional<unsigned> nvml::sm_clock_max_mhz(device_handle device) const noexcept {
  unsigned mhz = 0;
  if (!initialized_ || max_clock_info_ == nullptr || device == nullptr ||
      max_clock_info_(device, nvml_clock_sm, &mhz) != nvml_success) {
    return std::nullopt;
  }
  return mhz;
}

std::optional<unsigned long long> nvml::clock_event_reasons(device_handle device) const noexcept {
  unsigned long long reasons = 0;
  if (!initialized_ || clock_event_reasons_ == nullptr || device == nullptr ||
      clock_event_reasons_(device, &reasons) != nvml_success) {
    return std::nullopt;
  }
  return reasons;
}

std::optional<unsigned> nvml::pcie_gen_max(device_handle device) const noexcept {
  return query_uint(pcie_gen_max_, device);
}

std::optional<unsigned> nvml::pcie_width_max(device_handle device) const noexcept {
  return query_uint(pcie_width_max_, device);
}

std::optional<unsigned> nvml::pcie_gen_current(device_handle device) const noexcept {
  return query_uint(pcie_gen_current_, device);
}

std::optional<unsigned> nvml::pcie_width_current(device_handle device) const noexcept {
  return query_uint(pcie_width_current_, device);
}

std::optional<std::string> nvml::driver_version() const noexcept {
  std::array<char, driver_version_size> buffer{};
  if (!initialized_ || driver_version_ == nullptr ||
      driver_version_(buffer.data(), driver_version_size) != nvml_success) {
    return std::nullopt;
  }
  buffer.back() = '\0';  // NVML terminates it; do not trust that with our memory
  try {
    return std::string(buffer.data());
  } catch (...) {  // allocation failure: a missing string is better than terminate()
    return std::nullopt;
  }
}

std::optional<double> nvml::power_limit_w(device_handle device) const noexcept {
  const auto milliwatts = query_uint(enforced_power_limit_, device);
  if (!milliwatts) {
    return std::nullopt;
  }
  return static_cast<double>(*milliwatts) / 1000.0;
}

std::optional<unsigned> nvml::temperature_c(device_handle device) const noexcept {
  unsigned celsius = 0;
  if (!initialized_ || temperature_ == nullptr || device == nullptr ||
      temperature_(device, nvml_temperature_gpu, &celsius) != nvml_success) {
    return std::nullopt;
  }
  return celsius;
}

std::optional<int> nvml::topology_common_ancestor(device_handle a, device_handle b) const noexcept {
  int level = 0;
  if (!initialized_ || common_ancestor_ == nullptr || a == nullptr || b == nullptr ||
      common_ancestor_(a, b, &level) != nvml_success) {
    return std::nullopt;
  }
  return level;
}

std::optional<int> nvml::p2p_status(device_handle a, device_handle b, int caps_index) const noexcept {
  int status = 0;
  if (!initialized_ || p2p_status_ == nullptr || a == nullptr || b == nullptr ||
      p2p_status_(a, b, caps_index, &status) != nvml_success) {
    return std::nullopt;
  }
  return status;
}

std::optional<bool> nvml::nvlink_active(device_handle device, unsigned link) const noexcept {
  int state = 0;  // nvmlEnableState_t: NVML_FEATURE_DISABLED 0, NVML_FEATURE_ENABLED 1
  if (!initialized_ || nvlink_state_ == nullptr || device == nullptr || link >= max_nvlinks ||
      nvlink_state_(device, link, &state) != nvml_success) {
    return std::nullopt;
  }
  return state != 0;
}

std::optional<nvml::pci_address> nvml::nvlink_remote(device_handle device, unsigned link) const noexcept {
  // nvmlPciInfo_t (the _v2 call's layout): char busIdLegacy[16]; unsigned domain, bus, device,
  // pciDeviceId, pciSubSystemId; char busId[32]. The buffer is larger than that, zeroed, so a
  // library that writes a longer struct cannot write past it.
  alignas(8) std::array<unsigned char, 256> info{};
  if (!initialized_ || nvlink_remote_ == nullptr || device == nullptr || link >= max_nvlinks ||
      nvlink_remote_(device, link, info.data()) != nvml_success) {
    return std::nullopt;
  }
  pci_address a;
  std::memcpy(&a.domain, info.data() + 16, sizeof(unsigned));
  std::memcpy(&a.bus, info.data() + 20, sizeof(unsigned));
  std::memcpy(&a.device, info.data() + 24, sizeof(unsigned));
  return a;
}

}  // namespace gpubench::detail
