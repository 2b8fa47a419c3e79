// The description of a link between two GPUs (gpubench/peer_link.hpp). Pure, tested on the CPU.
#include "gpubench/peer_link.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpubench/format.hpp"

namespace gpubench {

int peer_link::links() const {
  if (nvlink_direct > 0) return nvlink_direct;
  if (!nvlink()) return 0;
  return std::min(nvlink_active_a, nvlink_active_b);
}

double peer_link::nvlink_bytes_per_s() const { return links() * nvlink_link_bytes_per_s; }

double peer_link::peer_bytes_per_s(double pcie_bytes_per_s) const {
  if (nvlink()) return nvlink_bytes_per_s();
  return access_ab && access_ba ? pcie_bytes_per_s : 0.0;
}

double nvlink_link_bytes_per_s(int cc_major, int cc_minor) {
  if (cc_major == 6 && cc_minor == 0) return 20e9;     // P100: NVLink 1
  if (cc_major >= 7 && cc_major <= 9) return 25e9;     // V100, A100, H100/H200: NVLink 2, 3, 4
  if (cc_major == 10) return 50e9;                      // B200: NVLink 5
  return 0;                                             // consumer parts, or too new to know
}

std::string pcie_level_text(int level) {
  switch (level) {
    case 0: return "the same board";
    case 10: return "PIX (one PCIe switch)";
    case 20: return "PXB (several PCIe switches)";
    case 30: return "PHB (through a PCIe host bridge)";
    case 40: return "NODE (host bridges of one NUMA node)";
    case 50: return "SYS (across CPU sockets)";
  }
  return fmt::format("level {}", level);
}

std::string describe_path(const peer_link& l) {
  const std::string pcie = l.pcie_level ? pcie_level_text(*l.pcie_level) : std::string();
  if (l.nvlink()) {
    std::string s = fmt::format("NVLink {}", l.via_switch() ? "through NVSwitch" : "direct");
    if (l.links() > 0) s += fmt::format(", {} link{}", l.links(), l.links() == 1 ? "" : "s");
    if (l.nvlink_bytes_per_s() > 0)
      s += fmt::format(", {} per direction (theoretical: {} x {})", format_si(l.nvlink_bytes_per_s(), "B/s"),
                       l.links(), format_si(l.nvlink_link_bytes_per_s, "B/s"));
    return s;
  }
  if (!l.nvml) {
    const std::string how = l.access_ab || l.access_ba ? "peer access (path unknown without NVML)"
                                                         : "no peer access: copies between them go through host memory";
    return how;
  }
  if (l.access_ab || l.access_ba) return "PCIe peer-to-peer" + (pcie.empty() ? std::string() : ", " + pcie);
  return "no peer access: copies go through host memory" + (pcie.empty() ? std::string() : "; PCIe " + pcie);
}

std::string describe_access(const peer_link& l) {
  if (l.access_ab && l.access_ba) return "yes, both ways";
  if (l.access_ab) return fmt::format("{} -> {} only", l.a, l.b);
  if (l.access_ba) return fmt::format("{} -> {} only", l.b, l.a);
  return "no";
}

nlohmann::ordered_json to_json(const peer_link& l) {
  nlohmann::ordered_json j{{"device", l.a}, {"peer", l.b}, {"can_access_peer", l.access_ab},
                           {"peer_can_access", l.access_ba}};
  if (l.performance_rank) j["performance_rank"] = *l.performance_rank;
  if (l.native_atomics) j["native_atomics"] = *l.native_atomics;
  j["path"] = describe_path(l);
  j["nvlink"] = l.nvlink();
  if (l.nvlink()) {
    j["nvlink_via_switch"] = l.via_switch();
    j["nvlink_links"] = l.links();
    if (l.nvlink_bytes_per_s() > 0) j["nvlink_bytes_per_s_per_direction"] = l.nvlink_bytes_per_s();
  }
  if (l.pcie_level) j["pcie_common_ancestor"] = pcie_level_text(*l.pcie_level);
  j["nvml"] = l.nvml;
  return j;
}

}  // namespace gpubench
