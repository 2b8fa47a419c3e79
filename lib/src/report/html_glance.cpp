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

// The variant with the largest speedup estimate at the headline size (the baseline is never one).
const variant_speedup* best_of(const pair_speedups& p) {
  if (!p.headline) return nullptr;
  const variant_speedup* best = nullptr;
  for (const variant_speedup& v : p.sizes[*p.headline].variants)
    if (v.speedup && (best == nullptr || v.speedup->estimate > best->speedup->estimate)) best = &v;
  return best;
}

}  // namespace

std::string interval_text(const ratio_interval& r) {
  if (!std::isfinite(r.low) || !std::isfinite(r.high)) return "";
  return fmt::format("[{:.3g}, {:.3g}]", r.low, r.high);
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
  // One table, so that the columns line up from chapter to chapter; a chapter is a <tbody> whose
  // first row names it and carries the axis of its speedup bars.
  std::string out =
      "<table class=\"glance\"><thead><tr><th>pair</th><th>best variant</th><th>at size</th>"
      "<th class=\"num\">speedup</th><th class=\"ivl\"></th><th class=\"num\">of roof</th></tr></thead>\n";
  for (const glance_chapter& ch : chapters) {
    std::vector<ratio_interval> rows;
    for (const glance_pair& p : ch.pairs)
      if (const variant_speedup* b = best_of(*p.speedups)) rows.push_back(*b->speedup);
    const log_track track = log_track::around(rows, threshold);
    const std::string name =
        !name_chapters ? std::string()
                       : fmt::format("<a href=\"#{}\">Chapter {}</a>{}{}", h(ch.anchor), ch.number,
                                     ch.title.empty() ? "" : " <span class=\"title\">" + h(ch.title) + "</span>",
                                     ch.profile.empty() ? "" : " <small>" + h(ch.profile) + "</small>");
    out += fmt::format("<tbody class=\"card\" data-chapter=\"{}\"><tr class=\"chapter\"><th colspan=\"4\">{}</th>"
                       "<th class=\"ivl\">{}</th><th></th></tr>\n",
                       ch.number, name, rows.empty() ? "" : html_track_axis(track));
    for (const glance_pair& p : ch.pairs) {
      out += fmt::format("<tr data-pair=\"{}\"><td><a href=\"#{}\"><code>{}</code></a></td>", h(p.name), h(p.anchor),
                         h(p.name));
      const variant_speedup* b = best_of(*p.speedups);
      if (b == nullptr) {
        out += "<td colspan=\"5\"><small>no variant timed against its baseline</small></td></tr>\n";
        continue;
      }
      const size_speedups& s = p.speedups->sizes[*p.speedups->headline];
      out += "<td class=\"variant\"><strong>" + h(b->rec->variant) + "</strong></td>";
      out += "<td class=\"size\" title=\"" + h(s.size) + "\">" + h(s.label) + "</td>";
      out += "<td class=\"num speedup\">" + html_speedup(*b, false) + "</td>";
      out += "<td class=\"ivl\">" +
             html_interval_track(track, *b->speedup, threshold, tone_of(b->band),
                                 fmt::format("{} over {}: {} {}", b->rec->variant, s.baseline->variant,
                                             format_factor(b->speedup->estimate), interval_text(*b->speedup))) +
             "</td>";
      out += "<td class=\"num\">" + html_roof_share(*b->rec) + "</td></tr>\n";
    }
    out += "</tbody>\n";
  }
  return out + "</table>\n";
}

}  // namespace gpubench::detail
