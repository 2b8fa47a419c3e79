// Links between the GPUs of this machine: peer access from CUDA, the path from NVML.
#include "device/peer_links.hpp"

#include <algorithm>
#include <cstdio>

#include <cuda_runtime_api.h>

#include "gpubench/cuda.hpp"
#include "gpubench/device_query.hpp"

namespace gpubench {

namespace detail {

std::optional<nvml::pci_address> parse_pci_bus_id(const std::string& id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  if (std::sscanf(id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) != 4) return std::nullopt;
  return nvml::pci_address{domain, bus, device};
}

namespace {
int active_links(const nvml& nv, nvml::device_handle d) {
  int n = 0;
  for (unsigned link = 0; link < nvml::max_nvlinks; ++link) n += nv.nvlink_active(d, link).value_or(false) ? 1 : 0;
  return n;
}
}  // namespace

void add_nvml_facts(const nvml& nv, nvml::device_handle a, nvml::device_handle b, const nvml::pci_address& b_address,
                    peer_link& out) {
  if (!nv.available() || a == nullptr || b == nullptr) return;
  out.nvml = true;
  out.pcie_level = nv.topology_common_ancestor(a, b);
  if (const auto st = nv.p2p_status(a, b, nvml::p2p_caps_nvlink)) out.nvlink_p2p = *st == nvml::p2p_status_ok;
  out.nvlink_active_a = active_links(nv, a);
  out.nvlink_active_b = active_links(nv, b);
  out.nvlink_direct = 0;
  for (unsigned link = 0; link < nvml::max_nvlinks; ++link) {
    if (!nv.nvlink_active(a, link).value_or(false)) continue;
    if (const auto far = nv.nvlink_remote(a, link); far && *far == b_address) ++out.nvlink_direct;
  }
}

}  // namespace detail

std::vector<peer_link> query_peer_links(const std::vector<device_info>& devices) {
  std::vector<peer_link> out;
  if (devices.size() < 2) return out;
  const detail::nvml nv;
  for (std::size_t i = 0; i < devices.size(); ++i)
    for (std::size_t j = i + 1; j < devices.size(); ++j) {
      const device_info& a = devices[i];
      const device_info& b = devices[j];
      peer_link l;
      l.a = a.ordinal;
      l.b = b.ordinal;
      int can = 0;
      GPUBENCH_CUDA(cudaDeviceCanAccessPeer(&can, a.ordinal, b.ordinal));
      l.access_ab = can != 0;
      GPUBENCH_CUDA(cudaDeviceCanAccessPeer(&can, b.ordinal, a.ordinal));
      l.access_ba = can != 0;
      int value = 0;
      if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, a.ordinal, b.ordinal) == cudaSuccess)
        l.performance_rank = value;
      else
        cudaGetLastError();
      if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, a.ordinal, b.ordinal) == cudaSuccess)
        l.native_atomics = value != 0;
      else
        cudaGetLastError();
      // The slower generation of the two sets the per-link rate (they are the same GPU in practice).
      l.nvlink_link_bytes_per_s = std::min(nvlink_link_bytes_per_s(a.cc_major, a.cc_minor),
                                           nvlink_link_bytes_per_s(b.cc_major, b.cc_minor));
      const auto ha = nv.device_by_pci_bus_id(a.pci_bus_id);
      const auto hb = nv.device_by_pci_bus_id(b.pci_bus_id);
      const auto b_address = detail::parse_pci_bus_id(b.pci_bus_id);
      if (ha && hb && b_address) detail::add_nvml_facts(nv, *ha, *hb, *b_address, l);
      out.push_back(l);
    }
  return out;
}

}  // namespace gpubench
