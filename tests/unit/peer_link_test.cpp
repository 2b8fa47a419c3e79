// Links between two GPUs without a GPU: the description `gpubench device` prints (pure), and the
// NVML wrapper's link queries against a fake libnvidia-ml (tests/fake/fake_nvml.cpp) with an
// NVSwitch fabric, direct NVLinks, and PCIe only; a missing NVML answers nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "device/nvml.hpp"
#include "device/peer_links.hpp"
#include "gpubench/peer_link.hpp"

namespace gpubench {
namespace {

using detail::nvml;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

peer_link hgx_pair() {  // two H200s of an HGX board, as NVML describes them
  peer_link l;
  l.a = 0;
  l.b = 1;
  l.access_ab = l.access_ba = true;
  l.nvml = true;
  l.pcie_level = nvml::topology_system;
  l.nvlink_p2p = true;
  l.nvlink_active_a = l.nvlink_active_b = 18;
  l.nvlink_link_bytes_per_s = nvlink_link_bytes_per_s(9, 0);
  return l;
}

TEST(PeerLink, NvSwitchPairUsesEveryLink) {
  const peer_link l = hgx_pair();
  EXPECT_TRUE(l.nvlink());
  EXPECT_TRUE(l.via_switch());
  EXPECT_EQ(l.links(), 18);
  EXPECT_DOUBLE_EQ(l.nvlink_bytes_per_s(), 450e9);  // NVLink 4: 18 x 25 GB/s per direction
  const std::string path = describe_path(l);
  EXPECT_TRUE(has(path, "NVLink through NVSwitch, 18 links")) << path;
  EXPECT_TRUE(has(path, "450 GB/s per direction")) << path;
  EXPECT_EQ(describe_access(l), "yes, both ways");
  const auto j = to_json(l);
  EXPECT_EQ(j.at("nvlink_links"), 18);
  EXPECT_EQ(j.at("nvlink_via_switch"), true);
  EXPECT_DOUBLE_EQ(j.at("nvlink_bytes_per_s_per_direction").get<double>(), 450e9);
  EXPECT_TRUE(has(j.at("pcie_common_ancestor").get<std::string>(), "SYS"));
}

TEST(PeerLink, DirectLinksCountOnlyThoseBetweenThePair) {
  peer_link l = hgx_pair();
  l.nvlink_direct = 4;
  l.nvlink_active_a = 12;  // other links go elsewhere
  l.nvlink_link_bytes_per_s = nvlink_link_bytes_per_s(8, 0);
  EXPECT_FALSE(l.via_switch());
  EXPECT_EQ(l.links(), 4);
  EXPECT_TRUE(has(describe_path(l), "NVLink direct, 4 links, 100 GB/s per direction")) << describe_path(l);
}

TEST(PeerLink, PcieAndNoAccessAndNoNvml) {
  peer_link l;
  l.a = 0;
  l.b = 1;
  l.access_ab = l.access_ba = true;
  l.nvml = true;
  l.pcie_level = nvml::topology_hostbridge;
  l.nvlink_p2p = false;
  EXPECT_FALSE(l.nvlink());
  EXPECT_EQ(l.nvlink_bytes_per_s(), 0);
  EXPECT_EQ(describe_path(l), "PCIe peer-to-peer, PHB (through a PCIe host bridge)");
  l.access_ab = l.access_ba = false;
  EXPECT_TRUE(has(describe_path(l), "no peer access")) << describe_path(l);
  EXPECT_EQ(describe_access(l), "no");
  l.access_ba = true;
  EXPECT_EQ(describe_access(l), "1 -> 0 only");
  l.nvml = false;
  l.pcie_level.reset();
  EXPECT_TRUE(has(describe_path(l), "path unknown without NVML")) << describe_path(l);
  EXPECT_EQ(to_json(l).at("nvml"), false);
}

TEST(PeerLink, PeerRateIsTheLinksTheCopyTakes) {
  // The per-direction rate floors use: NVLink's when the pair has it, PCIe's for peer-to-peer
  // over PCIe, nothing without peer access both ways.
  const double pcie = 63e9;
  EXPECT_DOUBLE_EQ(hgx_pair().peer_bytes_per_s(pcie), 450e9);
  peer_link l = hgx_pair();
  l.nvlink_p2p = false;
  l.nvlink_active_a = l.nvlink_active_b = 0;
  EXPECT_DOUBLE_EQ(l.peer_bytes_per_s(pcie), pcie);
  l.access_ba = false;
  EXPECT_EQ(l.peer_bytes_per_s(pcie), 0);
}

TEST(PeerLink, PerLinkRateByGeneration) {
  EXPECT_DOUBLE_EQ(nvlink_link_bytes_per_s(6, 0), 20e9);
  EXPECT_DOUBLE_EQ(nvlink_link_bytes_per_s(7, 0), 25e9);
  EXPECT_DOUBLE_EQ(nvlink_link_bytes_per_s(9, 0), 25e9);
  EXPECT_DOUBLE_EQ(nvlink_link_bytes_per_s(10, 0), 50e9);
  EXPECT_DOUBLE_EQ(nvlink_link_bytes_per_s(8, 9), 25e9);  // returns the generation's rate; NVML says if links exist
  EXPECT_DOUBLE_EQ(nvlink_link_bytes_per_s(6, 1), 0);     // consumer Pascal: no NVLink rate known
  EXPECT_EQ(pcie_level_text(10), "PIX (one PCIe switch)");
  EXPECT_EQ(pcie_level_text(77), "level 77");
}

TEST(PeerLink, ParsesBothBusIdForms) {
  const auto cuda = detail::parse_pci_bus_id("0000:2a:00.0");
  const auto nvml_form = detail::parse_pci_bus_id("00000000:2A:00.0");
  ASSERT_TRUE(cuda && nvml_form);
  EXPECT_EQ(*cuda, *nvml_form);
  EXPECT_EQ(cuda->bus, 0x2au);
  EXPECT_FALSE(detail::parse_pci_bus_id("not a bus id"));
  EXPECT_FALSE(detail::parse_pci_bus_id("0000:2a:00.0 junk"));
}

/// The NVML facts of GPUs 0 and 1 of the fake library in `topology`.
peer_link fake_facts(const char* topology) {
  setenv("FAKE_NVML_TOPOLOGY", topology, 1);
  const nvml nv(GPUBENCH_FAKE_NVML);
  EXPECT_TRUE(nv.available()) << nv.reason();
  const auto a = nv.device_by_pci_bus_id("0000:18:00.0");
  const auto b = nv.device_by_pci_bus_id("0000:2a:00.0");
  EXPECT_TRUE(a && b);
  peer_link l;
  l.access_ab = l.access_ba = true;
  l.nvlink_link_bytes_per_s = 25e9;
  if (a && b) detail::add_nvml_facts(nv, *a, *b, *detail::parse_pci_bus_id("0000:2a:00.0"), l);
  unsetenv("FAKE_NVML_TOPOLOGY");
  return l;
}

TEST(PeerLinkNvml, SwitchFabricFromTheFakeLibrary) {
  const peer_link l = fake_facts("switch");
  EXPECT_TRUE(l.nvml);
  EXPECT_EQ(l.pcie_level, nvml::topology_system);
  EXPECT_EQ(l.nvlink_p2p, true);
  EXPECT_EQ(l.nvlink_active_a, 18);
  EXPECT_EQ(l.nvlink_active_b, 18);
  EXPECT_EQ(l.nvlink_direct, 0);  // every far end is a switch (bus 0xa0 + link), not GPU 1
  EXPECT_TRUE(l.via_switch());
  EXPECT_DOUBLE_EQ(l.nvlink_bytes_per_s(), 450e9);
}

TEST(PeerLinkNvml, DirectLinksFromTheFakeLibrary) {
  const peer_link l = fake_facts("direct");
  EXPECT_EQ(l.nvlink_direct, 4);  // the remote PCI address read at the right offsets matches GPU 1
  EXPECT_EQ(l.nvlink_active_a, 4);
  EXPECT_FALSE(l.via_switch());
  EXPECT_TRUE(has(describe_path(l), "NVLink direct, 4 links")) << describe_path(l);
}

TEST(PeerLinkNvml, PcieOnlyFromTheFakeLibrary) {
  const peer_link l = fake_facts("pcie");
  EXPECT_EQ(l.nvlink_p2p, false);
  EXPECT_EQ(l.nvlink_active_a, 0);  // the state query fails: no NVLink, not an error
  EXPECT_FALSE(l.nvlink());
  EXPECT_EQ(describe_path(l), "PCIe peer-to-peer, PIX (one PCIe switch)");
}

TEST(PeerLinkNvml, MissingNvmlAnswersNothing) {
  const nvml nv("libgpubench-no-such-library.so.1");
  EXPECT_FALSE(nv.topology_common_ancestor(nullptr, nullptr));
  EXPECT_FALSE(nv.p2p_status(nullptr, nullptr, nvml::p2p_caps_nvlink));
  EXPECT_FALSE(nv.nvlink_active(nullptr, 0));
  EXPECT_FALSE(nv.nvlink_remote(nullptr, 0));
  peer_link l;
  detail::add_nvml_facts(nv, nullptr, nullptr, {}, l);
  EXPECT_FALSE(l.nvml);
  EXPECT_FALSE(l.pcie_level);
}

TEST(PeerLinkNvml, OutOfRangeLinksAreNotAsked) {
  setenv("FAKE_NVML_TOPOLOGY", "switch", 1);
  const nvml nv(GPUBENCH_FAKE_NVML);
  const auto a = nv.device_by_pci_bus_id("0000:18:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(nv.nvlink_active(*a, 17), true);
  EXPECT_FALSE(nv.nvlink_active(*a, nvml::max_nvlinks));
  EXPECT_FALSE(nv.nvlink_remote(*a, nvml::max_nvlinks));
  unsetenv("FAKE_NVML_TOPOLOGY");
}

}  // namespace
}  // namespace gpubench
