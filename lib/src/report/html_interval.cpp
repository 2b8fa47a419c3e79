// Intervals as HTML tracks; see html_interval.hpp.
#include "report/html_interval.hpp"

#include <algorithm>
#include <cmath>

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

std::string html_track_axis(const log_track& t) {
  std::string out = "<div class=\"track-axis\">";
  for (const double v : log_ticks(t.lo, t.hi))
    out += fmt::format("<span style=\"left:{:.2f}%\">{:g}×</span>", t.percent(v), v);
  return out + "</div>";
}

}  // namespace gpubench::detail
