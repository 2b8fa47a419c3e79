// `gpubench metrics --list`: the named metric sets for `run --metrics=SET`, each metric checked
// against a chip (the GPU's, or --chip offline through the CUPTI host API) with its pass count.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "gpubench/cupti.hpp"
#include "gpubench/error.hpp"
#include "gpubench/metrics.hpp"

namespace gpubench::app {

CLI::App* add_metrics(CLI::App& app, metrics_args& args) {
  auto* cmd = app.add_subcommand("metrics", "List the hardware-metric sets for `run --metrics=SET` (works offline "
                                            "with --chip)");
  cmd->add_flag("--list", args.list, "List the sets and their CUPTI metrics (the default action)");
  cmd->add_flag("--json", args.json, "Machine-readable output");
  cmd->add_option("--chip", args.chip,
                  "Check every metric against this chip's CUPTI tables and count the passes, without a GPU "
                  "(e.g. GH100, GA100, AD102)");
  cmd->add_option("--device", args.device, "Check against this device's chip (default: device 0 if there is one)")
      ->check(CLI::NonNegativeNumber);
  cmd->footer(kExitCodeFooter);
  return cmd;
}

int run_metrics(const metrics_args& args) {
  std::string chip = args.chip, why;
  if (chip.empty()) {
    if (auto c = device_chip_name(args.device.value_or(0), &why)) chip = *c;
    else if (args.device) throw runtime_error(fmt::format("--device {}: {}", *args.device, why));
  }
  if (!args.chip.empty()) {
    // The user's --chip is input they can fix (exit 2); a CUPTI that lists no chips at all is ours (exit 1, below).
    const auto chips = metric_catalog::supported_chips();
    if (!chips.empty() && std::find(chips.begin(), chips.end(), args.chip) == chips.end())
      throw usage_error(fmt::format("--chip {}: the CUPTI in this build has no metric tables for it; it knows: {}",
                                    args.chip, fmt::join(chips, ", ")));
  }
  std::optional<metric_catalog> catalog;
  if (!chip.empty()) catalog.emplace(chip);  // throws (exit 1) when CUPTI's host API fails

  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& set : metric_sets()) {
    std::vector<std::string> present;
    nlohmann::ordered_json metrics = nlohmann::ordered_json::array();
    for (const auto& m : set.metrics) {
      nlohmann::ordered_json mj{{"name", m}, {"optional", is_optional_metric(m)}};
      if (catalog) {
        const auto p = catalog->describe(m);
        mj["available"] = p.has_value();
        if (p) {
          present.push_back(m);
          mj["unit"] = p->unit;
          mj["description"] = p->description;
        }
      }
      metrics.push_back(std::move(mj));
    }
    nlohmann::ordered_json sj{{"name", set.name}, {"description", set.description}};
    if (catalog) sj["passes"] = present.empty() ? 0 : catalog->passes(present);
    sj["metrics"] = std::move(metrics);
    j.push_back(std::move(sj));
  }

  if (args.json) {
    nlohmann::ordered_json top{{"chip", chip.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(chip)},
                               {"sets", std::move(j)}};
    fmt::print("{}\n", top.dump(2));
    return 0;
  }
  if (catalog) fmt::print("Metric sets, checked against {} (CUPTI host API):\n", chip);
  else fmt::print("Metric sets ({}; pass --chip GH100 to check the names and count passes offline):\n", why);
  for (const auto& s : j) {
    fmt::print("\n  {:<10} {}\n", s["name"].get<std::string>(), s["description"].get<std::string>());
    if (s.contains("passes")) fmt::print("             {} pass(es) per variant on {}\n", s["passes"].get<int>(), chip);
    for (const auto& m : s["metrics"]) {
      std::string note;
      if (m.contains("available") && !m["available"].get<bool>())
        note = m["optional"].get<bool>() ? "  (not on this chip; skipped quietly)" : "  (NOT on this chip)";
      else if (m.contains("unit")) note = "  [" + m["unit"].get<std::string>() + "]";
      fmt::print("      {}{}\n", m["name"].get<std::string>(), note);
    }
  }
  fmt::print("\nUse: gpubench run --chapter N --metrics[=SET[,SET|RAW...]]; RAW is any CUPTI metric name with "
             "rollup, e.g. dram__bytes_read.sum\n");
  return 0;
}

}  // namespace gpubench::app
