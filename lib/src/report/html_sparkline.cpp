// A compared record's trend as a sparkline: its median in every run the comparison drew on (the
// base, its --history runs, the new run), in the order they started, on a log scale fitted to
// them, so that a drift across runs shows beside the verdict of the last step. Hand-written inline
// SVG (a polyline and dots, no text): the page still loads nothing.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "report/html_escape.hpp"
#include "report/html_parts.hpp"

namespace gpubench::detail {

std::string html_sparkline(const compared_series& t, const char* tone) {
  std::vector<std::size_t> known;
  for (std::size_t i = 0; i < t.medians.size(); ++i)
    if (std::isfinite(t.medians[i]) && t.medians[i] > 0) known.push_back(i);
  if (known.size() < 2) return "";
  double lo = t.medians[known[0]], hi = lo;
  for (std::size_t i : known) lo = std::min(lo, t.medians[i]), hi = std::max(hi, t.medians[i]);
  // At least ±2% of room, so that runs within noise of each other draw a flat line, not a zigzag.
  const double mid = std::sqrt(lo * hi), half = std::max(std::log(hi / lo) / 2, std::log(1.02));
  constexpr double kW = 96, kH = 24, kPad = 4;
  const auto x = [&](std::size_t i) {
    return kPad + (kW - 2 * kPad) * static_cast<double>(i) /
                      static_cast<double>(std::max<std::size_t>(t.medians.size() - 1, 1));
  };
  const auto y = [&](double v) { return kH / 2 - (kH / 2 - kPad) * std::log(v / mid) / half; };
  std::string points, dots, title;
  for (std::size_t i : known) {
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x(i), y(t.medians[i]));
    if (i != t.new_run)
      dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#6e7781\"/>", x(i), y(t.medians[i]));
  }
  for (std::size_t i = 0; i < t.medians.size(); ++i)
    title += (i ? " → " : "") +
             (std::isfinite(t.medians[i]) && t.medians[i] > 0 ? format_duration(t.medians[i]) : std::string("—")) +
             (i == t.new_run ? " (new)" : "");
  std::string out = fmt::format(
      "<svg class=\"trend\" viewBox=\"0 0 {0:g} {1:g}\" width=\"{0:g}\" height=\"{1:g}\" role=\"img\" "
      "aria-label=\"{2}\">"
      "<title>{2}</title><polyline points=\"{3}\" fill=\"none\" stroke=\"#8a8a8a\" stroke-width=\"1.2\"/>{4}",
      kW, kH, html_escape("median per run: " + title), points, dots);
  if (t.new_run < t.medians.size() && std::isfinite(t.medians[t.new_run]) && t.medians[t.new_run] > 0) {
    const char* color = std::string_view(tone) == "bad"    ? "#b42318"
                        : std::string_view(tone) == "good" ? "#1a7f37"
                                                           : "#24292f";
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.2\" fill=\"{}\"/>", x(t.new_run),
                       y(t.medians[t.new_run]), color);
  }
  return out + "</svg>";
}

}  // namespace gpubench::detail
