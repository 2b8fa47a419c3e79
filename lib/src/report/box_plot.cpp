// Box plots through gnuplot: the statistics are computed here and gnuplot draws candlesticks from
// them (the box-plot idiom of gnuplot's own candlesticks demo), so quartiles match summarize().
// Names (variants, sizes) reach gnuplot only as gnuplot_quote'd strings in the script; the data
// file holds numbers only.
#include "report/box_plot.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/stats.hpp"
#include "process/gnuplot_process.hpp"
#include "report/gnuplot_batch.hpp"

namespace gpubench::detail {

namespace fs = std::filesystem;

namespace {

// The roofline's palette (Tableau 10 and two more), so a report reads as one document; a chart
// with more series than colours has its boxes named along x instead (the report draws a tuning
// grid that way).
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                               "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#ad494a"};
// Outliers drawn per box at most: beyond this they are thinned evenly by rank, which keeps the
// SVG small (a noisy host-timed record can have hundreds) and still shows where they lie.
constexpr std::size_t kMaxOutliersDrawn = 24;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One box in chart coordinates: its x position and its statistics as % deviation from its median.
struct placed_box {
  double x = 0;
  std::size_t series = 0;
  box_stats pct;
};

double pct(double v, double median) { return (v / median - 1) * 100; }

std::string one_chart(const box_chart& c, std::size_t index, const fs::path& svg, std::size_t& block, std::string& dat) {
  // x positions: the boxes of a group side by side in series order, one empty slot between groups.
  std::vector<placed_box> placed;
  std::vector<std::pair<double, std::string>> tics;  // group label at the centre of its boxes
  std::vector<double> separators;
  double x = 0;
  for (std::size_t g = 0; g < c.groups.size(); ++g) {
    const double first = x + 1;
    for (std::size_t s = 0; s < c.series.size(); ++s)
      for (const auto& b : c.boxes) {
        if (b.group != g || b.series != s || b.samples.empty()) continue;
        const box_stats raw = tukey_box(b.samples);
        if (!(raw.median > 0) || !std::isfinite(raw.median)) continue;  // no scale to show deviations on
        box_stats p{pct(raw.low, raw.median), pct(raw.q1, raw.median), 0, pct(raw.q3, raw.median),
                    pct(raw.high, raw.median), {}, raw.count};
        for (double o : raw.outliers) p.outliers.push_back(pct(o, raw.median));
        placed.push_back({x += 1, s, std::move(p)});
      }
    if (x >= first) {
      if (!tics.empty()) separators.push_back(first - 1);
      tics.emplace_back((first + x) / 2, c.groups[g]);
      x += 1;  // the gap
    }
  }
  if (placed.empty()) throw runtime_error("box plot: nothing to draw (no timed samples)");

  // The y range covers every box and whisker (at least ±0.5%); outliers beyond it are counted in a
  // label instead of stretching the axis until the boxes are flat.
  double lo = -0.5, hi = 0.5;
  for (const auto& b : placed) lo = std::min(lo, b.pct.low), hi = std::max(hi, b.pct.high);
  const double pad = (hi - lo) * 0.12;
  lo -= pad;
  hi += pad;

  std::size_t longest = 8, longest_group = 1;
  for (const auto& s : c.series) longest = std::max(longest, s.size());
  for (const auto& g : c.groups) longest_group = std::max(longest_group, g.size());
  // At most the page's width: a wider chart would be scaled down, and its text with it.
  const double width = std::clamp(160.0 + 58.0 * x + 7.5 * static_cast<double>(longest), 600.0, kPageContentWidth);
  // Group labels wider than their boxes turn, so that neighbours never run into each other.
  const double slot = (width - 160 - 7.5 * static_cast<double>(longest)) / std::max(x, 1.0);
  const double per_group =
      slot * static_cast<double>(placed.size()) / static_cast<double>(std::max<std::size_t>(tics.size(), 1));
  const bool rotate = static_cast<double>(longest_group) * 7.2 > per_group - 8;
  const double height = 330 + (rotate ? static_cast<double>(longest_group) * 7.2 * 0.5 : 0);

  std::string gp = fmt::format("\n# chart {}\nreset\n", index);
  gp += fmt::format("set terminal svg size {:.0f},{:.0f} dynamic enhanced font 'sans,12' background rgb 'white'\n",
                    width, height);
  gp += "set output " + gnuplot_quote(svg.string()) + "\n";
  gp += "set encoding utf8\nset border 3 lc rgb '#606060'\nset tics nomirror\nset tmargin 2\n";
  gp += fmt::format("set bmargin {:.1f}\n", rotate ? 2 + static_cast<double>(longest_group) * 0.5 * 7.2 / 12 : 3.5);
  gp += fmt::format("set xrange [0.3:{:g}]\nset yrange [{:g}:{:g}]\n", x - 0.3, lo, hi);
  gp += "set ylabel 'sample vs its median [%]'\nset format y '%+g'\n";
  gp += "set grid ytics lc rgb '#e4e4e4'\nset arrow from graph 0, first 0 to graph 1, first 0 nohead lc rgb '#a0a0a0' back\n";
  gp += rotate ? "set xtics scale 0 noenhanced rotate by 30 right (" : "set xtics scale 0 noenhanced (";
  for (std::size_t i = 0; i < tics.size(); ++i)
    gp += fmt::format("{}{} {:g}", i ? ", " : "", gnuplot_quote(svg_label_text(tics[i].second)), tics[i].first);
  gp += ")\n";
  for (double s : separators)
    gp += fmt::format("set arrow from {:g}, graph 0 to {:g}, graph 1 nohead lc rgb '#d0d0d0' dt 2 back\n", s, s);
  gp += "set key outside right top noenhanced samplen 1.5 font ',11'\nset style fill solid 0.3 border\nset boxwidth "
        "0.62 absolute\n";

  std::string plot = "plot";
  bool first_plot = true;
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    std::string boxes, points;
    for (const auto& b : placed) {
      if (b.series != s) continue;
      boxes += fmt::format("{:g} {:.6g} {:.6g} {:.6g} {:.6g} {:.6g}\n", b.x, b.pct.low, b.pct.q1, 0.0, b.pct.q3, b.pct.high);
      std::vector<double> shown;
      std::size_t above = 0, below = 0;
      for (double o : b.pct.outliers) {
        if (o > hi) ++above;
        else if (o < lo) ++below;
        else shown.push_back(o);
      }
      const std::size_t step = shown.size() > kMaxOutliersDrawn ? (shown.size() + kMaxOutliersDrawn - 1) / kMaxOutliersDrawn : 1;
      for (std::size_t i = 0; i < shown.size(); i += step) points += fmt::format("{:g} {:.6g}\n", b.x, shown[i]);
      if (above)
        gp += fmt::format("set label '{} ↑' at {:g}, graph 1 center offset 0,0.9 font ',11' tc rgb '#505050'\n", above,
                          b.x);
      if (below)
        gp += fmt::format("set label '{} ↓' at {:g}, graph 0 center offset 0,0.7 font ',11' tc rgb '#505050'\n", below,
                          b.x);
    }
    if (boxes.empty()) continue;
    const char* color = kColors[s % std::size(kColors)];
    dat += fmt::format("# block {}: chart {}, series {}: x, low whisker, q1, median, q3, high whisker (% of median)\n{}\n\n",
                       block, index, s, boxes);
    plot += fmt::format(
        "{} \\\n  data index {} using 1:3:2:6:5 with candlesticks whiskerbars 0.5 lw 1.5 lc rgb '{}' title {}"
        ", \\\n  data index {} using 1:4:4:4:4 with candlesticks lw 2.5 lc rgb '{}' notitle",
        first_plot ? "" : ",", block, color, gnuplot_quote(svg_label_text(c.series[s])), block, color);
    ++block;
    first_plot = false;
    if (!points.empty()) {
      dat += fmt::format("# block {}: chart {}, series {}: outliers, x and % of median\n{}\n\n", block, index, s, points);
      plot += fmt::format(", \\\n  data index {} using 1:2 with points pt 6 ps 0.45 lc rgb '{}' notitle", block++, color);
    }
  }
  return gp + plot + "\n";
}

}  // namespace

box_stats tukey_box(std::span<const double> samples) {
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  box_stats b;
  b.count = v.size();
  b.q1 = quantile_sorted(v, 0.25);
  b.median = quantile_sorted(v, 0.5);
  b.q3 = quantile_sorted(v, 0.75);
  const double fence = 1.5 * (b.q3 - b.q1);
  b.low = b.q1;
  b.high = b.q3;
  for (double s : v) {
    if (s < b.q1 - fence || s > b.q3 + fence) {
      b.outliers.push_back(s);
      continue;
    }
    b.low = std::min(b.low, s);
    b.high = std::max(b.high, s);
  }
  return b;
}

box_plot_files box_plots_gnuplot(const std::vector<box_chart>& charts, const fs::path& dir, const fs::path& data) {
  box_plot_files f;
  f.script = "# Box plots written by gpubench: per chart, each record's samples as % deviation from its median.\n";
  f.script += "data = " + gnuplot_quote(data.string()) + "\n";
  f.data = "# gpubench box plot data; blocks are separated by two blank lines (gnuplot `index`).\n";
  std::size_t block = 0;
  for (std::size_t i = 0; i < charts.size(); ++i)
    f.script += one_chart(charts[i], i, dir / ("box" + std::to_string(i) + ".svg"), block, f.data);
  f.script += "unset output\n";
  return f;
}

std::vector<std::string> render_box_plots(const std::vector<box_chart>& charts, const fs::path& gnuplot,
                                          const fs::path& scratch) {
  if (charts.empty()) return {};
  const fs::path script = scratch / "boxes.gp", data = scratch / "boxes.dat";
  const box_plot_files files = box_plots_gnuplot(charts, scratch, data);
  if (!(std::ofstream(script, std::ios::binary) << files.script).flush() ||
      !(std::ofstream(data, std::ios::binary) << files.data).flush())
    throw runtime_error("cannot write gnuplot's input in " + scratch.string() + "; check free space in TMPDIR");
  std::string output;
  const bool ok = run_gnuplot(gnuplot, script, scratch, output);
  std::vector<std::string> svgs;
  for (std::size_t i = 0; i < charts.size(); ++i) {
    svgs.push_back(ok ? slurp(scratch / ("box" + std::to_string(i) + ".svg")) : std::string());
    if (svgs.back().find("</svg>") == std::string::npos)
      throw runtime_error("gnuplot failed on the report's box plots" +
                          (output.empty() ? std::string(" without a message") : ": " + output));
  }
  return svgs;
}

}  // namespace gpubench::detail
