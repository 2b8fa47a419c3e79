// Speedup charts through gnuplot; see speedup_chart.hpp.
#include "report/speedup_chart.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench::detail {

namespace fs = std::filesystem;

namespace {

// The size lines' colours: Tableau 10 and two more that stay apart on white (the roofline's).
const char* const kLineColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                                   "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#ad494a"};
constexpr double kCharPx = 7.2;  // an 11–12 px sans character, wide side (estimates err wide)

std::size_t chars(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string factor_label(double v) { return fmt::format("{:g}×", v); }

std::string one_chart(const speedup_chart& c, std::size_t index, const fs::path& svg, std::size_t& block,
                      std::string& dat) {
  const double band_lo = 1 / (1 + c.threshold), band_hi = 1 + c.threshold;
  double lo = band_lo, hi = band_hi;
  bool labels = false;
  for (const auto& l : c.lines) {
    labels = labels || l.labelled;
    for (const auto& p : l.points) lo = std::min(lo, p.low), hi = std::max(hi, p.high);
  }
  lo /= 1.3;
  hi *= labels ? 1.8 : 1.3;  // room above the highest interval for its value

  const std::string band = fmt::format("same (±{:.3g}%)", 100 * c.threshold);
  std::size_t key_chars = chars(band);
  for (const auto& l : c.lines) key_chars = std::max(key_chars, chars(l.label));
  std::size_t name_chars = 4;
  for (const auto& v : c.variants) name_chars = std::max(name_chars, chars(v));
  const double n = static_cast<double>(std::max<std::size_t>(c.variants.size(), 1));
  const double key_w = static_cast<double>(key_chars) * kCharPx + 70, left = 95;
  double plot_w = std::max(92.0 * n, 320.0);
  double width = left + plot_w + key_w;
  if (width > kPageContentWidth) {
    width = kPageContentWidth;
    plot_w = width - left - key_w;
  }
  const bool rotate = static_cast<double>(name_chars) * kCharPx > plot_w / n - 10;
  const double below = rotate ? static_cast<double>(name_chars) * kCharPx * 0.5 + 34 : 40;
  const double height = 250 + below;

  std::string gp = fmt::format("\n# speedup chart {}\nreset\n", index);
  gp += fmt::format("set terminal svg size {:.0f},{:.0f} dynamic enhanced font 'sans,12' background rgb 'white'\n",
                    width, height);
  gp += "set output " + gnuplot_quote(svg.string()) + "\nset encoding utf8\n";
  gp += "set border 3 lc rgb '#606060'\nset tics nomirror\nset logscale y\n";
  gp += fmt::format("set lmargin at screen {:.4f}\nset rmargin at screen {:.4f}\n", left / width,
                    (left + plot_w) / width);
  gp += fmt::format("set bmargin at screen {:.4f}\nset tmargin at screen {:.4f}\n", below / height,
                    (height - 14) / height);
  gp += fmt::format("set xrange [-0.5:{:g}]\nset yrange [{:.6g}:{:.6g}]\n", n - 0.5, lo, hi);
  gp += "set ytics noenhanced (";
  const std::vector<double> ticks = log_ticks(lo, hi);
  for (std::size_t i = 0; i < ticks.size(); ++i)
    gp += fmt::format("{}{} {:g}", i ? ", " : "", gnuplot_quote(factor_label(ticks[i])), ticks[i]);
  gp += ")\n";
  gp += "set ylabel " +
        gnuplot_quote("speedup over " + (c.variants.empty() ? std::string("the baseline") : c.variants[0]) + " (log)") +
        " noenhanced\n";
  gp += "set grid ytics lc rgb '#e4e4e4'\n";
  // A value label may land on another size's marker: it is drawn on white, so it stays readable.
  gp += "set style textbox opaque fc rgb 'white' noborder margins 1, 0\n";
  gp += fmt::format("set object 1 rect from graph 0, first {:.6g} to graph 1, first {:.6g} fc rgb '#e6e6e6' fs solid "
                    "1.0 noborder behind\n",
                    band_lo, band_hi);
  gp += "set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#8a8a8a' back\n";
  gp += rotate ? "set xtics scale 0 noenhanced rotate by 30 right (" : "set xtics scale 0 noenhanced (";
  for (std::size_t i = 0; i < c.variants.size(); ++i)
    gp += fmt::format("{}{} {}", i ? ", " : "", gnuplot_quote(c.variants[i]), i);
  gp += ")\n";
  gp += "set key outside right top noenhanced samplen 1.5 spacing 1.2 font ',11'\n";

  // Lines side by side around each variant, so that error bars of several sizes stay apart.
  const double lines = static_cast<double>(c.lines.size());
  const double step = std::min(0.1, 0.6 / std::max(lines, 1.0));
  std::string plot = "plot NaN with boxes fs solid 1.0 fc rgb '#e6e6e6' title " + gnuplot_quote(band);
  for (std::size_t j = 0; j < c.lines.size(); ++j) {
    const auto& l = c.lines[j];
    if (l.points.empty()) continue;
    const double dx = (static_cast<double>(j) - (lines - 1) / 2) * step;
    const char* color = kLineColors[j % std::size(kLineColors)];
    std::string rows;
    for (const auto& p : l.points) {
      rows += fmt::format("{:g} {:.6g} {:.6g} {:.6g} {}\n", static_cast<double>(p.variant) + dx, p.estimate, p.low,
                          p.high, p.outside_band ? 1 : 0);
      if (l.labelled && p.variant > 0)
        gp += fmt::format("set label {} at {:g}, {:.6g} center offset 0, 0.8 font ',11' tc rgb '{}' boxed front\n",
                          gnuplot_quote(format_factor(p.estimate)), static_cast<double>(p.variant) + dx, p.high, color);
    }
    dat += fmt::format("# block {}: chart {}, size {}: x, speedup, low, high, outside the same band\n{}\n\n", block,
                       index, j, rows);
    plot += fmt::format(", \\\n  data index {0} using 1:2 with lines lw 1.5 lc rgb '{1}' notitle"
                        ", \\\n  data index {0} using 1:($5 > 0 ? $2 : 1/0):3:4 with yerrorbars pt 7 ps 0.9 lw 1.5 lc "
                        "rgb '{1}' title {2}"
                        ", \\\n  data index {0} using 1:($5 > 0 ? 1/0 : $2):3:4 with yerrorbars pt 6 ps 0.9 lw 1.5 lc "
                        "rgb '{1}' notitle",
                        block, color, gnuplot_quote(l.label.empty() ? "speedup" : l.label));
    ++block;
  }
  return gp + plot + "\n";
}

}  // namespace

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return out;
  if (hi / lo < 2.5) {  // a narrow range (a comparison's ratios): evenly spaced, a 1-2-5 step
    const double raw = (hi - lo) / 4, unit = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw <= unit ? unit : raw <= 2 * unit ? 2 * unit : raw <= 5 * unit ? 5 * unit : 10 * unit;
    for (double k = std::ceil(lo / step); k * step <= hi; ++k) out.push_back(k * step);
    return out;
  }
  const bool fine = std::log10(hi / lo) < 2.5;
  for (int k = static_cast<int>(std::floor(std::log10(lo))); k <= static_cast<int>(std::ceil(std::log10(hi))); ++k)
    for (const double m : fine ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
      const double v = m * std::pow(10.0, k);
      if (v >= lo && v <= hi) out.push_back(v);
    }
  return out;
}

gnuplot_job speedup_charts_gnuplot(const std::vector<speedup_chart>& charts, const fs::path& dir,
                                   const std::string& data_name) {
  gnuplot_job job;
  job.data_name = data_name;
  job.script = "# Speedup charts written by gpubench: per pair, each variant's speedup over its size's baseline.\n";
  job.script += "data = " + gnuplot_quote((dir / data_name).string()) + "\n";
  job.data = "# gpubench speedup chart data; blocks are separated by two blank lines (gnuplot `index`).\n";
  std::size_t block = 0;
  for (std::size_t i = 0; i < charts.size(); ++i) {
    const std::string name = "speedup" + std::to_string(i) + ".svg";
    job.script += one_chart(charts[i], i, dir / name, block, job.data);
    job.outputs.push_back(name);
  }
  return job;
}

}  // namespace gpubench::detail
