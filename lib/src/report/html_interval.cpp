// Intervals as HTML tracks; see html_interval.hpp.
#include "report/html_interval.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "report/html_escape.hpp"
#include "report/speedup_chart.hpp"

namespace gpubench::detail {

log_track log_track::around(const std::vector<ratio_interval>& rows, double threshold) {
  log_track t;
  t.lo = 1 / (1 + threshold);
  t.hi = 1 + threshold;
  for (const ratio_interval& r : rows)
    for (const double v : {r.low, r.estimate, r.high})
      if (std::isfinite(v) && v > 0) t.lo = std::min(t.lo, v), t.hi = std::max(t.hi, v);
  const double pad = std::pow(t.hi / t.lo, 0.06);
  t.lo /= pad;
  t.hi *= pad;
  return t;
}

double log_track::percent(double v) const {
  if (!(v > 0) || !std::isfinite(v)) return v > 0 ? 100 : 0;
  return std::clamp(100 * std::log(v / lo) / std::log(hi / lo), 0.0, 100.0);
}

const char* tone_of(verdict v) {
  if (v == verdict::faster) return "good";
  if (v == verdict::slower) return "bad";
  return "";
}

std::string html_interval_track(const log_track& t, const ratio_interval& r, double threshold, const char* tone,
                                const std::string& label) {
  const double b0 = t.percent(1 / (1 + threshold)), b1 = t.percent(1 + threshold);
  std::string out = "<div class=\"track\" title=\"" + html_escape(label) + "\">";
  out += fmt::format("<span class=\"band\" style=\"left:{:.2f}%;width:{:.2f}%\"></span>", b0, b1 - b0);
  out += fmt::format("<span class=\"one\" style=\"left:{:.2f}%\"></span>", t.percent(1));
  if (std::isfinite(r.low) && std::isfinite(r.high)) {
    const double a = t.percent(r.low), b = t.percent(r.high);
    out += fmt::format("<span class=\"range {}\" style=\"left:{:.2f}%;width:{:.2f}%\"></span>", tone, a,
                       std::max(b - a, 0.4));
  }
  if (std::isfinite(r.estimate))
    out += fmt::format("<span class=\"est {}\" style=\"left:{:.2f}%\"></span>", tone, t.percent(r.estimate));
  return out + "</div>";
}

std::string html_track_axis(const log_track& t, double width_px) {
  std::vector<double> ticks = log_ticks(t.lo, t.hi);
  if (width_px > 0) {
    // Decades first (1×, 10×, 100×), then the 2s and 5s where their labels still clear the others
    // by 4 px: the 11 px labels are about 6.5 px a character.
    std::stable_partition(ticks.begin(), ticks.end(), [](double v) {
      const double e = std::log10(v);
      return std::abs(e - std::round(e)) < 1e-9;
    });
    std::vector<std::pair<double, double>> kept;  // (centre, half width) in px
    std::vector<double> shown;
    for (const double v : ticks) {
      const double x = t.percent(v) * width_px / 100;
      const double half = 6.5 * static_cast<double>(fmt::format("{:g}×", v).size() - 1) / 2;  // × is 2 bytes
      if (std::any_of(kept.begin(), kept.end(),
                      [&](const auto& k) { return std::abs(k.first - x) < k.second + half + 4; }))
        continue;
      kept.emplace_back(x, half);
      shown.push_back(v);
    }
    std::sort(shown.begin(), shown.end());
    ticks = std::move(shown);
  }
  std::string out = "<div class=\"track-axis\">";
  for (const double v : ticks) out += fmt::format("<span style=\"left:{:.2f}%\">{:g}×</span>", t.percent(v), v);
  return out + "</div>";
}

}  // namespace gpubench::detail
