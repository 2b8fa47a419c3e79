// Tuning grids as heatmaps through gnuplot; see tuning_heatmap.hpp.
#include "report/tuning_heatmap.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpubench/format.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench::detail {

namespace fs = std::filesystem;

namespace {

constexpr double kCharPx = 7.2;  // an 11–12 px sans character, wide side
constexpr double kCellH = 30, kTop = 40, kBottom = 54, kColorbox = 118;

std::size_t chars(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string axis_name(const std::string& tag, const std::map<std::string, std::string>& names) {
  const auto it = names.find(tag);
  return it == names.end() || it->second.empty() ? tag : tag + ": " + it->second;
}

// Light for the fastest, dark for the slowest (ColorBrewer's Oranges): the eye goes to the dark
// cells first, and those are the configurations to avoid.
constexpr const char* kPalette = "set palette defined (0 '#fff5eb', 0.35 '#fdae6b', 0.7 '#e6550d', 1 '#7f2704')\n";

}  // namespace

std::optional<tuning_heatmap> heatmap_of(const std::vector<const record*>& records,
                                         const std::vector<std::string>& sizes,
                                         const std::vector<std::string>& size_labels,
                                         const std::map<std::string, std::string>& param_names) {
  std::vector<std::string> tags;
  for (const record* r : records)
    if (r->tuning && !r->tuning->config.empty()) {
      for (const auto& [tag, v] : r->tuning->config.values()) tags.push_back(tag);
      break;
    }
  if (tags.empty()) return std::nullopt;
  // Column: the first parameter's value; row: the others' values. Both ascending.
  std::vector<std::int64_t> xs;
  std::vector<std::vector<std::int64_t>> ys;
  const auto place = [&](const record& r) -> std::optional<std::pair<std::int64_t, std::vector<std::int64_t>>> {
    if (!r.tuning || r.tuning->config.values().size() != tags.size()) return std::nullopt;
    std::vector<std::int64_t> rest;
    for (std::size_t i = 0; i < tags.size(); ++i) {
      if (r.tuning->config.values()[i].first != tags[i]) return std::nullopt;
      if (i > 0) rest.push_back(r.tuning->config.values()[i].second);
    }
    return std::pair{r.tuning->config.values()[0].second, rest};
  };
  for (const record* r : records)
    if (const auto p = place(*r)) {
      if (std::find(xs.begin(), xs.end(), p->first) == xs.end()) xs.push_back(p->first);
      if (std::find(ys.begin(), ys.end(), p->second) == ys.end()) ys.push_back(p->second);
    }
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());

  tuning_heatmap m;
  m.x_name = axis_name(tags[0], param_names);
  for (std::size_t i = 1; i < tags.size(); ++i) m.y_name += (i > 1 ? ", " : "") + axis_name(tags[i], param_names);
  for (const std::int64_t x : xs) m.x_ticks.push_back(std::to_string(x));
  for (const auto& y : ys) {
    std::string label;
    for (std::size_t i = 0; i < y.size(); ++i) label += (i ? " " : "") + tags[i + 1] + "=" + std::to_string(y[i]);
    m.y_ticks.push_back(label);
  }
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    tuning_heatmap::panel panel;
    panel.title = k < size_labels.size() && !size_labels[k].empty() ? size_labels[k] : sizes[k];
    const record* first = nullptr;
    bool timed = false;
    for (const record* r : records) {
      if (r->size.to_string() != sizes[k]) continue;
      if (first == nullptr) first = r;
      const auto p = place(*r);
      if (!p) continue;
      tuning_heatmap::cell c;
      c.name = r->variant;
      c.x = static_cast<std::size_t>(std::find(xs.begin(), xs.end(), p->first) - xs.begin());
      c.y = static_cast<std::size_t>(std::find(ys.begin(), ys.end(), p->second) - ys.begin());
      if (r->status == record_status::passed && r->stats && r->stats->median > 0 && std::isfinite(r->stats->median))
        c.time_s = r->stats->median;
      c.best = r->tuning->rank == 1;
      c.baseline = r == first;
      timed = timed || c.time_s > 0;
      panel.cells.push_back(c);
    }
    if (timed) m.panels.push_back(std::move(panel));
  }
  if (m.panels.empty()) return std::nullopt;
  return m;
}

gnuplot_job tuning_heatmaps_gnuplot(const std::vector<tuning_heatmap>& maps, const fs::path& dir,
                                    const std::string& data_name) {
  gnuplot_job job;
  job.data_name = data_name;
  job.script = "# Tuning heatmaps written by gpubench: per size, each configuration's median time over the best.\n";
  job.script += "data = " + gnuplot_quote((dir / data_name).string()) + "\n";
  job.data = "# gpubench tuning heatmap data; blocks are separated by two blank lines (gnuplot `index`).\n";
  std::size_t block = 0;
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const tuning_heatmap& m = maps[i];
    const std::string name = "heatmap" + std::to_string(i) + ".svg";
    job.outputs.push_back(name);
    std::size_t tick_chars = 9;  // a time label, "41.23 µs"
    for (const auto& t : m.x_ticks) tick_chars = std::max(tick_chars, chars(t));
    std::size_t y_chars = 2;
    for (const auto& t : m.y_ticks) y_chars = std::max(y_chars, chars(t));
    const double nx = static_cast<double>(m.x_ticks.size()), ny = static_cast<double>(m.y_ticks.size());
    const double cell_w = static_cast<double>(tick_chars) * kCharPx + 8;
    const double left = static_cast<double>(y_chars) * kCharPx + (m.y_name.empty() ? 24 : 46);
    const double panel_w =
        std::max(left + nx * cell_w + kColorbox, static_cast<double>(chars(m.x_name)) * kCharPx + left + kColorbox);
    const double panel_h = kTop + ny * kCellH + kBottom;
    const std::size_t cols =
        std::max<std::size_t>(1, std::min(m.panels.size(), static_cast<std::size_t>(kPageContentWidth / panel_w)));
    const std::size_t rows = (m.panels.size() + cols - 1) / cols;
    const double W = panel_w * static_cast<double>(cols), H = panel_h * static_cast<double>(rows);
    const auto sx = [&](double px) { return fmt::format("screen {:.5f}", px / W); };
    const auto sy = [&](double px) { return fmt::format("screen {:.5f}", px / H); };

    std::string gp = fmt::format("\n# heatmap {}\nreset\n", i);
    gp += fmt::format("set terminal svg size {:.0f},{:.0f} dynamic enhanced font 'sans,12' background rgb 'white'\n", W,
                      H);
    gp += "set output " + gnuplot_quote((dir / name).string()) + "\nset encoding utf8\n" + kPalette;
    gp += "set border 0\nset tics scale 0\nset xtics noenhanced\nset ytics noenhanced\n";
    gp += fmt::format("set xrange [-0.5:{:g}]\nset yrange [-0.5:{:g}]\n", nx - 0.5, ny - 0.5);
    gp += "set xtics (";
    for (std::size_t x = 0; x < m.x_ticks.size(); ++x)
      gp += fmt::format("{}{} {}", x ? ", " : "", gnuplot_quote(m.x_ticks[x]), x);
    gp += ")\nset ytics (";
    for (std::size_t y = 0; y < m.y_ticks.size(); ++y)
      gp += fmt::format("{}{} {}", y ? ", " : "", gnuplot_quote(m.y_ticks[y]), y);
    gp += ")\n";
    gp += "set xlabel " + gnuplot_quote(m.x_name) + " noenhanced offset 0, 0.3\n";
    gp += m.y_name.empty() ? "unset ylabel\n" : "set ylabel " + gnuplot_quote(m.y_name) + " noenhanced\n";
    gp += "set cblabel 'median ÷ best' font ',11'\nset cbtics font ',11' format '%g×'\nset multiplot\n";
    for (std::size_t k = 0; k < m.panels.size(); ++k) {
      const tuning_heatmap::panel& p = m.panels[k];
      const double x0 = panel_w * static_cast<double>(k % cols), top = H - panel_h * static_cast<double>(k / cols);
      const double px0 = x0 + left, px1 = px0 + nx * cell_w, py1 = top - kTop, py0 = py1 - ny * kCellH;
      double best = 0, worst = 0;
      for (const auto& c : p.cells)
        if (c.time_s > 0) best = best > 0 ? std::min(best, c.time_s) : c.time_s, worst = std::max(worst, c.time_s);
      const double hi = std::max(worst / best, 1.02);
      const bool log = hi > 4;
      gp += fmt::format("\n# panel {}\nunset label\nunset object\n", k + 1);
      gp += fmt::format("set lmargin at {}\nset rmargin at {}\nset bmargin at {}\nset tmargin at {}\n", sx(px0),
                        sx(px1), sy(py0), sy(py1));
      gp += fmt::format("set colorbox user origin {}, {} size {}, {}\n", sx(px1 + 12), sy(py0), sx(14), sy(py1 - py0));
      gp += fmt::format("set cbrange [1:{:.6g}]\n{}", hi, log ? "set logscale cb\n" : "unset logscale cb\n");
      const tuning_heatmap::cell* winner = nullptr;
      std::string rows_text;
      for (const auto& c : p.cells) {
        const double x = static_cast<double>(c.x), y = static_cast<double>(c.y);
        if (c.best) winner = &c;
        if (c.time_s > 0) {
          const double ratio = c.time_s / best;
          const double shade = log ? std::log(ratio) / std::log(hi) : (ratio - 1) / (hi - 1);
          rows_text += fmt::format("{:g} {:g} {:.6g}\n", x, y, ratio);
          gp += fmt::format("set label {} at {:g},{:g} center font ',11' tc rgb '{}' front\n",
                            gnuplot_quote(format_duration(c.time_s)), x, y, shade > 0.55 ? "#ffffff" : "#1d2125");
        } else {
          gp +=
              fmt::format("set object rect from {:g},{:g} to {:g},{:g} fc rgb '#e8e8e8' fs solid 1.0 noborder behind\n",
                          x - 0.5, y - 0.5, x + 0.5, y + 0.5);
          gp += fmt::format("set label 'not timed' at {:g},{:g} center font ',11' tc rgb '#5f6b76' front\n", x, y);
        }
        if (c.baseline)
          gp += fmt::format(
              "set object rect from {:g},{:g} to {:g},{:g} fs empty border lc rgb '#1d2125' lw 2 dt 2 front\n",
              x - 0.46, y - 0.44, x + 0.46, y + 0.44);
        if (c.best)
          gp +=
              fmt::format("set object rect from {:g},{:g} to {:g},{:g} fs empty border lc rgb '#000000' lw 3.5 front\n",
                          x - 0.48, y - 0.47, x + 0.48, y + 0.47);
      }
      std::string title = p.title;
      if (winner != nullptr) title += "  ·  best " + winner->name + " " + format_duration(winner->time_s);
      gp += "set title " + gnuplot_quote(title) + " noenhanced font ',12'\n";
      job.data +=
          fmt::format("# block {}: heatmap {}, panel {}: column, row, median ÷ best\n{}\n\n", block, i, k, rows_text);
      gp += fmt::format(
          "plot data index {} using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette notitle\n",
          block++);
    }
    job.script += gp + "unset multiplot\n";
  }
  return job;
}

}  // namespace gpubench::detail
