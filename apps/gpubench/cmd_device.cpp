// `gpubench device`: what the GPU is, and the theoretical ceilings the floors are computed from.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpubench/device_query.hpp"
#include "gpubench/error.hpp"
#include "gpubench/format.hpp"
#include "gpubench/profile.hpp"

namespace gpubench::app {

CLI::App* add_device(CLI::App& app, device_args& args) {
  auto* cmd = app.add_subcommand("device", "Describe the GPU(s): name, compute capability, SMs, clocks, memory, "
                                           "L2, PCIe link, driver/runtime, ECC, and the theoretical ceilings");
  cmd->add_option("--device", args.device, "Only this device ordinal (default: all)")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args.json, "Machine-readable output");
  cmd->footer(kExitCodeFooter);
  return cmd;
}

namespace {

std::string opt_text(const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("n/a (no NVML)"); }

void print_device(const device_info& d) {
  const ceilings c = theoretical_ceilings(d);
  fmt::print("Device {}: {}\n", d.ordinal, d.name);
  fmt::print("  UUID                 {}\n  PCI bus id           {}\n", d.uuid, d.pci_bus_id);
  fmt::print("  Compute capability   {}.{}\n  SMs                  {}\n", d.cc_major, d.cc_minor, d.sm_count);
  fmt::print("  SM clock (max)       {:.0f} MHz\n", d.sm_clock_max_mhz);
  fmt::print("  Memory               {} · {}-bit bus · {:.0f} MHz clock\n", format_si(static_cast<double>(d.memory_bytes), "B"),
             d.memory_bus_width_bits, d.memory_clock_mhz);
  fmt::print("  L2 cache             {}\n", format_si(static_cast<double>(d.l2_bytes), "B"));
  fmt::print("  Shared memory / SM   {}\n", format_si(static_cast<double>(d.shared_per_sm_bytes), "B"));
  fmt::print("  PCIe link            gen {} x{} (max gen {} x{})\n", opt_text(d.pcie_gen_current),
             opt_text(d.pcie_width_current), opt_text(d.pcie_gen_max), opt_text(d.pcie_width_max));
  fmt::print("  ECC                  {}\n", d.ecc_enabled ? "enabled" : "disabled");
  fmt::print("  Driver               {} (CUDA {}.{})\n", d.driver_string.empty() ? "n/a" : d.driver_string,
             d.driver_version / 1000, d.driver_version % 1000 / 10);
  fmt::print("  Runtime              CUDA {}.{}\n", d.runtime_version / 1000, d.runtime_version % 1000 / 10);
  if (d.power_limit_w) fmt::print("  Power limit          {:.0f} W\n", *d.power_limit_w);
  fmt::print("  Theoretical ceilings (from the facts above; measured ones come with `device --ceilings`):\n");
  fmt::print("    DRAM bandwidth     {}\n", format_si(c.dram_bytes_per_s, "B/s"));
  fmt::print("    PCIe per direction {}\n", c.pcie_bytes_per_s > 0 ? format_si(c.pcie_bytes_per_s, "B/s") : "n/a");
  fmt::print("    FP32 FMA peak      {}\n", format_si(c.fp32_flops_per_s, "FLOP/s"));
  fmt::print("    FP64 FMA peak      {}\n", format_si(c.fp64_flops_per_s, "FLOP/s"));
}

}  // namespace

int run_device(const device_args& args) {
  const int count = device_count();
  if (count == 0) throw runtime_error(no_device_message());
  std::vector<device_info> devices;
  if (args.device) devices.push_back(query_device(*args.device));
  else
    for (int i = 0; i < count; ++i) devices.push_back(query_device(i));
  if (args.json) {
    // The same fields a profile's provenance.device carries, plus the ceilings derived from them.
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& d : devices) {
      const ceilings c = theoretical_ceilings(d);
      auto dj = to_json(d);
      dj["theoretical_ceilings"] = {{"dram_bytes_per_s", c.dram_bytes_per_s}, {"pcie_bytes_per_s", c.pcie_bytes_per_s},
                                    {"fp32_flops_per_s", c.fp32_flops_per_s}, {"fp64_flops_per_s", c.fp64_flops_per_s}};
      j.push_back(std::move(dj));
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  for (const auto& d : devices) print_device(d);
  return 0;
}

}  // namespace gpubench::app
