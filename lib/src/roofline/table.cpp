// `--format table` for the roofline: the roofs, then where each point sits and what bounds it.
// Plain text with aligned columns, so it reads in a terminal and diffs cleanly.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/escape.hpp"
#include "gpubench/format.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench {

namespace {
// Intensity spans decades (0.02 to 1000 FLOP/B): three significant digits without an exponent.
std::string intensity_text(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v >= 99.95) return fmt::format("{:.0f}", v);
  if (v >= 9.995) return fmt::format("{:.1f}", v);
  if (v >= 0.9995) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}
}  // namespace

std::string roofline_table(const roofline_model& m) {
  // The title names the GPU and the files: shown, never obeyed (gpubench/escape.hpp).
  std::string out = terminal_text(m.title) + "\n\n";
  const double dram = m.memory.empty() ? 0 : m.memory[0].value;
  for (const roof& r : m.compute)
    out += fmt::format("  compute roof  {:<6} {:>14}   ridge vs {} at {} FLOP/B\n", r.name, format_si(r.value, "FLOP/s"),
                       m.memory.empty() ? "dram" : m.memory[0].name, intensity_text(ridge_point(r.value, dram)));
  for (const roof& r : m.memory) out += fmt::format("  memory roof   {:<6} {:>14}\n", r.name, format_si(r.value, "B/s"));
  // Say where the points come from: counters where the record has them, else the work model.
  std::size_t counted = 0, bytes_only = 0;
  for (const roof_point& p : m.points) {
    counted += p.source == point_source::counters;
    bytes_only += p.source == point_source::counted_bytes;
  }
  const std::size_t modelled = m.points.size() - counted - bytes_only;
  out += fmt::format("  points: {} from counters (counted FLOPs and DRAM bytes), {} from counted DRAM bytes with modelled\n"
                     "          FLOPs (no FLOPs counted), {} from the work model{}\n"
                     "  performance = FLOPs / median time; L2 FLOP/B = FLOPs / counted L2 bytes (hierarchical roofline)\n",
                     counted, bytes_only, modelled,
                     m.placement == points_mode::model ? " (--points model)" : modelled ? " (no counters: run --metrics)" : "");

  const bool show_model = counted + bytes_only > 0;
  std::size_t id_width = 2;
  for (const roof_point& p : m.points) id_width = std::max(id_width, p.id.size());
  out += fmt::format("\n{:<{}}  {:<13}  {:>10}  {:>9}{}  {:>14}  {:>12}  {:>6}  {:>7}\n", "id", id_width, "source",
                     "FLOP/B", "L2 FLOP/B", show_model ? fmt::format("  {:>12}", "model FLOP/B") : "", "achieved",
                     "DRAM B/s", "bound", "of roof");
  for (const roof_point& p : m.points) {
    const roof_bound b = bound_of(m, p);
    out += fmt::format("{:<{}}  {:<13}  {:>10}  {:>9}{}  {:>14}  {:>12}  {:>6}  {:>7}\n", p.id, id_width,
                       to_string(p.source), intensity_text(p.intensity),
                       p.l2_intensity > 0 ? intensity_text(p.l2_intensity) : "-",
                       show_model ? fmt::format("  {:>12}", intensity_text(p.model_intensity)) : "",
                       format_si(p.flops_per_s, "FLOP/s"), format_si(p.bytes_per_s, "B/s"), b.roof,
                       format_percent(b.fraction));
  }
  if (!m.skipped.empty()) {
    out += fmt::format("\nskipped ({}): not placeable on a roofline\n", m.skipped.size());
    for (const std::string& s : m.skipped) out += "  " + terminal_text(s) + "\n";
  }
  return out;
}

}  // namespace gpubench
