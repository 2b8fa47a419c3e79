// The fleet page (gpubench/fleet_report.hpp): per model a GPUs × records heatmap drawn here as
// inline SVG (one rect per cell: nothing to plot that gnuplot would add), the flagged cells with
// their intervals, and the tasks that failed or stored nothing. Every string from the store goes
// through html_escape; the page loads nothing and runs no script.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/fleet_report.hpp"
#include "report/html_escape.hpp"
#include "report/html_parts.hpp"

namespace gpubench {

namespace {

using detail::html_escape;

std::string h(std::string_view s) { return html_escape(s); }
std::string pct(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

// Diverging colour of a log ratio: white at the median, red for slower, blue for faster, full
// strength at twice the band.
std::string cell_colour(double log_ratio, double band) {
  const double full = 2 * std::log1p(band);
  const double t = std::clamp(std::abs(log_ratio) / full, 0.0, 1.0);
  const auto mix = [&](int to) { return int(std::lround(255 + (to - 255) * t)); };
  return log_ratio > 0 ? fmt::format("rgb({},{},{})", 255, mix(60), mix(50))
                       : fmt::format("rgb({},{},{})", mix(40), mix(110), 255);
}

std::string heatmap(const fleet_group& g, double band) {
  constexpr int kLabel = 190, kHeader = 22, kRow = 14;
  const int cell = std::clamp(int(900 / std::max<std::size_t>(g.records.size(), 1)), 8, 28);
  const int w = kLabel + cell * int(g.records.size()) + 4;
  const int ht = kHeader + kRow * int(g.gpus.size()) + 4;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{} GPUs by {} records\" font-family=\"sans-serif\" font-size=\"11\">\n",
      w, ht, w, ht, g.gpus.size(), g.records.size());
  for (std::size_t k = 0; k < g.records.size(); ++k)
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\"><title>{}</title>{}</text>\n",
                     kLabel + cell * int(k) + cell / 2, kHeader - 8, h(g.records[k].id), k + 1);
  for (std::size_t i = 0; i < g.gpus.size(); ++i) {
    const int y = kHeader + kRow * int(i);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabel - 6, y + kRow - 3,
                     h(fleet_gpu_label(g.gpus[i].tags)));
    for (std::size_t k = 0; k < g.records.size(); ++k) {
      const fleet_cell& c = g.cells[i][k];
      const int x = kLabel + cell * int(k);
      const std::string fill = c.ranked ? cell_colour(std::log(c.ratio), band) : std::string("#e5e7eb");
      const bool flagged = c.flag != fleet_flag::none;
      const std::string tip = c.ranked
                                  ? fmt::format("{} on {}: {} [{}, {}]{}", fleet_gpu_label(g.gpus[i].tags),
                                                g.records[k].id, pct(c.ratio), pct(c.low), pct(c.high),
                                                flagged ? std::string(", flagged ") + to_string(c.flag) : std::string())
                                  : fmt::format("{} on {}: {}", fleet_gpu_label(g.gpus[i].tags), g.records[k].id,
                                                c.present ? "not ranked" : "not timed");
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}><title>{}</title></rect>\n", x,
                       y, cell - 1, kRow - 1, fill, flagged ? " stroke=\"#111\" stroke-width=\"2\"" : "", h(tip));
    }
  }
  return s + "</svg>\n";
}

std::string group_section(const fleet_group& g, std::size_t index, const fleet_ranking& r) {
  std::string s =
      fmt::format("<section class=\"chapter\" id=\"model{}\">\n<h2>{}{}</h2>\n", index, h(g.model),
                  index > 0 ? " <span class=\"title\">kept apart: another model than the fleet's</span>" : "");
  const auto flagged = g.flagged_gpus();
  s += fmt::format("<p>{} GPU{}, {} record{}.", g.gpus.size(), g.gpus.size() == 1 ? "" : "s", g.records.size(),
                   g.records.size() == 1 ? "" : "s");
  if (!g.not_ranked.empty()) {
    s += " Not ranked: " + h(g.not_ranked) + ".</p>\n";
    const auto listed = g.slowest_first();
    if (listed.empty()) return s + "</section>\n";
    // As the console lists them: slowest first against the GPUs' median, no interval, no flag.
    s += "<p class=\"note\">Each GPU against the GPUs' median (geometric mean of its records' ratios; no "
         "interval, no flag), slowest first, with the three records where it is farthest from the others.</p>\n"
         "<table>\n<tr><th>GPU</th><th>task</th><th>vs median</th><th>farthest records</th></tr>\n";
    for (const auto& l : listed) {
      std::string recs;
      for (const std::size_t k : l.farthest)
        recs += fmt::format("{}<code>{}</code> {}", recs.empty() ? "" : "<br>", h(g.records[k].id),
                            pct(g.cells[l.gpu][k].ratio));
      s +=
          fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", h(fleet_gpu_label(g.gpus[l.gpu].tags)),
                      g.gpus[l.gpu].tags.task, pct(g.overall_ratio(l.gpu)), recs);
    }
    return s + "</table>\n</section>\n";
  }
  s += fmt::format(" {} GPU{} flagged on {} cell{} (beyond ±{:.1f}% of the fleet median, with {:.0f}% simultaneous "
                   "intervals).</p>\n",
                   flagged.size(), flagged.size() == 1 ? "" : "s", g.flagged_cells(), g.flagged_cells() == 1 ? "" : "s",
                   r.options.band * 100, (1 - r.options.alpha) * 100);
  s += "<p class=\"note\">Each cell is one GPU on one record: red is slower than the fleet's median, blue faster, at "
       "full strength twice the band away; outlined cells are flagged; grey ones were not timed or not ranked. "
       "Hover for the numbers; columns are numbered as in the table of records below.</p>\n";
  s += "<div class=\"chart\">" + heatmap(g, r.options.band) + "</div>\n";
  if (!flagged.empty()) {
    s += "<h3>Flagged</h3>\n<table>\n<tr><th>GPU</th><th>task</th><th>record</th><th>vs "
         "median</th><th>interval</th><th>flag</th></tr>\n";
    for (const std::size_t i : flagged)
      for (std::size_t k = 0; k < g.records.size(); ++k) {
        const fleet_cell& c = g.cells[i][k];
        if (c.flag == fleet_flag::none) continue;
        s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>[{}, {}]</td><td>{}</td></tr>\n",
                         h(fleet_gpu_label(g.gpus[i].tags)), g.gpus[i].tags.task, h(g.records[k].id), pct(c.ratio),
                         pct(c.low), pct(c.high), to_string(c.flag));
      }
    s += "</table>\n";
  }
  s += "<h3>Records</h3>\n<table>\n<tr><th>#</th><th>record</th><th>bound</th><th>GPUs</th><th>fleet "
       "median</th><th>spread</th></tr>\n";
  for (std::size_t k = 0; k < g.records.size(); ++k) {
    const fleet_record& rec = g.records[k];
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", k + 1, h(rec.id),
                     h(rec.bound), rec.gpus, rec.median_s > 0 ? fmt::format("{:.4g} s", rec.median_s) : "–",
                     rec.median_s > 0 ? fmt::format("{:.2f}%", rec.spread * 100) : "–");
  }
  return s + "</table>\n</section>\n";
}

}  // namespace

std::string html_fleet_page(const fleet_ranking& r, const std::string& generator) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  page += "<title>gpubench fleet report — job " + h(r.job_id) + "</title>\n<style>" + detail::kReportCss +
          "</style>\n</head>\n<body>\n";
  page +=
      fmt::format("<header class=\"page\"><div><h1>gpubench fleet report</h1><p>Slurm job {} · {} GPU profile{}{} · "
                  "{} failed · {} missing</p></div></header>\n<main>\n",
                  h(r.job_id), r.stored, r.stored == 1 ? "" : "s",
                  r.expected_tasks > 0 ? fmt::format(" of {} tasks", r.expected_tasks) : std::string(),
                  r.failures.size(), r.missing.size());
  for (std::size_t i = 0; i < r.groups.size(); ++i) page += group_section(r.groups[i], i, r);
  if (!r.failures.empty() || !r.missing.empty() || !r.unreadable.empty()) {
    page += "<section class=\"chapter\" id=\"faults\">\n<h2>Tasks without a profile</h2>\n<table>\n"
            "<tr><th>task</th><th>node</th><th>what happened</th></tr>\n";
    for (const auto& f : r.failures)
      page += fmt::format("<tr><td>{}</td><td>{}</td><td>failed: {}</td></tr>\n", f.tags.task,
                          h(f.tags.node.empty() ? f.tags.host : f.tags.node), h(f.reason));
    for (const auto& m : r.missing)
      page += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>stored nothing: the node may have been lost (sacct -j {})</td></tr>\n", m.task,
          h(m.node), h(r.job_id));
    page += "</table>\n";
    for (const auto& u : r.unreadable) page += "<p class=\"warning\">unreadable: " + h(u) + "</p>\n";
    page += "</section>\n";
  }
  page += "<footer><p><small>" + h(generator) + "</small></p></footer>\n";
  return page + "</main>\n</body>\n</html>\n";
}

}  // namespace gpubench
