// The roofline as a gnuplot chart: a data file and a self-contained, commented script (kept beside
// the image on request, so a user can restyle and re-run it without gpubench). The geometry
// (panels, axes fitted to each panel's points, legends, and label positions clear of each other,
// of markers, roofs and arrows) comes from chart_layout.cpp; this file only writes it down for gnuplot.
//
// Every name in the script comes from a profile, a file name or an argument, any of which someone
// else may have written: gnuplot runs `...` inside a double-quoted string as a shell command (and
// a newline ends a command), so every string is single-quoted by gnuplot_quote and every comment
// goes through comment_text. tests/unit/roofline_hostile_test.cpp holds the script to that.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <numbers>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/format.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/text_file.hpp"
#include "process/gnuplot_process.hpp"
#include "process/spawn.hpp"
#include "roofline/chart_layout.hpp"

namespace gpubench {

namespace fs = std::filesystem;

fs::path find_gnuplot() { return detail::find_program("gnuplot"); }

namespace {

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

std::string gp_quote(const std::string& s) { return gnuplot_quote(s); }

// Text gnuplot draws (titles, labels, keys), as opposed to the paths it opens: made visible and
// safe for the SVG terminal, which does not escape "]]>" (gpubench/escape.hpp).
std::string gp_label(const std::string& s) { return gnuplot_quote(svg_label_text(s)); }

// Text for a `#` comment: no control character (a newline would end the comment and start a
// command) and no backslash (one at the end of a line continues the comment onto the next).
std::string comment_text(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = is_control(c) ? ' ' : c == '\\' ? '/' : c;
  return out;
}

// A string column of the data file, for a person reading it (the plot uses columns 1 and 2 only;
// gnuplot never evaluates data): one line, one column.
std::string data_field(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += is_control(c) ? ' ' : c == '"' ? '\'' : c;
  return out + "\"";
}

// For the messages only, never run: a command the user can paste into a POSIX shell.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A dozen colours that stay apart on white; markers: filled circle for the first series of a
// pair (its baseline), then open shapes, then the filled ones and the crosses: every shape gnuplot
// draws, so two variants at the same speed stay distinguishable.
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                               "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#393b79", "#ad494a"};
const int kPointTypes[] = {7, 8, 4, 12, 10, 14, 6, 9, 5, 11, 13, 15, 1, 2, 3};
static_assert(std::size(kColors) == detail::kColorCount && std::size(kPointTypes) == detail::kMarkerCount,
              "chart_layout.hpp counts the colours and markers a panel draws from");
constexpr std::size_t kColorCount = std::size(kColors), kMarkerCount = std::size(kPointTypes);

std::string screen(double px, double total) { return fmt::format("screen {:.5f}", px / total); }

// Returns the script and the data file's text.
std::pair<std::string, std::string> build_script(const roofline_model& m, const fs::path& out, const fs::path& data,
                                                 bool svg, chart_group group, double width) {
  const detail::chart_layout layout = detail::layout_chart(m, group, width);
  const double W = layout.width, H = layout.height, dram = m.memory[0].value;
  const roof* l2 = nullptr;
  for (const roof& r : m.memory)
    if (r.name == "l2") l2 = &r;

  std::string gp = "# Roofline chart written by gpubench; edit freely and re-run: gnuplot <this file>\n";
  gp += "# Data: " + comment_text(data.filename().string()) + " (blocks listed at each plot command below).\n";
  gp += "# Every position was computed by gpubench for this canvas (labels clear of each other and of the\n"
        "# marks): changing the size or the margins moves text off its place.\n\n";
  // Both paths are absolute: a data file name starting with '<' or an output starting with '|'
  // would be a command to gnuplot.
  gp += "data = " + gp_quote(data.string()) + "\n";
  gp += "set encoding utf8\n";
  gp += svg ? fmt::format("set terminal svg size {:.0f},{:.0f} dynamic enhanced font ',12' background rgb 'white'\n", W, H)
            : fmt::format("# pngcairo draws antialiased text; the plain png terminal is the fallback where cairo is missing.\n"
                          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {{\n  set terminal pngcairo size {0:.0f},{1:.0f} enhanced font ',12'\n"
                          "}} else {{\n  set terminal png size {0:.0f},{1:.0f} enhanced font ',12'\n}}\n", W, H);
  gp += "set output " + gp_quote(out.string()) + "\n";
  gp += "set logscale xy\nset format x '%g'\nset format y '%.0s %cFLOP/s'\n";
  gp += "set grid xtics ytics mxtics mytics lc rgb '#e0e0e0' lw 1, lc rgb '#f0f0f0' lw 1\n";
  gp += "set style textbox opaque fc rgb 'white' noborder\n";  // under a roof label that had to cover data
  gp += "set multiplot\n";
  gp += fmt::format("set label 1 {} at {}, {} center font ',16' noenhanced\n", gp_label(m.title), screen(W / 2, W),
                    screen(H - 26, H));

  std::string dat = "# gpubench roofline data; blocks are separated by two blank lines (gnuplot `index`).\n";
  std::size_t block = 0;
  auto add_block = [&](const std::string& what, const std::string& rows) {
    dat += "# block " + std::to_string(block) + ": " + comment_text(what) + "\n" + rows + "\n\n";
    return block++;
  };

  for (std::size_t k = 0; k < layout.panels.size(); ++k) {
    const detail::chart_panel& panel = layout.panels[k];
    const detail::panel_axes& a = panel.axes;
    gp += fmt::format("\n# ---- panel {}{}\n", k + 1, panel.title.empty() ? "" : ": " + comment_text(panel.title));
    if (k > 0) gp += "unset label\nunset arrow\nunset object\n";
    gp += fmt::format("set lmargin at {}\nset rmargin at {}\nset bmargin at {}\nset tmargin at {}\n", screen(a.area.x0, W),
                      screen(a.area.x1, W), screen(a.area.y0, H), screen(a.area.y1, H));
    gp += fmt::format("set xrange [{:g}:{:g}]\nset yrange [{:g}:{:g}]\n", a.xmin, a.xmax, a.ymin, a.ymax);
    gp += "set xlabel 'arithmetic intensity [FLOP/byte]'\nset ylabel 'performance [FLOP/s]'\n";
    gp += panel.title.empty() && panel.labels_left_out == 0
              ? "unset title\n"
              : fmt::format("set title {} noenhanced font ',14'\n",
                            gp_label(panel.title +
                                     (panel.labels_left_out == 0
                                          ? ""
                                          : fmt::format("{}({} label{} left out where crowded)",
                                                        panel.title.empty() ? "" : "  ", panel.labels_left_out,
                                                        panel.labels_left_out == 1 ? "" : "s"))));
    gp += fmt::format("set key at {}, {} left top Left reverse box opaque noenhanced spacing 1.3 width 1 samplen 2 font ',11'\n",
                      screen(panel.key_x, W), screen(panel.key_y, H));
    for (const detail::placed_label& l : panel.roof_labels)
      gp += fmt::format("set label {} at {:g},{:g} {} offset screen {:.5f},{:.5f}{}{} noenhanced tc rgb '#202020'\n",
                        gp_label(l.text), l.x, l.y, l.align, l.dx / W, l.dy / H,
                        l.angle != 0 ? fmt::format(" rotate by {:.1f}", l.angle) : std::string(),
                        l.boxed ? " boxed front" : "");
    for (const roof& r : panel.compute)
      gp += fmt::format("set object circle at {:g},{:g} size screen 0.0035 fc rgb '#404040' fs solid front  # ridge of {}\n",
                        ridge_point(r.value, dram), r.value, comment_text(r.name));
    for (const detail::placed_label& l : panel.size_labels)
      gp += fmt::format(
          "set label {} at {:g},{:g} {} offset screen {:.5f},{:.5f} font ',11' tc rgb '#303030' noenhanced front\n",
          gp_label(l.text), l.x, l.y, l.align, l.dx / W, l.dy / H);

    // Roofs as polylines clipped to the panel here (the axes hold every ridge and every roof, so
    // only the slope's start needs clipping): DRAM × intensity up to each compute roof's ridge,
    // then the roof; L2 × intensity (dashed) up to the highest roof. Three points per roof, where a
    // sampled function would write thousands into an SVG.
    std::string roofs;
    for (const roof& r : panel.compute) {
      const double x0 = std::max(a.xmin, a.ymin / dram), ridge = ridge_point(r.value, dram);
      roofs += fmt::format("{:.6g} {:.6g}\n{:.6g} {:.6g}\n{:.6g} {:.6g}\n\n", x0, dram * x0, ridge, r.value, a.xmax, r.value);
    }
    if (panel.compute.empty()) {  // every compute roof off the axes: the DRAM slope alone
      const double x0 = std::max(a.xmin, a.ymin / dram), x1 = std::min(a.xmax, a.ymax / dram);
      if (x1 > x0) roofs += fmt::format("{:.6g} {:.6g}\n{:.6g} {:.6g}\n\n", x0, dram * x0, x1, dram * x1);
    }
    std::string plot = "plot \\\n";
    if (!roofs.empty()) {
      const std::size_t b =
          add_block("roofs — intensity, FLOP/s (one polyline per compute roof, or the DRAM slope alone)", roofs);
      plot += fmt::format("  data index {} using 1:2 with lines lw 3 lc rgb '#404040' notitle, \\\n", b);
    }
    if (l2) {
      const double top = panel.compute.empty() ? a.ymax : panel.compute.front().value;
      const double x0 = std::max(a.xmin, a.ymin / l2->value), x1 = std::min(a.xmax, top / l2->value);
      if (x1 > x0) {
        const std::size_t b = add_block("L2 slope — intensity, FLOP/s",
                                        fmt::format("{:.6g} {:.6g}\n{:.6g} {:.6g}\n", x0, l2->value * x0, x1, l2->value * x1));
        plot += fmt::format("  data index {} using 1:2 with lines lw 2 dt 2 lc rgb '#404040' notitle, \\\n", b);
      }
    }

    // Hierarchical roofline: each point's L2 intensity (×, same colour) tied to its DRAM point.
    if (panel.l2_points) {
      std::string ties;
      for (std::size_t i : panel.points) {
        const roof_point& p = m.points[i];
        if (p.l2_intensity > 0)
          ties += fmt::format("{:.6g} {:.6g} {:.6g} {}\n", p.l2_intensity, p.flops_per_s, p.intensity, data_field(p.id));
      }
      const std::size_t b = add_block("L2 intensity — L2 FLOP/B, FLOP/s, DRAM FLOP/B, id", ties);
      plot += fmt::format("  data index {} using 1:2:($3-$1):(0) with vectors nohead dt 3 lw 1 lc rgb '#909090' notitle, \\\n", b);
    }
    // --points both: where the work model would have put each counted point.
    if (panel.model_ties) {
      std::string ties;
      for (std::size_t i : panel.points) {
        const roof_point& p = m.points[i];
        if (p.source != point_source::model)
          ties += fmt::format("{:.6g} {:.6g} {:.6g} {:.6g} {}\n", p.model_intensity, p.model_flops_per_s, p.intensity,
                              p.flops_per_s, data_field(p.id));
      }
      const std::size_t b = add_block("work model → counters — model x, y, counted x, y, id", ties);
      plot += fmt::format("  data index {0} using 1:2:($3-$1):($4-$2) with vectors head filled size screen 0.006,20 dt 2 lw 1 "
                          "lc rgb '#808080' notitle, \\\n  data index {0} using 1:2 with points pt 6 ps 1.2 lc rgb '#808080' "
                          "title {1}, \\\n", b, gp_quote(detail::kKeyModel));
    }

    // One block per series; colour and marker from the layout.
    for (const detail::chart_series& s : panel.series) {
      std::string rows;
      for (std::size_t i : s.points) {
        const roof_point& p = m.points[i];
        rows += fmt::format("{:.6g} {:.6g} {:.6g} {} {}\n", p.intensity, p.flops_per_s, p.l2_intensity, data_field(p.size),
                            data_field(p.id));
      }
      const std::size_t b = add_block(s.key + " — DRAM FLOP/B, FLOP/s, L2 FLOP/B (0: not counted), size, id", rows);
      const char* color = kColors[static_cast<std::size_t>(s.color) % kColorCount];
      plot += fmt::format("  data index {} using 1:2 with points pt {} ps 1.8 lw 2 lc rgb '{}' title {}, \\\n", b,
                          kPointTypes[static_cast<std::size_t>(s.marker) % kMarkerCount], color, gp_label(s.title));
      if (panel.l2_points)
        plot += fmt::format("  data index {} using ($3 > 0 ? $3 : 1/0):2 with points pt 2 ps 1.2 lw 1.5 lc rgb '{}' notitle, \\\n",
                            b, color);
    }
    if (panel.l2_points)
      plot += fmt::format("  NaN with points pt 2 ps 1.2 lw 1.5 lc rgb '#404040' title {}, \\\n", gp_quote(detail::kKeyL2));
    // An amber ring around each point above the roof that bounds it (bound_of: past 100%): the
    // colour of the HTML report's ▲ mark, and none of the series' colours, so it reads as a flag.
    if (!panel.above.empty()) {
      std::string rows;
      for (std::size_t i : panel.above)
        rows += fmt::format("{:.6g} {:.6g} {}\n", m.points[i].intensity, m.points[i].flops_per_s,
                            data_field(m.points[i].id));
      const std::size_t b = add_block("above its roof — DRAM FLOP/B, FLOP/s, id", rows);
      plot += fmt::format("  data index {} using 1:2 with points pt 6 ps 3.2 lw 2 lc rgb '#d99a00' title {}, \\\n", b,
                          gp_quote(detail::kKeyAbove));
    }

    // Arrows from each size's baseline to its variants, edge to edge of the markers (log space, in
    // pixels), so the head never hides the variant's marker; markers nearly touching get none.
    std::string rows;
    for (const auto& [from, to] : panel.arrows) {
      const roof_point &b = m.points[from], &v = m.points[to];
      const double dx = std::log10(v.intensity / b.intensity) * a.xdec_px(), dy = std::log10(v.flops_per_s / b.flops_per_s) * a.ydec_px();
      const double len = std::hypot(dx, dy);
      if (len < 30) continue;
      auto at = [&](double t) {
        return fmt::format("{:.6g} {:.6g}", b.intensity * std::pow(v.intensity / b.intensity, t),
                           b.flops_per_s * std::pow(v.flops_per_s / b.flops_per_s, t));
      };
      rows += fmt::format("{:.6g} {:.6g} {:.6g} {:.6g} {} {}\n", b.intensity, b.flops_per_s, v.intensity, v.flops_per_s,
                          at(11 / len), at(1 - 13 / len));
    }
    if (!rows.empty()) {
      const std::size_t b = add_block("arrows — baseline x, y, variant x, y, drawn from x, y, to x, y", rows);
      plot += fmt::format("  data index {} using 5:6:($7-$5):($8-$6) with vectors head filled size screen 0.006,25 lw 1.2 "
                          "lc rgb '#505050' title {}, \\\n", b, gp_quote(detail::kKeyArrows));
    }
    plot.resize(plot.size() - 4);  // the last ", \\\n"
    gp += plot + "\n";
  }
  gp += "unset multiplot\n";
  return {gp, dat};
}

}  // namespace

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, is_control(c) ? ' ' : c);
  return out + "'";
}

gnuplot_files roofline_gnuplot(const roofline_model& m, const fs::path& image, const fs::path& data, chart_group group,
                               double width) {
  std::string ext = image.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  auto [script, dat] = build_script(m, fs::absolute(image), fs::absolute(data), ext == ".svg", group, width);
  return {std::move(script), std::move(dat)};
}

render_result render_roofline(const roofline_model& m, const fs::path& out, const render_options& o) {
  std::string ext = out.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext != ".png" && ext != ".svg")
    throw usage_error("roofline: cannot render " + out.string() + ": give a .png or .svg file name");
  if (m.points.empty() || m.compute.empty() || m.memory.empty())
    throw usage_error("roofline: nothing to draw (no points or no ceilings)");
  std::error_code ec;
  if (fs::is_directory(out, ec)) throw usage_error(out.string() + " is a directory; give an image file name, e.g. roofline.png");

  render_result r;
  r.image = out;
  // Everything that may be refused is checked before anything is written.
  check_writable(out, o.force, "roofline" + ext);
  if (o.keep_script) {
    r.script = fs::path(out).replace_extension(".gp");
    r.data = fs::path(out).replace_extension(".dat");
    check_writable(r.script, o.force);
    check_writable(r.data, o.force);
    // Absolute paths in the kept script, so it re-runs from any working directory.
    const gnuplot_files kept = roofline_gnuplot(m, out, r.data, o.group, o.width);
    write_text_file(r.data.string(), kept.data, o.force);
    write_text_file(r.script.string(), kept.script, o.force);
  }
  const std::string rerun = r.script.empty() ? "" : "gnuplot " + shell_quote(r.script.string());

  const fs::path gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    r.message = "gnuplot not found on PATH: install it (Debian/Ubuntu: apt-get install gnuplot-nox)" +
                (rerun.empty() ? std::string(", or use --format table") : ", then run: " + rerun);
    return r;
  }

  // gnuplot draws into a private directory; the image then replaces `out` atomically (temporary
  // file beside it, rename), so `out` is never half-drawn and nothing else beside it is touched.
  const detail::private_dir scratch;
  const fs::path image = scratch.path() / ("roofline" + ext), script = scratch.path() / "roofline.gp";
  const gnuplot_files files = roofline_gnuplot(m, image, scratch.path() / "roofline.dat", o.group, o.width);
  if (!(std::ofstream(script, std::ios::binary) << files.script).flush() ||
      !(std::ofstream(scratch.path() / "roofline.dat", std::ios::binary) << files.data).flush())
    throw runtime_error("cannot write gnuplot's input in " + scratch.path().string() + "; check free space in TMPDIR");
  std::string output;  // gnuplot's stdout and stderr, for the message when it fails
  const bool ok = detail::run_gnuplot(gnuplot, script, scratch.path(), output);
  const std::string drawn = ok ? slurp(image) : std::string();
  if (drawn.empty()) {
    r.message = "gnuplot failed" + (output.empty() ? std::string(" without a message; ") : ": " + output + "; ") +
                (rerun.empty() ? "run again with --keep-script to keep the script and data for a look"
                               : "fix the script and run: " + rerun);
    return r;
  }
  write_text_file(out.string(), drawn, o.force);
  r.image_written = true;
  r.message = "wrote " + out.string() +
              (r.script.empty() ? "" : " (script " + r.script.string() + ", data " + r.data.string() + ")");
  return r;
}

}  // namespace gpubench
