// The report's first screen: per chapter a card, per pair one row saying which variant won at the
// pair's headline size, by how much (the speedup over the baseline with its interval, as a number
// and on a log track beside the others of the chapter) and how close that variant came to its roof.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "report/html_escape.hpp"
#include "report/html_interval.hpp"
#include "report/html_parts.hpp"

namespace gpubench::detail {

namespace {

std::string h(std::string_view s) { return html_escape(s); }

// The width of a summary's track: the style sheet's table.glance td.ivl, less its padding.
constexpr double kTrackPx = 88;

// The variant with the largest speedup estimate at the headline size (the baseline is never one).
const variant_speedup* best_of(const pair_speedups& p) {
  if (!p.headline) return nullptr;
  const variant_speedup* best = nullptr;
  for (const variant_speedup& v : p.sizes[*p.headline].variants)
    if (v.speedup && (best == nullptr || v.speedup->estimate > best->speedup->estimate)) best = &v;
  return best;
}

// Three significant digits, without an exponent below 100000: "1930", not "1.93e+03".
std::string three_digits(double v) {
  const double a = std::abs(v);
  if (a < 1000 || a >= 1e5) return fmt::format("{:.3g}", v);
  const double step = std::pow(10.0, std::floor(std::log10(a)) - 2);
  return fmt::format("{:.0f}", std::round(v / step) * step);
}

}  // namespace

std::string interval_text(const ratio_interval& r) {
  if (!std::isfinite(r.low) || !std::isfinite(r.high)) return "";
  return fmt::format("[{}, {}]", three_digits(r.low), three_digits(r.high));
}

std::string html_speedup(const variant_speedup& v, bool words) {
  if (!v.speedup) return "—";
  const char* tone = tone_of(v.band);
  const double x = v.speedup->estimate;
  // The word says what the interval says: "faster" only when all of it lies above the band.
  const char* what = v.band == verdict::faster   ? "faster"
                     : v.band == verdict::slower ? "slower"
                     : v.band == verdict::same   ? "same"
                                                 : "inconclusive";
  std::string out = fmt::format("<span class=\"x {}\">{}</span>", tone, h(format_factor(x)));
  if (words) out += " <span class=\"" + std::string(tone) + "\">" + what + "</span>";
  return out + " <small class=\"ci\">" + h(interval_text(*v.speedup)) + "</small>";
}

std::string html_roof_share(const record& r) {
  if (!r.floor || !(r.floor->fraction > 0)) return "—";
  // A launch-bound kernel can sit at 1e-6 of its roof: "<0.01%" says so, where "0.00%" reads as nothing.
  const std::string pct = r.floor->fraction < 5e-5 ? "&lt;0.01%" : h(format_percent(r.floor->fraction));
  const std::string share = pct + " <small>" + h(r.floor->bound) + "</small>";
  if (r.floor->fraction <= 1) return share;
  return "<span class=\"above\" title=\"above its roof: the roof is the best of one access pattern or the ceilings are "
         "theoretical; the work model may undercount, or the data stayed in L2\">▲ " +
         share + "</span>";
}

std::string html_glance(const std::vector<glance_chapter>& chapters, double threshold, bool name_chapters) {
  // A table per chapter, each on its own speedup scale; several chapters flow into two columns on a
  // wide page (the style sheet's div.glance.cols), so that the first screen holds all of them.
  std::string out = chapters.size() > 1 ? "<div class=\"glance cols\">\n" : "<div class=\"glance\">\n";
  for (const glance_chapter& ch : chapters) {
    std::vector<ratio_interval> rows;
    for (const glance_pair& p : ch.pairs)
      if (const variant_speedup* b = best_of(*p.speedups)) rows.push_back(*b->speedup);
    const log_track track = log_track::around(rows, threshold);
    // A block per chapter: its name on one line above its table (a long title ends in an ellipsis,
    // whole in the tooltip; the profile's name stays), so that a column never widens past the page.
    out += fmt::format("<div class=\"card\" data-chapter=\"{}\">", ch.number);
    if (name_chapters) {
      const std::string whole = fmt::format("Chapter {}{}{}", ch.number, ch.title.empty() ? "" : " " + ch.title,
                                            ch.profile.empty() ? "" : " · " + ch.profile);
      out += fmt::format("<p class=\"chapter\" title=\"{}\">{}<a href=\"#{}\">Chapter {}</a>{}</p>", h(whole),
                         ch.profile.empty() ? "" : "<small>" + h(ch.profile) + "</small>", h(ch.anchor), ch.number,
                         ch.title.empty() ? "" : " <span class=\"title\">" + h(ch.title) + "</span>");
    }
    out += "<table class=\"glance\">";
    out += fmt::format("<thead><tr><th class=\"pair\">pair <small>at size</small></th><th>best</th>"
                       "<th class=\"num\">speedup</th><th class=\"ivl\">{}</th><th class=\"num\">of roof</th></tr>"
                       "</thead>\n<tbody>\n",
                       rows.empty() ? "" : html_track_axis(track, kTrackPx));
    for (const glance_pair& p : ch.pairs) {
      // The pair's size follows its name in what room the row leaves, cut with an ellipsis (whole in
      // the tooltip): a short name shows all of it, a long one on a narrow column a little or none;
      // on a row too wide even for that, the name gives way too (whole in its tooltip).
      const variant_speedup* b = best_of(*p.speedups);
      const size_speedups* s = b == nullptr ? nullptr : &p.speedups->sizes[*p.speedups->headline];
      out += fmt::format(
          "<tr data-pair=\"{}\"><td class=\"pair\"><div><a href=\"#{}\" title=\"{}\"><code>{}</code></a>{}</div></td>",
          h(p.name), h(p.anchor), h(p.name), h(p.name),
          s == nullptr ? ""
                       : "<span class=\"size\" title=\"" + h(s->size) + "\"><span>" + h(s->label) + "</span></span>");
      if (b == nullptr) {
        out += "<td colspan=\"4\"><small>no variant timed against its baseline</small></td></tr>\n";
        continue;
      }
      out += "<td class=\"variant\"><strong>" + h(b->rec->variant) + "</strong></td>";
      out += "<td class=\"num speedup\">" + html_speedup(*b, false) + "</td>";
      out += "<td class=\"ivl\">" +
             html_interval_track(track, *b->speedup, threshold, tone_of(b->band),
                                 fmt::format("{} over {}: {} {}", b->rec->variant, s->baseline->variant,
                                             format_factor(b->speedup->estimate), interval_text(*b->speedup))) +
             "</td>";
      out += "<td class=\"num\">" + html_roof_share(*b->rec) + "</td></tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  return out + "</div>\n";
}

}  // namespace gpubench::detail
