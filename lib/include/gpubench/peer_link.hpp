#pragma once
/// How two GPUs of one machine reach each other: peer access (CUDA) and the path (NVML: NVLink,
/// through an NVSwitch or direct, or the PCIe tree). Plain data plus its description, so the
/// console and JSON forms are tested on the CPU; device_query.hpp gathers it on a GPU machine.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench {

struct peer_link {
  int a = 0, b = 0;                          ///< CUDA device ordinals
  bool access_ab = false, access_ba = false;  ///< cudaDeviceCanAccessPeer(a -> b), (b -> a)
  std::optional<int> performance_rank;       ///< cudaDevP2PAttrPerformanceRank a -> b (lower is faster)
  std::optional<bool> native_atomics;        ///< cudaDevP2PAttrNativeAtomicSupported a -> b
  bool nvml = false;                         ///< whether the NVML facts below could be asked for
  std::optional<int> pcie_level;             ///< nvmlGpuTopologyLevel_t: where the PCIe paths meet
  std::optional<bool> nvlink_p2p;            ///< nvmlDeviceGetP2PStatus(NVLINK) says OK
  int nvlink_direct = 0;                     ///< active links of `a` whose far end is `b`
  int nvlink_active_a = 0, nvlink_active_b = 0;  ///< active NVLinks of each GPU (any far end)
  double nvlink_link_bytes_per_s = 0;        ///< per link and direction, from the GPUs' generation; 0 = unknown

  /// True when the pair talks over NVLink (NVML says so, or a link of `a` ends at `b`).
  [[nodiscard]] bool nvlink() const { return nvlink_direct > 0 || nvlink_p2p.value_or(false); }
  /// NVLink without a direct link: every link goes to NVSwitches (an HGX board).
  [[nodiscard]] bool via_switch() const { return nvlink() && nvlink_direct == 0; }
  /// The links the pair can use: the direct ones, or through switches the fewer of the two GPUs'.
  [[nodiscard]] int links() const;
  /// Theoretical bytes/s per direction over NVLink (links x per-link rate); 0 when unknown or none.
  [[nodiscard]] double nvlink_bytes_per_s() const;
  /// Theoretical bytes/s per direction of the path a peer copy takes: NVLink's when the pair uses
  /// NVLink, else `pcie_bytes_per_s` (the GPUs' PCIe rate) when peer access works both ways over
  /// PCIe; 0 otherwise (no peer access, or NVLink of unknown rate).
  [[nodiscard]] double peer_bytes_per_s(double pcie_bytes_per_s) const;
};

/// NVLink bytes/s per link and direction by compute capability: 20 GB/s (Pascal), 25 GB/s
/// (Volta, Ampere, Hopper: NVLink 2-4), 50 GB/s (Blackwell, NVLink 5); 0 when unknown.
double nvlink_link_bytes_per_s(int cc_major, int cc_minor);

/// "PIX (one PCIe switch)", "SYS (across CPU sockets)", ... as nvidia-smi topo -m names them.
std::string pcie_level_text(int level);

/// One line: the path and what it allows, e.g. "NVLink through NVSwitch, 18 links, 450 GB/s per
/// direction (theoretical)", or "PCIe peer-to-peer, PHB (through a host bridge)".
std::string describe_path(const peer_link& l);
/// "yes, both ways" / "0 -> 1 only" / "no".
std::string describe_access(const peer_link& l);

nlohmann::ordered_json to_json(const peer_link& l);

}  // namespace gpubench
