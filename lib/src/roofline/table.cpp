// `--format table` for the roofline: the roofs, then where each point sits, which roof bounds it
// and how close it gets. Plain text with aligned columns wrapped to a width, so it reads in a
// terminal and diffs cleanly.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "gpubench/escape.hpp"
#include "gpubench/format.hpp"
#include "gpubench/record.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/text_width.hpp"

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

void add_wrapped(std::string& out, std::string_view lead, std::string_view text, std::size_t width) {
  out += wrap_with_lead(lead, text, width);
}

// Ids take what the numbers leave, or lines of their own when that is fewer columns than this.
constexpr std::size_t kMinId = 24;
}  // namespace

std::string roofline_table(const roofline_model& m, std::size_t width) {
  width = std::max(width, kMinConsoleWidth);
  std::string out;
  // The title names the GPU and the files: shown, never obeyed (gpubench/escape.hpp).
  add_wrapped(out, "", terminal_text(m.title), width);
  out += "\n";
  const double dram = m.memory.empty() ? 0 : m.memory[0].value;
  const std::string memory0 = m.memory.empty() ? "dram" : m.memory[0].name;
  std::size_t name_w = 4;
  for (const roof& r : m.compute) name_w = std::max(name_w, r.name.size());
  for (const roof& r : m.memory) name_w = std::max(name_w, r.name.size());
  add_wrapped(out, "", "compute roofs (each point is judged against its own precision's):", width);
  for (const roof& r : m.compute)
    add_wrapped(out, "  ",
                fmt::format("{:<{}}  {:>12}  {:<11}  ridge vs {} at {} FLOP/B", r.name, name_w,
                            format_si(r.value, "FLOP/s"), r.source.empty() ? m.ceilings_source : r.source, memory0,
                            intensity_text(ridge_point(r.value, dram))),
                width);
  add_wrapped(out, "", "memory roofs:", width);
  for (const roof& r : m.memory)
    add_wrapped(out, "  ", fmt::format("{:<{}}  {:>12}", r.name, name_w, format_si(r.value, "B/s")), width);

  // Say where the points come from: counters where the record has them, else the work model.
  std::size_t counted = 0, bytes_only = 0, with_l2 = 0;
  for (const roof_point& p : m.points) {
    counted += p.source == point_source::counters;
    bytes_only += p.source == point_source::counted_bytes;
    with_l2 += p.l2_intensity > 0;
  }
  const std::size_t modelled = m.points.size() - counted - bytes_only;
  const std::pair<std::size_t, std::string> origins[] = {
      {counted, "from counters (counted FLOPs and DRAM bytes)"},
      {bytes_only, "from counted DRAM bytes with modelled FLOPs (no FLOPs counted)"},
      {modelled, "from the work model" + std::string(m.placement == points_mode::model ? " (--points model)"
                                                     : modelled                        ? " (no counters: run --metrics)"
                                                                                       : "")}};
  bool first = true;
  for (const auto& [n, what] : origins) {
    if (n == 0) continue;
    add_wrapped(out, first ? "points: " : "        ", fmt::format("{} {}", n, what), width);
    first = false;
  }
  add_wrapped(out, "  ", "achieved = FLOPs / median time", width);
  if (with_l2 > 0) add_wrapped(out, "  ", "L2 FLOP/B = FLOPs / counted L2 bytes (hierarchical roofline)", width);
  if (counted + bytes_only > 0)
    add_wrapped(out, "  ", "model FLOP/B = the work model's intensity, beside the counted one", width);

  // The columns a point needs: source, L2 and model intensity only where some point has them.
  const bool show_source = counted + bytes_only > 0, show_model = show_source, show_l2 = with_l2 > 0;
  struct row {
    std::string id;
    std::vector<std::string> cells;
  };
  std::vector<std::string> header;
  std::vector<text_column> cols;
  std::vector<std::size_t> caps;  // a cell longer than its column's cap wraps in it
  const auto add_column = [&](const std::string& name, bool right, std::size_t min, std::size_t cap = 0) {
    header.push_back(name);
    cols.push_back({min, right, ""});
    caps.push_back(cap);
  };
  if (show_source) add_column("source", false, 8, 8);  // "counted bytes" takes two lines
  add_column("FLOP/B", true, 6);
  if (show_l2) add_column("L2 FLOP/B", true, 6);
  if (show_model) add_column("model FLOP/B", true, 6);
  add_column("achieved", true, 8);
  add_column("DRAM B/s", true, 8);
  add_column("bound", true, 6);
  add_column("of roof", true, 7);

  std::vector<row> rows;
  std::map<std::string, std::size_t> above;  // roof -> points above it
  std::size_t longest_id = 2;
  for (const roof_point& p : m.points) {
    const roof_bound b = bound_of(m, p);
    row r{p.id, {}};
    if (show_source) r.cells.push_back(to_string(p.source));
    r.cells.push_back(intensity_text(p.intensity));
    if (show_l2) r.cells.push_back(p.l2_intensity > 0 ? intensity_text(p.l2_intensity) : "-");
    if (show_model) r.cells.push_back(intensity_text(p.model_intensity));
    r.cells.push_back(format_si(p.flops_per_s, "FLOP/s"));
    r.cells.push_back(format_si(p.bytes_per_s, "B/s"));
    r.cells.push_back(b.roof);
    r.cells.push_back(format_percent(b.fraction) + (b.above_roof() ? "*" : ""));
    if (b.above_roof()) ++above[b.roof];
    longest_id = std::max(longest_id, display_width(p.id));
    rows.push_back(std::move(r));
  }
  // Each column as wide as its longest value, headers wrapping in it ("model" over "FLOP/B").
  std::size_t fixed = 0;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    for (const row& r : rows) cols[i].width = std::max(cols[i].width, display_width(r.cells[i]));
    if (caps[i] > 0) cols[i].width = std::min(cols[i].width, caps[i]);
    const std::size_t header_w = display_width(header[i]);
    if (header_w <= 8) cols[i].width = std::max(cols[i].width, header_w);  // short headers stay whole
    fixed += cols[i].width + 2;
  }
  out += "\n";
  if (width >= fixed + kMinId) {
    // The id column takes what the numbers leave; a longer id wraps in it.
    std::vector<text_column> all{{std::min(longest_id, width - fixed), false, "/[,:"}};
    all.insert(all.end(), cols.begin(), cols.end());
    std::vector<std::string> head{"id"};
    head.insert(head.end(), header.begin(), header.end());
    for (const std::string& line : table_row("", all, head)) out += line + "\n";
    for (const row& r : rows) {
      std::vector<std::string> cells{r.id};
      cells.insert(cells.end(), r.cells.begin(), r.cells.end());
      for (const std::string& line : table_row("", all, cells)) out += line + "\n";
    }
  } else {
    // Too narrow for an id column beside the numbers: each id on its own line(s), its numbers
    // indented under it.
    out += "id\n";
    for (const std::string& line : table_row("  ", cols, header)) out += line + "\n";
    for (const row& r : rows) {
      out += wrap_with_lead("", r.id, width, "/[,:");
      for (const std::string& line : table_row("  ", cols, r.cells)) out += line + "\n";
    }
  }
  if (!above.empty()) {
    std::size_t total = 0;
    for (const auto& [roof_name, n] : above) total += n;
    out += "\n";
    add_wrapped(out, "", fmt::format("* above its roof ({} point{}):", total, total == 1 ? "" : "s"), width);
    for (const auto& [roof_name, n] : above) add_wrapped(out, "  ", above_roof_reason(roof_name), width);
  }
  if (!m.skipped.empty()) {
    out += "\n";
    add_wrapped(out, "", fmt::format("skipped ({}): not placeable on a roofline", m.skipped.size()), width);
    for (const std::string& s : m.skipped) out += wrap_with_lead("  ", terminal_text(s), width, "/[,");
  }
  return out;
}

}  // namespace gpubench
