// The NVML wrapper without a GPU: the slowdown bitmask, and that a missing or unusable library
// leaves an object that answers nothing instead of crashing.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "device/nvml.hpp"

namespace gpubench::detail {
namespace {

void expect_every_query_empty(const nvml& n) {
  EXPECT_FALSE(n.device_by_pci_bus_id("0000:01:00.0").has_value());
  EXPECT_FALSE(n.driver_version().has_value());
  // A null handle is what a caller holds when the handle lookup failed; it must be harmless.
  EXPECT_FALSE(n.sm_clock_mhz(nullptr).has_value());
  EXPECT_FALSE(n.sm_clock_max_mhz(nullptr).has_value());
  EXPECT_FALSE(n.clock_event_reasons(nullptr).has_value());
  EXPECT_FALSE(n.pcie_gen_max(nullptr).has_value());
  EXPECT_FALSE(n.pcie_width_max(nullptr).has_value());
  EXPECT_FALSE(n.pcie_gen_current(nullptr).has_value());
  EXPECT_FALSE(n.pcie_width_current(nullptr).has_value());
  EXPECT_FALSE(n.power_limit_w(nullptr).has_value());
  EXPECT_FALSE(n.temperature_c(nullptr).has_value());
}

TEST(nvml, slowdown_reasons) {
  EXPECT_TRUE(nvml::is_slowdown(0x8));   // HW slowdown
  EXPECT_TRUE(nvml::is_slowdown(0x20));  // SW thermal
  EXPECT_TRUE(nvml::is_slowdown(0x40));  // HW thermal
  EXPECT_TRUE(nvml::is_slowdown(0x80));  // HW power brake
  EXPECT_TRUE(nvml::is_slowdown(0x4 | 0x40));
  EXPECT_TRUE(nvml::is_slowdown(0x1 | 0x2 | 0x4 | 0x80));
}

TEST(nvml, normal_reasons_are_not_slowdowns) {
  EXPECT_FALSE(nvml::is_slowdown(0x0));
  EXPECT_FALSE(nvml::is_slowdown(0x1));  // idle
  EXPECT_FALSE(nvml::is_slowdown(0x2));  // application clocks setting
  EXPECT_FALSE(nvml::is_slowdown(0x4));  // SW power cap: a loaded GPU's normal ceiling
  EXPECT_FALSE(nvml::is_slowdown(0x10));   // sync boost
  EXPECT_FALSE(nvml::is_slowdown(0x100));  // display clock setting
  EXPECT_FALSE(nvml::is_slowdown(0x1 | 0x2 | 0x4 | 0x10 | 0x100));
}

TEST(nvml, missing_library_is_unavailable) {
  const nvml n("libgpubench-no-such-library.so.1");
  EXPECT_FALSE(n.available());
  EXPECT_NE(n.reason().find("libgpubench-no-such-library.so.1"), std::string::npos) << n.reason();
  expect_every_query_empty(n);
}

TEST(nvml, library_without_nvml_is_unavailable) {
  // libm loads fine but exports no nvmlInit_v2: the "wrong library" path.
  const nvml n("libm.so.6");
  EXPECT_FALSE(n.available());
  EXPECT_NE(n.reason().find("nvmlInit_v2"), std::string::npos) << n.reason();
  expect_every_query_empty(n);
}

TEST(nvml, default_library_never_crashes) {
  const nvml n;
  if (!n.available()) {
    // A machine without the driver (CI, this project's build host).
    EXPECT_FALSE(n.reason().empty());
    expect_every_query_empty(n);
  } else {
    // A GPU machine: an unknown bus id and null handles still answer nothing.
    EXPECT_TRUE(n.reason().empty());
    EXPECT_FALSE(n.device_by_pci_bus_id("not-a-bus-id").has_value());
    EXPECT_FALSE(n.sm_clock_mhz(nullptr).has_value());
    EXPECT_FALSE(n.clock_event_reasons(nullptr).has_value());
  }
}

TEST(nvml, objects_nest) {
  // nvmlInit/nvmlShutdown are reference counted, and device_query makes its own object while a
  // caller may hold another; two at once, destroyed in either order, must be fine.
  auto outer = std::make_unique<nvml>();
  {
    const nvml inner;
    EXPECT_EQ(inner.available(), outer->available());
  }
  outer.reset();
  SUCCEED();
}

}  // namespace
}  // namespace gpubench::detail
