// The roofline as a gnuplot chart: a data file and a self-contained, commented script (kept beside
// the image on request, so a user can restyle and re-run it without gpubench). Label positions are
// computed here (gnuplot places text blindly): roof labels sit above their line, in the region no
// honest point reaches, and the chart's geometry is fixed so slopes and text heights are known in
// pixels.
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
#include "gpubench/export.hpp"
#include "gpubench/format.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/roofline.hpp"
#include "roofline/gnuplot_process.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

// 1600×1000 with fixed margins; the right one leaves room for the key, sized from its longest entry.
constexpr double kLeft = 0.11, kBottom = 0.09, kTop = 0.92, kPlotH = 1000 * (kTop - kBottom);
constexpr double kTextH = 22, kCharW = 9;  // pixels of one line of 14-point text, of one character (roughly)

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

std::string gp_quote(const std::string& s) { return gnuplot_quote(s); }

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

double decade_floor(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decade_ceil(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// Log-log axes with known pixels per decade, so text sizes convert into data factors.
struct axes {
  double xmin = 1, xmax = 1, ymin = 1, ymax = 1, right = 0.76;
  [[nodiscard]] double xdec_px() const { return 1600 * (right - kLeft) / std::log10(xmax / xmin); }
  [[nodiscard]] double ydec_px() const { return kPlotH / std::log10(ymax / ymin); }
  [[nodiscard]] double xfactor(double px) const { return std::pow(10.0, px / xdec_px()); }
  [[nodiscard]] double yfactor(double px) const { return std::pow(10.0, px / ydec_px()); }
};

axes layout(const roofline_model& m, double top, double dram, double right) {
  double lo_x = 1e300, hi_x = 0, lo_y = 1e300, hi_y = top;
  for (const roof_point& p : m.points) {
    lo_x = std::min(lo_x, p.intensity), hi_x = std::max(hi_x, p.intensity);
    lo_y = std::min(lo_y, p.flops_per_s), hi_y = std::max(hi_y, p.flops_per_s);
  }
  for (const roof& r : m.compute) lo_x = std::min(lo_x, ridge_point(r.value, dram)), hi_x = std::max(hi_x, ridge_point(r.value, dram));
  axes a{decade_floor(lo_x / 3), decade_ceil(hi_x * 3), decade_floor(lo_y / 3), decade_ceil(hi_y * 3), right};
  // Room for the top roof's label right of its ridge and above its line; widen by decades until it fits.
  for (int i = 0; i < 4 && a.xmax / ridge_point(top, dram) < a.xfactor(42 * kCharW); ++i) a.xmax *= 10;
  for (int i = 0; i < 4 && a.ymax / hi_y < a.yfactor(2.5 * kTextH); ++i) a.ymax *= 10;
  return a;
}

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
// Baseline filled, variants open: two variants at the same speed stay distinguishable.
const int kPointTypes[] = {7, 8, 4, 12, 10, 14};

// Series of points: one per (profile prefix, pair, variant), in point order; the prefix is what
// build_roofline put before ':' when it merged several profiles.
std::string prefix_of(const roof_point& p) {
  const auto colon = p.id.find(':');
  return colon != std::string::npos && colon < p.id.find('/') ? p.id.substr(0, colon + 1) : "";
}

// The size axes that vary within a pair: "m=8192" says more than "batch=40,m=8192,n=256,k=256".
std::map<std::string, std::string> short_sizes(const roofline_model& m) {
  std::map<std::string, std::map<std::size_t, std::set<std::string>>> values;  // pair → axis index → values
  auto split = [](const std::string& s) {
    std::vector<std::string> parts(1);
    for (char c : s) (c == ',') ? void(parts.emplace_back()) : parts.back().push_back(c);
    return parts;
  };
  for (const roof_point& p : m.points) {
    const auto parts = split(p.size);
    for (std::size_t i = 0; i < parts.size(); ++i) values[p.pair][i].insert(parts[i]);
  }
  std::map<std::string, std::string> out;  // point id → short label
  for (const roof_point& p : m.points) {
    std::string label;
    const auto parts = split(p.size);
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (values[p.pair][i].size() > 1) label += (label.empty() ? "" : ",") + parts[i];
    out[p.id] = label;
  }
  return out;
}

// Returns the script and the data file's text.
std::pair<std::string, std::string> build_script(const roofline_model& m, const fs::path& out, const fs::path& data,
                                                 bool svg) {
  const double dram = m.memory[0].value;
  double top = 0;
  for (const roof& r : m.compute) top = std::max(top, r.value);
  std::size_t longest = 20;  // key entries: "prefix:pair/variant"
  for (const roof_point& p : m.points) longest = std::max(longest, prefix_of(p).size() + p.pair.size() + p.variant.size() + 1);
  const axes a = layout(m, top, dram, std::clamp(1 - (static_cast<double>(longest) * 11 + 150) / 1600, 0.55, 0.8));

  std::string gp = "# Roofline chart written by gpubench; edit freely and re-run: gnuplot <this file>\n";
  gp += "# Data: " + comment_text(data.filename().string()) + " (blocks listed at the plot command below).\n\n";
  // Both paths are absolute: a data file name starting with '<' or an output starting with '|'
  // would be a command to gnuplot.
  gp += "data = " + gp_quote(data.string()) + "\n";
  gp += "set encoding utf8\n";
  gp += svg ? "set terminal svg size 1600,1000 dynamic enhanced font ',14' background rgb 'white'\n"
            : "# pngcairo draws antialiased text; the plain png terminal is the fallback where cairo is missing.\n"
              "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n  set terminal pngcairo size 1600,1000 enhanced font ',14'\n"
              "} else {\n  set terminal png size 1600,1000 enhanced font ',14'\n}\n";
  gp += "set output " + gp_quote(out.string()) + "\n\n";
  gp += "set title " + gp_quote(m.title) + " noenhanced font ',16'\n";
  gp += fmt::format("# Fixed margins: gpubench computed label positions and slope angles for this geometry.\n"
                    "set lmargin at screen {}\nset rmargin at screen {}\nset bmargin at screen {}\nset tmargin at screen {}\n",
                    kLeft, a.right, kBottom, kTop);
  gp += fmt::format("set logscale xy\nset xrange [{:g}:{:g}]\nset yrange [{:g}:{:g}]\n", a.xmin, a.xmax, a.ymin, a.ymax);
  gp += "set xlabel 'arithmetic intensity [FLOP/byte]'\nset ylabel 'performance [FLOP/s]'\n";
  gp += "set format x '%g'\nset format y '%.0s %cFLOP/s'\n";
  gp += "set grid xtics ytics mxtics mytics lc rgb '#e0e0e0' lw 1, lc rgb '#f0f0f0' lw 1\n";
  gp += fmt::format("set key at screen {:.3f}, screen 0.92 left top Left reverse box opaque noenhanced spacing 1.3 width 1\n\n",
                  a.right + 0.015);

  // Compute roofs: horizontal from the ridge with DRAM to the right edge. Roofs within 3% share a
  // label ("fp16, bf16"); a label too close to the one above goes under its line instead.
  gp += "# Compute roofs: horizontal lines from the ridge point (where DRAM's slope meets them).\n";
  std::vector<roof> roofs = m.compute;
  std::sort(roofs.begin(), roofs.end(), [](const roof& x, const roof& y) { return x.value > y.value; });
  const double half = std::log10(a.yfactor(kTextH / 2 + 5));  // label centre off its line, decades
  const double height = std::log10(a.yfactor(kTextH));
  double floor_above = std::log10(a.ymax);  // lowest text edge placed so far (log10 FLOP/s)
  for (std::size_t i = 0; i < roofs.size();) {
    std::size_t j = i;
    std::string names;
    while (j < roofs.size() && roofs[j].value >= roofs[i].value * 0.97) names += (names.empty() ? "" : ", ") + roofs[j++].name;
    const double v = roofs[i].value, ridge = ridge_point(v, dram), lv = std::log10(v);
    for (std::size_t k = i; k < j; ++k)
      gp += fmt::format("set arrow from {:g},{:g} to {:g},{:g} nohead back lw 3 lc rgb '#404040'  # {}\n",
                        ridge_point(roofs[k].value, dram), roofs[k].value, a.xmax, roofs[k].value, comment_text(roofs[k].name));
    const bool above = lv + half + height / 2 < floor_above;
    const double ly = std::pow(10.0, above ? lv + half : lv - half);
    floor_above = above ? lv + half - height / 2 : lv - half - height / 2;
    // The ridge point: a dot at the corner, its intensity in the roof's label (text near the corner
    // would collide with the next roof's corner or an L2 slope).
    gp += fmt::format("set label {} at {:g},{:g} right noenhanced tc rgb '#202020'\n",
                      gp_quote(names + " " + format_si(v, "FLOP/s") + fmt::format("  (ridge {:.3g} FLOP/B)", ridge)),
                      a.xmax / a.xfactor(12), ly);
    for (std::size_t k = i; k < j; ++k)
      gp += fmt::format("set object circle at {:g},{:g} size screen 0.004 fc rgb '#404040' fs solid front\n",
                        ridge_point(roofs[k].value, dram), roofs[k].value);
    i = j;
  }

  // Memory roofs: slopes (performance = bandwidth × intensity) up to the highest compute roof,
  // labelled along the slope, rotated by its on-screen angle.
  gp += "\n# Memory roofs: bandwidth × intensity, up to the highest compute roof.\n";
  const double angle = std::atan(a.ydec_px() / a.xdec_px()) * 180 / std::numbers::pi;
  for (const roof& r : m.memory) {
    const double x0 = std::max(a.xmin, a.ymin / r.value), x1 = top / r.value;
    gp += fmt::format("set arrow from {:g},{:g} to {:g},{:g} nohead back lw 3 lc rgb '#404040' {}  # {}\n", x0,
                      r.value * x0, x1, top, r.name == "dram" ? "" : "dt 2", comment_text(r.name));
    const double lx = x0 * std::pow(x1 / x0, 0.08);
    std::string upper = r.name;  // "DRAM", "L2" as people write them
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // DRAM's label goes below its slope and the other memory roofs' above theirs, so that two
    // nearly parallel slopes (DRAM and L2) never stack their labels on one another.
    const double offset_px = r.name == "dram" ? -34 : 15;
    gp += fmt::format("set label {} at {:g},{:g} left rotate by {:.1f} noenhanced tc rgb '#202020'\n",
                      gp_quote(upper + " " + format_si(r.value, "B/s")), lx,
                      r.value * lx * a.yfactor(offset_px / std::cos(angle * std::numbers::pi / 180)), angle);
  }

  // Data blocks: one per series (prefix, pair, variant), then arrows per pair, then size labels.
  // Colour tells the pair, the marker the variant (by order of appearance within its pair).
  const auto sizes = short_sizes(m);
  std::vector<std::string> series;
  std::map<std::string, std::size_t> color_of, marker_of, variants_in;
  for (const roof_point& p : m.points) {
    const std::string pair = prefix_of(p) + p.pair, key = pair + "/" + p.variant;
    if (std::find(series.begin(), series.end(), key) != series.end()) continue;
    series.push_back(key);
    color_of.try_emplace(pair, color_of.size());
    marker_of[key] = variants_in[pair]++;
  }
  std::string dat = "# gpubench roofline data; blocks are separated by two blank lines (gnuplot `index`).\n";
  std::string plot = "\n# One marker per measured point; arrows run from each size's baseline to its variants.\nplot \\\n";
  std::size_t block = 0;
  for (const std::string& key : series) {
    dat += "# block " + std::to_string(block) + ": " + comment_text(key) + " — intensity [FLOP/B], performance [FLOP/s], size, id\n";
    std::string pair;
    for (const roof_point& p : m.points)
      if (prefix_of(p) + p.pair + "/" + p.variant == key) {
        dat += fmt::format("{:.6g} {:.6g} {} {}\n", p.intensity, p.flops_per_s, data_field(sizes.at(p.id)), data_field(p.id));
        pair = prefix_of(p) + p.pair;
      }
    dat += "\n\n";
    plot += fmt::format("  data index {} using 1:2 with points pt {} ps 2 lw 2 lc rgb '{}' title {}, \\\n", block++,
                        kPointTypes[marker_of[key] % 6], kColors[color_of[pair] % 8], gp_quote(key));
  }
  bool arrow_titled = false;
  for (const auto& [pair, color] : color_of) {
    std::string rows;
    for (const auto& [from, to] : m.arrows) {
      const roof_point &b = m.points[from], &v = m.points[to];
      if (prefix_of(b) + b.pair != pair) continue;
      // Drawn from the edge of one marker to the edge of the other (log space, in pixels), so the
      // head never hides the variant's marker; markers nearly touching get no arrow.
      const double dx = std::log10(v.intensity / b.intensity) * a.xdec_px(), dy = std::log10(v.flops_per_s / b.flops_per_s) * a.ydec_px();
      const double len = std::hypot(dx, dy);
      if (len < 36) continue;
      auto at = [&](double t) { return fmt::format("{:.6g} {:.6g}", b.intensity * std::pow(v.intensity / b.intensity, t),
                                                   b.flops_per_s * std::pow(v.flops_per_s / b.flops_per_s, t)); };
      rows += fmt::format("{:.6g} {:.6g} {:.6g} {:.6g} {} {}\n", b.intensity, b.flops_per_s, v.intensity, v.flops_per_s,
                          at(12 / len), at(1 - 14 / len));
    }
    if (rows.empty()) continue;
    dat += "# block " + std::to_string(block) + ": arrows of " + comment_text(pair) +
           " — baseline x, y, variant x, y, drawn from x, y, to x, y\n" + rows + "\n\n";
    plot += fmt::format("  data index {} using 5:6:($7-$5):($8-$6) with vectors head filled size screen 0.008,25 lw 1.5 "
                        "lc rgb '{}' {}, \\\n", block++, kColors[color % 8],
                        arrow_titled ? "notitle" : "title 'baseline → variant'");
    arrow_titled = true;
  }
  // Size labels beside each size's first point only (its variants share the intensity): right of
  // the marker, else below or above it, whichever keeps the text off every compute roof.
  std::set<std::string> labelled;
  for (const roof_point& p : m.points) {
    if (sizes.at(p.id).empty() || !labelled.insert(prefix_of(p) + p.pair + "[" + p.size + "]").second) continue;
    const double step = a.yfactor(1.5 * kTextH);
    const std::pair<double, const char*> spots[] = {
        {p.flops_per_s, "left offset char 1.5,0"}, {p.flops_per_s / step, "center offset 0,-1.5"}, {p.flops_per_s * step, "center offset 0,1.5"}};
    auto clear = [&](double y) {
      return std::none_of(m.compute.begin(), m.compute.end(), [&](const roof& r) {
        return p.intensity * 1.2 > ridge_point(r.value, dram) && std::fabs(std::log10(y / r.value)) < height * 0.7;
      });
    };
    const auto* spot = std::find_if(std::begin(spots), std::end(spots), [&](const auto& s) { return clear(s.first); });
    if (spot == std::end(spots)) spot = std::begin(spots);
    gp += fmt::format("set label {} at {:g},{:g} {} font ',12' tc rgb '#303030' noenhanced front\n",
                      gp_quote(sizes.at(p.id)), p.intensity, p.flops_per_s, spot->second);
  }
  plot.resize(plot.size() - 4);  // the last ", \\\n"
  return {gp + plot + "\n", dat};
}

}  // namespace

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, is_control(c) ? ' ' : c);
  return out + "'";
}

gnuplot_files roofline_gnuplot(const roofline_model& m, const fs::path& image, const fs::path& data) {
  std::string ext = image.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  auto [script, dat] = build_script(m, fs::absolute(image), fs::absolute(data), ext == ".svg");
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
  check_writable(out, o.force);
  if (o.keep_script) {
    r.script = fs::path(out).replace_extension(".gp");
    r.data = fs::path(out).replace_extension(".dat");
    check_writable(r.script, o.force);
    check_writable(r.data, o.force);
    // Absolute paths in the kept script, so it re-runs from any working directory.
    const gnuplot_files kept = roofline_gnuplot(m, out, r.data);
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
  const gnuplot_files files = roofline_gnuplot(m, image, scratch.path() / "roofline.dat");
  if (!(std::ofstream(script, std::ios::binary) << files.script).flush() ||
      !(std::ofstream(scratch.path() / "roofline.dat", std::ios::binary) << files.data).flush())
    throw runtime_error("cannot write gnuplot's input in " + scratch.path().string() + "; check free space in TMPDIR");
  std::string output;  // gnuplot's stdout and stderr, for the message when it fails
  const bool ok = detail::run_gnuplot(gnuplot, script, scratch.path(), output);
  const std::string drawn = ok ? slurp(image) : std::string();
  if (drawn.empty()) {
    if (!output.empty() && output.back() != '\n') output += '\n';
    r.message = "gnuplot failed" + (output.empty() ? std::string(" without a message; ") : ":\n" + output) +
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
