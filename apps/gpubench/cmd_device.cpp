// `gpubench device`: what the GPU is, and the theoretical ceilings the floors are computed from.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include <chrono>
#include <utility>
#include <unistd.h>

#include "gpubench/ceilings.hpp"
#include "gpubench/ceilings_cache.hpp"
#include "gpubench/compute_peaks.hpp"
#include "gpubench/cuda.hpp"
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
  cmd->add_flag("--ceilings", args.ceilings,
                "Measure the device's ceilings (DRAM/L2 bandwidth, FP32/FP64 FMA and tensor peaks, PCIe pinned and "
                "pageable, launch latency; a few seconds), cache them per GPU UUID and print them beside the theoretical "
                "values. Later runs use them for floors and embed them in their profiles");
  cmd->add_flag("--refresh", args.refresh, "With --ceilings: measure again even if this GPU's ceilings are cached");
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
  fmt::print("  Theoretical ceilings (`gpubench device --ceilings` measures them):\n");
  fmt::print("    DRAM bandwidth     {}\n", format_si(c.dram_bytes_per_s, "B/s"));
  fmt::print("    PCIe per direction {}\n", c.pcie_bytes_per_s > 0 ? format_si(c.pcie_bytes_per_s, "B/s") : "n/a");
  if (c.pcie_duplex_bytes_per_s > 0 && c.pcie_duplex_bytes_per_s != c.pcie_bytes_per_s)
    fmt::print("    PCIe both ways     {} per direction\n", format_si(c.pcie_duplex_bytes_per_s, "B/s"));
  fmt::print("    FP32 FMA peak      {}\n", format_si(c.fp32_flops_per_s, "FLOP/s"));
  fmt::print("    FP64 FMA peak      {}\n", format_si(c.fp64_flops_per_s, "FLOP/s"));
  // Tensor-core peaks, dense with FP32 accumulation (lib/src/device_model/compute_peaks.cpp).
  for (const flop_kind k : kAllFlopKinds) {
    if (k == flop_kind::fp32 || k == flop_kind::fp64) continue;
    const double v = compute_peak(c, k);
    fmt::print("    {:<18} {}\n", fmt::format("{} tensor", to_string(k)),
               v > 0 ? format_si(v, k == flop_kind::int8 ? "OP/s" : "FLOP/s") : std::string("n/a"));
  }
}

/// Every pair of GPUs: peer access and the path between them (nothing on a one-GPU machine).
void print_peer_links(const std::vector<peer_link>& links) {
  if (links.empty()) return;
  fmt::print("Peer links (peer access from cudaDeviceCanAccessPeer; the path from NVML):\n");
  for (const auto& l : links) {
    fmt::print("  GPU {} <-> GPU {}\n", l.a, l.b);
    fmt::print("    peer access        {}\n", describe_access(l));
    fmt::print("    path               {}\n", describe_path(l));
    if (l.pcie_level && l.nvlink()) fmt::print("    PCIe between them  {}\n", pcie_level_text(*l.pcie_level));
    if (l.performance_rank) fmt::print("    CUDA P2P rank      {} (lower is faster)\n", *l.performance_rank);
  }
}

}  // namespace

std::string ratio_text(double value, double of) { return of > 0 ? format_percent(value / of) : std::string("—"); }

std::string value_text(const ceiling& c, double v) {
  if (v <= 0) return "—";
  return c.unit == "s" ? format_duration(v) : format_si(v, c.unit.c_str());
}

int show_ceilings(const device_args& args, int ordinal) {
  GPUBENCH_CUDA(cudaSetDevice(ordinal));
  const device_info d = query_device(ordinal);
  std::string problem;
  std::optional<ceilings> c = args.refresh ? std::nullopt : load_cached_ceilings(d, &problem);
  if (!problem.empty()) fmt::print(stderr, "gpubench: note: ignoring the ceilings cache: {}\n", problem);
  double took = 0;
  if (!c) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool tty = isatty(fileno(stderr)) != 0;
    c = measure_ceilings(d, [&](const std::string& step) {
      if (tty) fmt::print(stderr, "\r\x1b[2K  measuring {}…", step);
    });
    if (tty) fmt::print(stderr, "\r\x1b[2K");
    took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    store_cached_ceilings(d, *c);
  }
  if (args.json) {
    fmt::print("{}\n", to_json(*c).dump(2));
    return 0;
  }
  fmt::print("Ceilings of device {}: {} ({} {}; cache: {})\n", d.ordinal, d.name,
             took > 0 ? fmt::format("measured now in {:.1f} s", took) : "cached, measured", c->measured_at,
             (ceilings_cache_dir() / ("ceilings-" + d.uuid + ".json")).string());
  fmt::print("  {:<18} {:>14} {:>14} {:>9} {:>14} {:>9}\n", "ceiling", "measured", "theoretical", "of theor.",
             "reference", "of ref.");
  for (const auto& x : c->table)
    fmt::print("  {:<18} {:>14} {:>14} {:>9} {:>14} {:>9}\n", x.name, value_text(x, x.value), value_text(x, x.theoretical),
               ratio_text(x.value, x.theoretical), value_text(x, x.reference), ratio_text(x.value, x.reference));
  fmt::print("  how each was measured: `gpubench device --ceilings --json` (field \"method\")\n");
  return 0;
}

int run_device(const device_args& args) {
  const int count = device_count();
  if (count == 0) throw runtime_error(no_device_message());
  if (args.refresh && !args.ceilings) throw usage_error("--refresh goes with --ceilings");
  if (args.ceilings) return show_ceilings(args, args.device.value_or(0));
  std::vector<device_info> devices;
  if (args.device) devices.push_back(query_device(*args.device));
  else
    for (int i = 0; i < count; ++i) devices.push_back(query_device(i));
  // Links between every pair of GPUs (chapter 8); none with one GPU or with --device.
  const std::vector<peer_link> links = query_peer_links(devices);
  if (args.json) {
    // The same fields a profile's provenance.device carries, plus the ceilings derived from them.
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& d : devices) {
      const ceilings c = theoretical_ceilings(d);
      auto dj = to_json(d);
      dj["theoretical_ceilings"] = {{"dram_bytes_per_s", c.dram_bytes_per_s},
                                    {"pcie_bytes_per_s", c.pcie_bytes_per_s},
                                    {"fp32_flops_per_s", c.fp32_flops_per_s},
                                    {"fp64_flops_per_s", c.fp64_flops_per_s},
                                    {"tf32_flops_per_s", c.tf32_flops_per_s},
                                    {"fp16_flops_per_s", c.fp16_flops_per_s},
                                    {"bf16_flops_per_s", c.bf16_flops_per_s},
                                    {"fp8_flops_per_s", c.fp8_flops_per_s},
                                    {"fp64_tensor_flops_per_s", c.fp64_tensor_flops_per_s},
                                    {"int8_ops_per_s", c.int8_ops_per_s}};
      // Each link seen from this device ("device" is this one, "peer" the other).
      for (peer_link l : links) {
        if (l.b == d.ordinal) {
          std::swap(l.a, l.b);
          std::swap(l.access_ab, l.access_ba);
          std::swap(l.nvlink_active_a, l.nvlink_active_b);
        } else if (l.a != d.ordinal) {
          continue;
        }
        dj["peers"].push_back(to_json(l));
      }
      j.push_back(std::move(dj));
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  for (const auto& d : devices) print_device(d);
  print_peer_links(links);
  return 0;
}

}  // namespace gpubench::app
