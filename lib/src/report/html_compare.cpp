// The comparison in the report: the same verdicts `gpubench compare` prints (the caller passes
// compare_profiles()' result unchanged), ordered for a person scanning for trouble: regressions
// first, then what could not be decided, then the good news.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "report/html_escape.hpp"
#include "report/html_interval.hpp"
#include "report/html_parts.hpp"

namespace gpubench {

std::vector<const record_comparison*> regressions_first(const comparison& c) {
  auto rank = [](const record_comparison& r) {
    switch (r.result) {
      case verdict::slower: return r.critical ? 0 : 1;
      case verdict::inconclusive: return 2;
      case verdict::faster: return 3;
      case verdict::same: return 4;
    }
    return 5;
  };
  std::vector<const record_comparison*> out;
  for (const auto& r : c.records) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [&](const record_comparison* a, const record_comparison* b) {
    if (rank(*a) != rank(*b)) return rank(*a) < rank(*b);
    // Among regressions the largest slowdown first; a NaN estimate sorts last.
    if (a->result == verdict::slower && std::isfinite(a->ratio.estimate) && std::isfinite(b->ratio.estimate))
      return a->ratio.estimate > b->ratio.estimate;
    return false;
  });
  return out;
}

namespace detail {

namespace {

std::string h(std::string_view s) { return html_escape(s); }

std::string id_list(const char* title, const std::vector<std::string>& ids) {
  if (ids.empty()) return {};
  std::string out = fmt::format("<details><summary>{} ({})</summary><ul class=\"ids\">\n", title, ids.size());
  for (const auto& id : ids) out += "<li><code>" + h(id) + "</code></li>\n";
  return out + "</ul></details>\n";
}

std::string speedup_verdict(const speedup_comparison& s) {
  switch (s.result) {
    case verdict::slower: return "<span class=\"badge bad\">speedup shrank</span>";
    case verdict::faster: return "<span class=\"badge good\">speedup grew</span>";
    case verdict::same: return "<span class=\"badge same\">same</span>";
    case verdict::inconclusive: return "<span class=\"badge warn\">inconclusive</span>";
  }
  return "?";
}

}  // namespace

std::string html_compare(const comparison& c, const std::function<std::string(const std::string&)>& anchor_of,
                         const std::map<std::string, compared_series>* trends) {
  std::string out = "<section class=\"compare\" id=\"compare\">\n<h2>Compared with the base</h2>\n";
  const std::size_t slower = c.count(verdict::slower), critical = c.critical_count();
  out += fmt::format("<p class=\"tally\"><span class=\"badge {}\">{} slower{}</span> <span class=\"badge good\">{} faster</span> "
                     "<span class=\"badge same\">{} same</span> <span class=\"badge warn\">{} inconclusive</span></p>\n",
                     slower ? "bad" : "same", slower, critical ? fmt::format(" ({} critical)", critical) : "",
                     c.count(verdict::faster), c.count(verdict::same), c.count(verdict::inconclusive));
  out +=
      fmt::format("<p>Base <code>{}</code> ({}) → new <code>{}</code> ({}). Threshold {} (critical {}); each interval "
                  "holds with {} confidence, {} with {}{}. The verdicts are those of "
                  "<code>gpubench compare</code>: slower or faster only when the whole interval of the time ratio "
                  "new/base lies beyond the threshold.</p>\n",
                  h(c.base_source), h(c.base_device), h(c.new_source), h(c.new_device),
                  h(format_percent(c.options.threshold)), h(format_percent(c.options.critical)),
                  h((c.family_min == c.family_max ? "" : "≥") + format_percent(c.interval_confidence)),
                  c.family_per_chapter ? "all of a chapter's together" : "all of them together",
                  h(format_percent(1 - c.options.alpha)),
                  c.history_runs ? fmt::format("; drift estimated from {} earlier runs of the base", c.history_runs)
                                 : "");
  if (!c.same_device)
    out += "<p class=\"warning\">⚠ The profiles come from different GPUs: absolute times differ by hardware; the "
           "speedups are the comparable part.</p>\n";
  if (const std::string mixed = c.figures_differ_warning(); !mixed.empty())
    out += "<p class=\"warning\">⚠ " + h(mixed) + ".</p>\n";
  if (const std::string rest = c.rest_differs_warning(); !rest.empty())
    out += "<p class=\"warning\">⚠ " + h(rest) + ".</p>\n";
  if (const std::string chip = c.another_chip_warning(); !chip.empty())
    out += "<p class=\"warning\">⚠ " + h(chip) + ".</p>\n";
  if (const std::string repeats = c.history_repeats_warning(); !repeats.empty())
    out += "<p class=\"warning\">⚠ " + h(repeats) + ".</p>\n";

  const double t = c.options.threshold;
  if (!c.records.empty()) {
    // Every record's interval on one log axis, against the band that counts as the same.
    std::vector<ratio_interval> ratios;
    for (const record_comparison& r : c.records) ratios.push_back(r.ratio);
    const log_track track = log_track::around(ratios, t);
    const bool with_trend = trends != nullptr && !trends->empty();
    out += "<table class=\"verdicts\"><thead><tr><th>record</th><th class=\"num\">base</th><th class=\"num\">new</th>"
           "<th class=\"num\">new / base</th><th class=\"ivl\">" +
           html_track_axis(track) + "</th><th>verdict</th><th class=\"num\">resolves</th>" +
           (with_trend ? "<th>trend <small>per run</small></th>" : "") + "</tr></thead><tbody>\n";
    const auto trend_cell = [&](const record_comparison* r) -> std::string {
      if (!with_trend) return "";
      const auto it = trends->find(r->id);
      return "<td class=\"trend\">" +
             (it == trends->end() ? std::string() : html_sparkline(it->second, tone_of(r->result))) + "</td>";
    };
    for (const record_comparison* r : regressions_first(c)) {
      const std::string anchor = anchor_of ? anchor_of(r->id) : std::string();
      const std::string id = "<code>" + html_breakable(r->id) + "</code>";
      const std::string plot = html_interval_track(track, r->ratio, t, tone_of(r->result),
                                                   fmt::format("{}: new / base {:.3f} {}", r->id, r->ratio.estimate,
                                                               interval_text(r->ratio)));
      out += fmt::format(
          "<tr class=\"v-{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"ivl\">{}</td><td>{}{}</td><td class=\"num\">{}</td>{}</tr>\n",
          to_string(r->result), anchor.empty() ? id : "<a href=\"#" + h(anchor) + "\">" + id + "</a>",
          h(format_duration(r->base_median)), h(format_duration(r->new_median)), html_ratio(r->ratio), plot,
          html_verdict(*r), r->note.empty() ? "" : "<br><small>" + h(r->note) + "</small>",
          std::isfinite(r->resolvable) && r->resolvable > 0 ? h(format_percent(r->resolvable)) : "—", trend_cell(r));
    }
    out += fmt::format(
        "</tbody></table>\n<p class=\"note\">The bar: each record's interval of the time ratio new / base "
        "(tick: the estimate) on a log axis; grey band: <em>same</em> (±{:.3g}%); red or green only when the "
        "whole interval lies beyond it. <em>resolves</em>: the smallest slowdown this record could call "
        "slower with these runs.{}</p>\n",
        100 * t,
        with_trend ? " <em>trend</em>: the record's median in the base, each --history run and the new run, in the "
                     "order they started, on a log scale fitted to them (the new run: the large dot)."
                   : "");
  }
  if (!c.speedups.empty()) {
    std::vector<ratio_interval> ratios;
    for (const speedup_comparison& sp : c.speedups) ratios.push_back(sp.ratio);
    const log_track track = log_track::around(ratios, t);
    out += "<details><summary>Speedups in both runs (" + std::to_string(c.speedups.size()) +
           "): baseline time ÷ variant time, robust to a different machine</summary>\n"
           "<table class=\"verdicts\"><thead><tr><th>record</th><th class=\"num\">base</th><th class=\"num\">new</th>"
           "<th class=\"num\">new / base</th><th class=\"ivl\">" +
           html_track_axis(track) + "</th><th>verdict</th></tr></thead><tbody>\n";
    for (const speedup_comparison& sp : c.speedups)
      out += fmt::format(
          "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"ivl\">{}</td><td>{}{}</td></tr>\n",
          h(sp.id), h(format_factor(sp.base_speedup)), h(format_factor(sp.new_speedup)), html_ratio(sp.ratio),
          html_interval_track(track, sp.ratio, t, tone_of(sp.result), sp.id), speedup_verdict(sp),
          sp.note.empty() ? "" : "<br><small>" + h(sp.note) + "</small>");
    out += "</tbody></table></details>\n";
  }
  out += id_list("Only in the base", c.only_in_base);
  out += id_list("Only in the new profile", c.only_in_new);
  out += id_list("Skipped in both runs (not judged)", c.skipped_in_both);
  return out + "</section>\n";
}

}  // namespace detail
}  // namespace gpubench
