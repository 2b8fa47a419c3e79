#pragma once
/// NVML, loaded at run time. gpubench must start on machines without the NVIDIA driver (CI, a
/// laptop reading profiles), and the toolkit ships no nvml.h we could rely on, so we dlopen
/// libnvidia-ml.so.1 and declare the handful of entry points we call ourselves. Every query
/// answers std::nullopt when NVML, the entry point, or the value is unavailable; nothing here
/// throws.
#include <optional>
#include <string>

/// NVML's opaque device type. Declared at global scope under NVML's own tag so that it names the
/// same type as nvml.h's `typedef struct nvmlDevice_st* nvmlDevice_t` would.
struct nvmlDevice_st;

namespace gpubench::detail {

class nvml {
 public:
  /// An NVML device handle; valid while the nvml object that returned it lives.
  using device_handle = nvmlDevice_st*;

  /// NVML's clock-event ("throttle") reason bits, from nvml.h's nvmlClocksEventReason* macros.
  static constexpr unsigned long long reason_gpu_idle = 0x1ULL;
  static constexpr unsigned long long reason_applications_clocks = 0x2ULL;
  static constexpr unsigned long long reason_sw_power_cap = 0x4ULL;
  static constexpr unsigned long long reason_hw_slowdown = 0x8ULL;
  static constexpr unsigned long long reason_sync_boost = 0x10ULL;
  static constexpr unsigned long long reason_sw_thermal = 0x20ULL;
  static constexpr unsigned long long reason_hw_thermal = 0x40ULL;
  static constexpr unsigned long long reason_hw_power_brake = 0x80ULL;

  /// Loads `library` (libnvidia-ml.so.1 unless a test names another) and calls nvmlInit_v2.
  /// On any failure the object is unavailable and reason() says why.
  explicit nvml(const char* library = "libnvidia-ml.so.1");
  /// nvmlShutdown (when init succeeded), then dlclose.
  ~nvml();
  nvml(const nvml&) = delete;
  nvml& operator=(const nvml&) = delete;
  // Not movable either: the resolved entry points and the init reference count belong to one
  // object, and nothing needs to move it (construct it in place, e.g. std::optional::emplace).
  nvml(nvml&&) = delete;
  nvml& operator=(nvml&&) = delete;

  /// True when the library loaded and nvmlInit_v2 succeeded.
  [[nodiscard]] bool available() const noexcept { return initialized_; }
  /// Why NVML is unavailable (empty when it is available).
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

  /// Device handle for a PCI bus id such as "0000:01:00.0" (the form cudaDeviceGetPCIBusId gives).
  [[nodiscard]] std::optional<device_handle> device_by_pci_bus_id(const std::string& bus_id) const noexcept;
  /// Current SM clock, MHz.
  [[nodiscard]] std::optional<unsigned> sm_clock_mhz(device_handle device) const noexcept;
  /// Maximum SM clock, MHz.
  [[nodiscard]] std::optional<unsigned> sm_clock_max_mhz(device_handle device) const noexcept;
  /// Bitmask of the reasons the clocks are below their maximum now (reason_* bits).
  [[nodiscard]] std::optional<unsigned long long> clock_event_reasons(device_handle device) const noexcept;
  /// Maximum PCIe link generation and width the device and system support.
  [[nodiscard]] std::optional<unsigned> pcie_gen_max(device_handle device) const noexcept;
  [[nodiscard]] std::optional<unsigned> pcie_width_max(device_handle device) const noexcept;
  /// Current PCIe link generation and width (an idle GPU may train down to save power).
  [[nodiscard]] std::optional<unsigned> pcie_gen_current(device_handle device) const noexcept;
  [[nodiscard]] std::optional<unsigned> pcie_width_current(device_handle device) const noexcept;
  /// Driver version string, e.g. "580.159.04".
  [[nodiscard]] std::optional<std::string> driver_version() const noexcept;
  /// Power limit the driver enforces now, watts.
  [[nodiscard]] std::optional<double> power_limit_w(device_handle device) const noexcept;
  /// GPU die temperature, degrees Celsius.
  [[nodiscard]] std::optional<unsigned> temperature_c(device_handle device) const noexcept;

  // ---- between two GPUs (`gpubench device` on a machine with several; chapter 8) ----
  /// A PCI function's address: a GPU's, or whatever an NVLink's far end is (a GPU or an NVSwitch).
  struct pci_address {
    unsigned domain = 0, bus = 0, device = 0;
    bool operator==(const pci_address&) const = default;
  };
  /// NVML's nvmlGpuTopologyLevel_t: where two GPUs' PCIe paths meet.
  static constexpr int topology_internal = 0, topology_single = 10, topology_multiple = 20,
                       topology_hostbridge = 30, topology_node = 40, topology_system = 50;
  /// nvmlGpuP2PCapsIndex_t values we ask about, and the status that means "supported".
  static constexpr int p2p_caps_read = 0, p2p_caps_write = 1, p2p_caps_nvlink = 2;
  static constexpr int p2p_status_ok = 0;
  /// NVML_NVLINK_MAX_LINKS (18 since Hopper).
  static constexpr unsigned max_nvlinks = 18;
  /// nvmlDeviceGetTopologyCommonAncestor: one of the topology_* levels.
  [[nodiscard]] std::optional<int> topology_common_ancestor(device_handle a, device_handle b) const noexcept;
  /// nvmlDeviceGetP2PStatus for one capability: p2p_status_ok when `a` and `b` support it.
  [[nodiscard]] std::optional<int> p2p_status(device_handle a, device_handle b, int caps_index) const noexcept;
  /// nvmlDeviceGetNvLinkState: whether NVLink `link` is active (nullopt: no such link, or no NVLink).
  [[nodiscard]] std::optional<bool> nvlink_active(device_handle device, unsigned link) const noexcept;
  /// nvmlDeviceGetNvLinkRemotePciInfo_v2: what NVLink `link` connects to.
  [[nodiscard]] std::optional<pci_address> nvlink_remote(device_handle device, unsigned link) const noexcept;

  /// True when `reasons` holds a reason that makes a measurement suspect: HW slowdown, SW or HW
  /// thermal slowdown, or HW power brake. Deliberately not SW power cap: a GPU at full load
  /// routinely sits at its power cap; that is its normal ceiling, not an anomaly, and flagging it
  /// would flag every honest compute-bound run. Idle and application-clock settings are not
  /// slowdowns of a running kernel either.
  [[nodiscard]] static constexpr bool is_slowdown(unsigned long long reasons) noexcept {
    constexpr unsigned long long slowdown =
        reason_hw_slowdown | reason_sw_thermal | reason_hw_thermal | reason_hw_power_brake;
    return (reasons & slowdown) != 0;
  }

 private:
  // NVML's C signatures, spelled with plain types: nvmlReturn_t and the enums are C ints.
  using nvml_return = int;
  using init_fn = nvml_return (*)();
  using shutdown_fn = nvml_return (*)();
  using error_string_fn = const char* (*)(nvml_return);
  using handle_by_pci_fn = nvml_return (*)(const char*, device_handle*);
  using clock_fn = nvml_return (*)(device_handle, int /*nvmlClockType_t*/, unsigned*);
  using reasons_fn = nvml_return (*)(device_handle, unsigned long long*);
  using uint_fn = nvml_return (*)(device_handle, unsigned*);
  using driver_version_fn = nvml_return (*)(char*, unsigned);
  using temperature_fn = nvml_return (*)(device_handle, int /*nvmlTemperatureSensors_t*/, unsigned*);
  using ancestor_fn = nvml_return (*)(device_handle, device_handle, int* /*nvmlGpuTopologyLevel_t*/);
  using p2p_status_fn = nvml_return (*)(device_handle, device_handle, int /*caps index*/, int* /*status*/);
  using nvlink_state_fn = nvml_return (*)(device_handle, unsigned, int* /*nvmlEnableState_t*/);
  using nvlink_remote_fn = nvml_return (*)(device_handle, unsigned, void* /*nvmlPciInfo_t*/);

  [[nodiscard]] void* symbol(const char* name) const noexcept;
  [[nodiscard]] std::string error_text(nvml_return code) const;
  [[nodiscard]] std::optional<unsigned> query_uint(uint_fn fn, device_handle device) const noexcept;

  void* library_ = nullptr;
  bool initialized_ = false;
  std::string reason_;
  shutdown_fn shutdown_ = nullptr;
  error_string_fn error_string_ = nullptr;
  handle_by_pci_fn handle_by_pci_ = nullptr;
  clock_fn clock_info_ = nullptr;
  clock_fn max_clock_info_ = nullptr;
  reasons_fn clock_event_reasons_ = nullptr;
  uint_fn pcie_gen_max_ = nullptr;
  uint_fn pcie_width_max_ = nullptr;
  uint_fn pcie_gen_current_ = nullptr;
  uint_fn pcie_width_current_ = nullptr;
  driver_version_fn driver_version_ = nullptr;
  uint_fn enforced_power_limit_ = nullptr;
  temperature_fn temperature_ = nullptr;
  ancestor_fn common_ancestor_ = nullptr;
  p2p_status_fn p2p_status_ = nullptr;
  nvlink_state_fn nvlink_state_ = nullptr;
  nvlink_remote_fn nvlink_remote_ = nullptr;
};

}  // namespace gpubench::detail
