// Console view of a record's counters, e.g.
//   Counters (GH100, 13 passes, 0.42 s): DRAM 1.07 GB (read 537 MB · write 537 MB) · 2.51 TB/s
//                            0 FLOP · AI 0 FLOP/B · GPU time 412.3 µs
//                            SM 9.1% · memory 91.3% of peak · occupancy 84.0% · hit L1 0.0% L2 49.9% · ld/st eff. 100%/100%
#include "report/console_metrics.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/format.hpp"

namespace gpubench::detail {
namespace {

const double* find(const std::map<std::string, double>& d, const char* key) {
  const auto it = d.find(key);
  return it == d.end() ? nullptr : &it->second;
}

std::string pct(double v) { return fmt::format("{:.1f}%", v); }

}  // namespace

std::vector<std::string> metrics_lines(const metric_result& m) {
  const auto& d = m.derived;
  std::vector<std::string> lines;
  std::vector<std::string> traffic, compute, use;
  if (const double* b = find(d, "dram_bytes")) {
    std::string t = "DRAM " + format_si(*b, "B");
    if (const double* r = find(d, "dram_bytes_read"))
      if (const double* w = find(d, "dram_bytes_write"))
        t += fmt::format(" (read {} · write {})", format_si(*r, "B"), format_si(*w, "B"));
    traffic.push_back(t);
  }
  if (const double* bps = find(d, "dram_bytes_per_s")) traffic.push_back(format_si(*bps, "B/s"));
  if (const double* l2 = find(d, "l2_bytes")) traffic.push_back("L2 " + format_si(*l2, "B"));
  if (const double* l1 = find(d, "l1_bytes")) traffic.push_back("L1 " + format_si(*l1, "B"));

  if (const double* f = find(d, "flops")) {
    std::string t = format_si(*f, "FLOP");
    std::vector<std::string> parts;
    for (const auto& [key, label] : {std::pair{"flops_fp32", "fp32"}, std::pair{"flops_fp64", "fp64"},
                                     std::pair{"flops_fp16", "fp16"}, std::pair{"flops_tensor", "tensor"}})
      if (const double* v = find(d, key); v && *v > 0) parts.push_back(fmt::format("{} {}", label, format_si(*v, "")));
    if (parts.size() > 1 || (parts.size() == 1 && *f > 0)) t += " (" + fmt::format("{}", fmt::join(parts, " · ")) + ")";
    compute.push_back(t);
  }
  if (const double* fps = find(d, "flops_per_s"); fps && *fps > 0) compute.push_back(format_si(*fps, "FLOP/s"));
  if (const double* ai = find(d, "arithmetic_intensity")) compute.push_back(fmt::format("AI {:.3g} FLOP/B", *ai));
  if (const double* t = find(d, "duration_s")) compute.push_back("GPU time " + format_duration(*t));

  if (const double* v = find(d, "sm_throughput_pct")) use.push_back("SM " + pct(*v));
  if (const double* v = find(d, "memory_throughput_pct")) use.push_back("memory " + pct(*v) + " of peak");
  if (const double* v = find(d, "achieved_occupancy_pct")) use.push_back("occupancy " + pct(*v));
  const double* l1 = find(d, "l1_hit_rate_pct");
  const double* l2 = find(d, "l2_hit_rate_pct");
  if (l1 || l2)
    use.push_back(fmt::format("hit{}{}", l1 ? " L1 " + pct(*l1) : "", l2 ? " L2 " + pct(*l2) : ""));
  const double* ld = find(d, "global_load_efficiency_pct");
  const double* st = find(d, "global_store_efficiency_pct");
  if (ld || st)
    use.push_back(fmt::format("ld/st eff. {}/{}", ld ? pct(*ld) : "-", st ? pct(*st) : "-"));

  for (auto* group : {&traffic, &compute, &use})
    if (!group->empty()) lines.push_back(fmt::format("{}", fmt::join(*group, " · ")));
  return lines;
}

}  // namespace gpubench::detail
