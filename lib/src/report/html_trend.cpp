// Trend charts for the HTML report (report/html_trend.hpp).
#include "report/html_trend.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "report/html_escape.hpp"

namespace gpubench::detail {

namespace {

std::string h(std::string_view s) { return html_escape(s); }

std::string shift(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

std::string change_text(const record_trend& t, const change_point& c) {
  const auto& p = t.series.points[c.index];
  return fmt::format("run #{} ({}): {} [{}, {}]", p.run_id, p.git_sha.substr(0, 7), shift(c.ratio), shift(c.ratio_low),
                     shift(c.ratio_high));
}

}  // namespace

std::string trend_svg(const record_trend& t, int width, int height) {
  const auto& pts = t.series.points;
  const double left = 64, right = 10, top = 14, bottom = 22;
  const double w = width - left - right, hgt = height - top - bottom;
  double lo = pts.front().median_s, hi = lo;
  for (const auto& p : pts) {
    lo = std::min(lo, p.median_s);
    hi = std::max(hi, p.median_s);
  }
  // At least ±1% around the level, so that noise on a flat line does not fill the chart.
  const double mid = (lo + hi) / 2, half = std::max((hi - lo) / 2 * 1.15, mid * 0.01);
  lo = mid - half;
  hi = mid + half;
  const std::size_t n = pts.size();
  const auto x = [&](std::size_t i) {
    return left + (n == 1 ? w / 2 : w * static_cast<double>(i) / static_cast<double>(n - 1));
  };
  const auto y = [&](double v) { return top + hgt * (hi - v) / (hi - lo); };
  std::string svg = fmt::format("<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
                                "aria-label=\"{2}\" font-family=\"sans-serif\" font-size=\"11\">\n",
                                width, height, h("trend of " + t.series.record_id));
  svg += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#ccc\"/>\n", left, top,
      w, hgt);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 4, top + 9,
                     h(format_duration(hi)));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 4, top + hgt,
                     h(format_duration(lo)));
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">run #{}</text>\n", left, height - 6, pts.front().run_id);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"end\">run #{}</text>\n", left + w, height - 6,
                     pts.back().run_id);
  // Each level between change points, then the change points themselves.
  std::size_t begin = 0;
  for (std::size_t k = 0; k <= t.changes.size(); ++k) {
    const std::size_t end = k < t.changes.size() ? t.changes[k].index : n;
    const double level = k < t.changes.size() ? t.changes[k].before : (k > 0 ? t.changes[k - 1].after : 0);
    if (level > 0)
      svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#999\"/>\n", x(begin),
                         y(level), x(end - 1), y(level));
    begin = end;
  }
  for (const auto& c : t.changes) {
    const double cx = (x(c.index - 1) + x(c.index)) / 2;
    svg += fmt::format(
        "<line class=\"change\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#c0392b\" "
        "stroke-dasharray=\"4 3\"><title>{3}</title></line>\n",
        cx, top, top + hgt, h("change at " + change_text(t, c)));
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#c0392b\" text-anchor=\"middle\">{}</text>\n", cx,
                       top - 3, h(shift(c.ratio)));
  }
  std::string line;
  for (std::size_t i = 0; i < n; ++i) line += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x(i), y(pts[i].median_s));
  svg += "<polyline fill=\"none\" stroke=\"#2c6fbb\" stroke-width=\"1.5\" points=\"" + line + "\"/>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = pts[i];
    const bool is_base = t.base_run && *t.base_run == p.run_id, is_new = t.new_run && *t.new_run == p.run_id;
    const char* fill = is_new ? "#e67e22" : is_base ? "#27ae60" : "#2c6fbb";
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>{}</title></circle>\n", x(i),
                       y(p.median_s), is_base || is_new ? 4.5 : 2.2, fill,
                       h(fmt::format("run #{} {} {}: {}{}", p.run_id, p.git_sha.substr(0, 7),
                                     p.started_at.substr(0, 16), format_duration(p.median_s),
                                     is_new    ? " (new)"
                                     : is_base ? " (base)"
                                               : "")));
    if (is_base || is_new)
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\" text-anchor=\"middle\">{}</text>\n", x(i),
                         y(p.median_s) + (is_new ? -7 : 15), fill, is_new ? "new" : "base");
  }
  return svg + "</svg>";
}

std::string html_trends(const std::vector<record_trend>& trends, bool comparing) {
  if (trends.empty()) return {};
  std::size_t changes = 0;
  for (const auto& t : trends) changes += t.changes.size();
  // Records with a change point first, then in record order.
  std::vector<const record_trend*> order;
  for (const auto& t : trends) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const record_trend* a, const record_trend* b) {
    return !a->changes.empty() && b->changes.empty();
  });
  std::string out = fmt::format(
      "<section class=\"trends\" id=\"trends\">\n<h2>Trends from the run store</h2>\n<p>Each record's median over "
      "the stored runs on {} with the same options, oldest run on the left: {} record{}, {} change point{} "
      "(E-Divisive means, each kept at p ≤ 0.001 in a permutation test; dashed red, with the shift). Grey lines: the "
      "level between change points.{}</p>\n<div style=\"display: flex; flex-wrap: wrap; gap: 8px 16px\">\n",
      h(trends.front().series.gpu_model), trends.size(), trends.size() == 1 ? "" : "s", changes,
      changes == 1 ? "" : "s",
      comparing ? " The comparison's runs are marked: base in green, new in orange (when they are in the store)." : "");
  for (const record_trend* t : order) {
    std::string caption = fmt::format("<code>{}</code>: {} runs", h(t->series.record_id), t->series.points.size());
    for (const auto& c : t->changes) caption += "; change at " + h(change_text(*t, c));
    out += fmt::format("<figure class=\"trend\" data-record=\"{}\" style=\"margin: 0; max-width: 360px\">\n{}\n"
                       "<figcaption>{}</figcaption>\n</figure>\n",
                       h(t->series.record_id), trend_svg(*t), caption);
  }
  return out + "</div>\n</section>\n";
}

}  // namespace gpubench::detail
