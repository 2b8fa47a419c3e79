// The roofline chart's geometry: panels, fitted axes, legends and collision-free labels
// (see chart_layout.hpp for why it is computed here rather than left to gnuplot).
#include "roofline/chart_layout.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpubench/format.hpp"

namespace gpubench::detail {

namespace {

constexpr double kTitleBand = 50;                      // the chart's title, above every panel
constexpr double kLeftMargin = 150, kBottomMargin = 62, kPanelTitle = 36, kRightGap = 40;
constexpr double kMarkerHalf = 9;                      // half the side of a marker's box, pixels
constexpr std::size_t kMaxSeriesInOnePanel = 12;       // chart_group::automatic's threshold
// On a page (a canvas of the page's width, some 1200 px) a panel has half the room of a standalone
// image, and a chapter's nine series in one panel already left six labels out: one pair per panel
// beyond this many series.
constexpr std::size_t kMaxSeriesInOnePagePanel = 6;

double nice_floor(double v) {  // the largest 1·10^k or 3·10^k at or below v
  const double d = std::pow(10.0, std::floor(std::log10(v)));
  return v >= 3 * d ? 3 * d : d;
}
double nice_ceil(double v) {  // the smallest 1·10^k or 3·10^k at or above v
  const double d = std::pow(10.0, std::floor(std::log10(v)));
  if (v <= d) return d;
  return v <= 3 * d ? 3 * d : 10 * d;
}
double next_nice(double v) { return nice_ceil(v * 1.0001); }

// The sizes' axes that vary within a pair: "m=8192" says more than "batch=40,m=8192,n=256,k=256".
std::map<std::string, std::string> short_sizes(const roofline_model& m) {
  auto split = [](const std::string& s) {
    std::vector<std::string> parts(1);
    for (char c : s) (c == ',') ? void(parts.emplace_back()) : parts.back().push_back(c);
    return parts;
  };
  std::map<std::string, std::map<std::size_t, std::set<std::string>>> values;  // pair → axis index → values
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

std::string panel_key(const roof_point& p, chart_group g) {
  switch (g) {
    case chart_group::chapter: return std::to_string(p.chapter);
    case chart_group::pair: return fmt::format("{:02d}/{}", p.chapter, p.pair);
    default: return "";
  }
}

std::size_t series_count(const roofline_model& m) {
  std::set<std::string> keys;
  for (const roof_point& p : m.points) keys.insert(prefix_of(p) + p.pair + "/" + p.variant);
  return keys.size();
}

chart_group resolve(const roofline_model& m, chart_group g, bool page) {
  if (g != chart_group::automatic) return g;
  if (series_count(m) <= (page ? kMaxSeriesInOnePagePanel : kMaxSeriesInOnePanel)) return chart_group::none;
  std::set<int> chapters;
  for (const roof_point& p : m.points) chapters.insert(p.chapter);
  return chapters.size() > 1 ? chart_group::chapter : chart_group::pair;
}

// The series of a panel, their legend titles, colours and markers. Inside a pair's panel each
// series gets its own colour; elsewhere the colour tells the pair and the marker the variant. A
// (colour, marker) already taken in the panel moves on to the next free marker, then colour, so no
// two series of a panel look alike (a pair with more variants than markers would repeat one).
void build_series(const roofline_model& m, chart_group g, chart_panel& panel) {
  // One profile's prefix on every point of the panel goes into its title, not into every entry.
  std::set<std::string> prefixes;
  for (std::size_t i : panel.points) prefixes.insert(prefix_of(m.points[i]));
  const bool shared = prefixes.size() == 1;
  if (shared && !prefixes.begin()->empty() && !panel.title.empty())
    panel.title += " — " + prefixes.begin()->substr(0, prefixes.begin()->size() - 1);
  std::map<std::string, int> color_of, variants_in;
  std::set<std::pair<int, int>> used;
  for (std::size_t i : panel.points) {
    const roof_point& p = m.points[i];
    const std::string pair = prefix_of(p) + p.pair, key = pair + "/" + p.variant;
    auto it = std::find_if(panel.series.begin(), panel.series.end(), [&](const chart_series& s) { return s.key == key; });
    if (it == panel.series.end()) {
      chart_series s;
      s.key = key;
      const std::string prefix = shared ? "" : prefix_of(p);
      s.title = g == chart_group::pair ? prefix + p.variant : prefix + p.pair + "/" + p.variant;
      int color = 0, marker = 0;
      if (g == chart_group::pair) {
        color = static_cast<int>(panel.series.size()) % kColorCount;
        marker = static_cast<int>(panel.series.size()) % kMarkerCount;
      } else {
        color = color_of.try_emplace(pair, static_cast<int>(color_of.size()) % kColorCount).first->second;
        marker = variants_in[pair]++ % kMarkerCount;
      }
      for (int tries = 0; used.count({color, marker}) && tries < kColorCount * kMarkerCount; ++tries) {
        marker = (marker + 1) % kMarkerCount;
        if (marker == 0) color = (color + 1) % kColorCount;
      }
      used.insert({color, marker});
      s.color = color;
      s.marker = marker;
      panel.series.push_back(std::move(s));
      it = panel.series.end() - 1;
    }
    it->points.push_back(i);
  }
}

// The roofs a panel draws: those of the kinds its points use, so an FP32 pair's panel does not
// stretch up to the FP8 tensor peak. A kind the ceilings lack is judged against the highest roof
// (bound_of does the same), so that one is drawn instead.
std::vector<roof> panel_roofs(const roofline_model& m, const chart_panel& panel) {
  std::vector<roof> out;
  const roof* highest = nullptr;
  for (const roof& r : m.compute)
    if (!highest || r.value > highest->value) highest = &r;
  for (std::size_t i : panel.points) {
    const auto it = std::find_if(m.compute.begin(), m.compute.end(), [&](const roof& r) { return r.name == m.points[i].flops_kind; });
    const roof& r = it != m.compute.end() ? *it : *highest;
    if (std::none_of(out.begin(), out.end(), [&](const roof& o) { return o.name == r.name; })) out.push_back(r);
  }
  std::sort(out.begin(), out.end(), [](const roof& a, const roof& b) { return a.value > b.value; });
  return out;
}

const roof* l2_roof(const roofline_model& m) {
  for (const roof& r : m.memory)
    if (r.name == "l2") return &r;
  return nullptr;
}

void fit_axes(const roofline_model& m, chart_panel& panel) {
  const double dram = m.memory[0].value;
  double lo_x = 1e300, hi_x = 0, lo_y = 1e300, hi_y = 0;
  auto take_x = [&](double v) { if (v > 0 && std::isfinite(v)) lo_x = std::min(lo_x, v), hi_x = std::max(hi_x, v); };
  auto take_y = [&](double v) { if (v > 0 && std::isfinite(v)) lo_y = std::min(lo_y, v), hi_y = std::max(hi_y, v); };
  for (std::size_t i : panel.points) {
    const roof_point& p = m.points[i];
    take_x(p.intensity);
    take_y(p.flops_per_s);
    if (panel.l2_points) take_x(p.l2_intensity);
    if (panel.model_ties) take_x(p.model_intensity), take_y(p.model_flops_per_s);
  }
  // A compute roof whose ridge lies more than a decade right of every point bounds none of them
  // (the slope does): reaching out to it would squeeze the points into a corner of the panel (on
  // an H100, a 0.3 FLOP/B kernel and FP32's ridge at 22). The title names it instead.
  std::vector<roof> shown;
  const double data_x = hi_x;
  for (const roof& r : panel.compute) {
    if (ridge_point(r.value, dram) > data_x * 10) {
      panel.beyond.push_back(r);
      continue;
    }
    shown.push_back(r);
    take_x(ridge_point(r.value, dram));
    take_y(r.value);
  }
  panel.compute = shown;
  panel_axes& a = panel.axes;
  a.xmin = nice_floor(lo_x / 1.6);
  a.xmax = nice_ceil(hi_x * 1.6);
  a.ymin = nice_floor(lo_y / 2);
  a.ymax = nice_ceil(hi_y * 1.3);
  // Room above the highest roof for its label; then at least one decade along each axis, so the
  // log axes have a labelled tic.
  for (int i = 0; i < 6 && a.px_y(a.ymax) - a.px_y(hi_y) < kRoofH + 14; ++i) a.ymax = next_nice(a.ymax);
  for (bool low = true; a.xmax / a.xmin < 10; low = !low) (low ? a.xmin = nice_floor(a.xmin / 1.01) : a.xmax = next_nice(a.xmax));
  while (a.ymax / a.ymin < 10) a.ymin = nice_floor(a.ymin / 1.01);
}

px_box text_box(double x, double y, const std::string& align, double chars, double char_w, double h) {
  const double w = chars * char_w;
  const double x0 = align == "left" ? x : align == "right" ? x - w : x - w / 2;
  return {x0, y - h / 2, x0 + w, y + h / 2};
}

// UTF-8 text length in characters (the labels hold "—" and "→").
double chars_of(const std::string& s) {
  double n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Boxes of side 2·half every ~6 pixels along a segment: a line as an obstacle to labels.
void sample_segment(double x0, double y0, double x1, double y1, double half, std::vector<px_box>& out) {
  const int n = std::max(1, static_cast<int>(std::ceil(std::hypot(x1 - x0, y1 - y0) / 6)));
  for (int k = 0; k <= n; ++k) {
    const double t = static_cast<double>(k) / n, x = x0 + t * (x1 - x0), y = y0 + t * (y1 - y0);
    out.push_back({x - half, y - half, x + half, y + half});
  }
}

bool clear_of(const std::vector<px_box>& parts, const std::vector<px_box>& obstacles) {
  return std::none_of(parts.begin(), parts.end(), [&](const px_box& p) {
    return std::any_of(obstacles.begin(), obstacles.end(), [&](const px_box& o) { return o.overlaps(p); });
  });
}

// A memory roof's visible slope, from where it enters the plot to where it meets the highest
// compute roof drawn, in canvas pixels.
bool slope_px(const chart_panel& panel, const roof& r, double& x0, double& x1) {
  const panel_axes& a = panel.axes;
  const double top = panel.compute.empty() ? a.ymax : panel.compute.front().value;
  x0 = std::max(a.xmin, a.ymin / r.value);
  x1 = std::min(a.xmax, top / r.value);
  return x1 > x0;
}

// Roofs within 6% of each other share a label ("bf16 799 TFLOP/s, fp16 769 TFLOP/s"): two labels
// that close would stack on one another. `marks`: the markers; `taken`: markers, lines and labels;
// `slopes[k]`: memory roof k's line.
void place_roof_labels(const roofline_model& m, chart_panel& panel, const std::vector<px_box>& marks,
                       std::vector<px_box>& taken, std::vector<px_box>& labels,
                       const std::vector<std::vector<px_box>>& slopes) {
  const panel_axes& a = panel.axes;
  const double dram = m.memory[0].value;
  // Every line is an obstacle to every label, from its ridge to the right edge.
  for (const roof& r : panel.compute) {
    const double line = a.px_y(r.value);
    const double ridge = a.px_x(ridge_point(r.value, dram));
    taken.push_back({std::max(a.area.x0, ridge), line - 3, a.area.x1, line + 3});
    taken.push_back({ridge - 7, line - 7, ridge + 7, line + 7});  // its ridge dot
  }
  std::vector<px_box> with_slopes = taken;
  for (const auto& sl : slopes) with_slopes.insert(with_slopes.end(), sl.begin(), sl.end());
  for (std::size_t i = 0; i < panel.compute.size();) {
    std::size_t j = i;
    std::string text;
    while (j < panel.compute.size() && panel.compute[j].value >= panel.compute[i].value * 0.94) {
      text += (text.empty() ? "" : ", ") + panel.compute[j].name + " " + format_si(panel.compute[j].value, "FLOP/s");
      ++j;
    }
    const double v = panel.compute[i].value;
    const std::string full = j == i + 1 ? text + fmt::format("  (ridge {:.3g} FLOP/B)", ridge_point(v, dram)) : text;
    placed_label l;
    l.y = v;
    l.align = "right";
    const double line = a.px_y(v), off = kRoofH / 2 + 4;
    // Right-aligned at the right edge, then further left, above the line before below it: the
    // first spot clear of every marker, line, arrow and label; then the same without the ridge's
    // intensity; then one that crosses a line but no marker; failing all, one clear of labels
    // only, drawn on an opaque box over what it covers (a roof is never left unnamed).
    std::vector<px_box> marks_and_labels = marks;
    marks_and_labels.insert(marks_and_labels.end(), labels.begin(), labels.end());
    const std::pair<const std::string*, const std::vector<px_box>*> attempts[] = {{&full, &with_slopes},
                                                                                  {&text, &with_slopes},
                                                                                  {&text, &marks_and_labels},
                                                                                  {&text, &labels}};
    bool placed = false;
    for (std::size_t pass = 0; pass < std::size(attempts) && !placed; ++pass) {
      const std::string& t = *attempts[pass].first;
      const double chars = chars_of(t), w = chars * kRoofCharW;
      for (double right = a.area.x1 - 8; right - w >= a.area.x0 + 4 && !placed; right -= 20)
        for (const double dy : {off, -off}) {
          const px_box box = text_box(right, line + dy, "right", chars, kRoofCharW, kRoofH);
          if (!box.inside(a.area) || !clear_of({box}, *attempts[pass].second)) continue;
          l.text = t;
          l.box = box;
          l.parts = {box};
          l.dy = dy;
          // Anchored at the right edge's intensity, moved left in pixels.
          l.x = a.xmax;
          l.dx = right - a.area.x1;
          l.boxed = pass == std::size(attempts) - 1;
          placed = true;
          break;
        }
    }
    if (placed) {
      taken.push_back(l.box);
      with_slopes.push_back(l.box);
      labels.push_back(l.box);
      panel.roof_labels.push_back(std::move(l));
    } else {
      ++panel.labels_left_out;
    }
    i = j;
  }
  // Memory roofs, labelled along their slope: the first spot, from where the slope enters the plot
  // upwards, above or below the line, clear of every marker, other line, arrow and label (the
  // region under a slope is where memory-bound points land); then one that crosses a line but no
  // marker; failing both, one clear of labels, on an opaque box.
  const double angle = std::atan(a.ydec_px() / a.xdec_px());
  for (std::size_t k = 0; k < m.memory.size(); ++k) {
    const roof& r = m.memory[k];
    double x0 = 0, x1 = 0;
    if (!slope_px(panel, r, x0, x1)) continue;
    std::vector<px_box> against = taken;
    for (std::size_t o = 0; o < slopes.size(); ++o)
      if (o != k) against.insert(against.end(), slopes[o].begin(), slopes[o].end());
    std::string upper = r.name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    placed_label l;
    l.text = upper + " " + format_si(r.value, "B/s");
    l.angle = angle * 180 / std::acos(-1.0);
    const double w = chars_of(l.text) * kRoofCharW, h = kRoofH;
    std::vector<px_box> marks_only = marks;  // pass 1 may cross lines, never a marker
    bool placed = false;
    for (int pass = 0; pass < 3 && !placed; ++pass)
      for (const double t : {0.06, 0.16, 0.26, 0.36, 0.46, 0.56, 0.66})
        for (const double side : {1.0, -1.0}) {
          if (placed) break;
          const double x = x0 * std::pow(x1 / x0, t), offset = side * (h / 2 + 6);
          const double dx = -offset * std::sin(angle), dy = offset * std::cos(angle);
          // The rotated text as squares along its baseline, and its axis-aligned bounding box.
          const double ax = a.px_x(x) + dx, ay = a.px_y(r.value * x) + dy;
          const int n = std::max(1, static_cast<int>(std::ceil(w / h)));
          std::vector<px_box> parts;
          for (int q = 0; q < n; ++q) {
            const double along = (q + 0.5) * w / n, cx = ax + along * std::cos(angle),
                         cy = ay + along * std::sin(angle);
            parts.push_back({cx - h * 0.6, cy - h * 0.6, cx + h * 0.6, cy + h * 0.6});
          }
          px_box box = parts.front();
          for (const px_box& b : parts)
            box = {std::min(box.x0, b.x0), std::min(box.y0, b.y0), std::max(box.x1, b.x1), std::max(box.y1, b.y1)};
          // Its text keeps off marks and lines; its whole bounding box off other labels, which
          // keep off that box in turn (so no two labels' boxes ever meet).
          const bool inside =
              std::all_of(parts.begin(), parts.end(), [&](const px_box& b) { return b.inside(a.area); });
          if (!inside || !clear_of({box}, labels) ||
              !clear_of(parts, pass == 0   ? against
                               : pass == 1 ? marks_only
                                           : labels))
            continue;
          l.x = x;
          l.y = r.value * x;
          l.dx = dx;
          l.dy = dy;
          l.parts = parts;
          l.box = box;
          l.boxed = pass == 2;
          placed = true;
        }
    if (!placed) {
      ++panel.labels_left_out;
      continue;
    }
    taken.push_back(l.box);
    labels.push_back(l.box);
    panel.roof_labels.push_back(std::move(l));
  }
}

// Each size gets one label, beside its first point (the baseline's, where the arrows start): the
// first spot around the marker that stays inside the plot and off every marker, roof line and
// label placed so far; a label with no such spot is left out and counted.
void place_size_labels(const roofline_model& m, chart_panel& panel, std::vector<px_box>& taken,
                       std::vector<px_box>& labels, const std::map<std::string, std::string>& sizes) {
  const panel_axes& a = panel.axes;
  std::set<std::string> labelled;
  for (std::size_t i : panel.points) {
    const roof_point& p = m.points[i];
    const std::string& text = sizes.at(p.id);
    if (text.empty() || !labelled.insert(prefix_of(p) + p.pair + "[" + p.size + "]").second) continue;
    // The gap clears the widest markers (a triangle reaches a pixel or two past kMarkerHalf) with
    // room to spare, so a label's end never touches its own point.
    const double px = a.px_x(p.intensity), py = a.px_y(p.flops_per_s), gap = kMarkerHalf + 7, chars = chars_of(text);
    struct spot { double dx, dy; const char* align; };
    const spot spots[] = {{gap, 0, "left"},           {-gap, 0, "right"},          {0, gap + kLabelH / 2, "center"},
                          {0, -gap - kLabelH / 2, "center"}, {gap, gap + 2, "left"}, {gap, -gap - 2, "left"},
                          {-gap, gap + 2, "right"},   {-gap, -gap - 2, "right"}};
    // Beside the marker first; where a cluster of points, ties and arrows crowds it, the same
    // directions a marker's width further out, before the label is given up.
    std::vector<spot> tries(std::begin(spots), std::end(spots));
    for (const spot& s : spots)
      tries.push_back({s.dx * 2.5, s.dy == 0 ? 0 : s.dy + (s.dy > 0 ? 1 : -1) * 2 * kMarkerHalf, s.align});
    bool placed = false;
    for (const spot& s : tries) {
      const px_box box = text_box(px + s.dx, py + s.dy, s.align, chars, kLabelCharW, kLabelH);
      if (!box.inside(a.area)) continue;
      if (std::any_of(taken.begin(), taken.end(), [&](const px_box& t) { return t.overlaps(box); })) continue;
      placed_label l;
      l.text = text;
      l.x = p.intensity;
      l.y = p.flops_per_s;
      l.dx = s.dx;
      l.dy = s.dy;
      l.align = s.align;
      l.box = box;
      l.parts = {box};
      taken.push_back(box);
      labels.push_back(box);
      panel.size_labels.push_back(std::move(l));
      placed = true;
      break;
    }
    panel.labels_left_out += !placed;
  }
}

}  // namespace

double panel_axes::xdec_px() const { return (area.x1 - area.x0) / std::log10(xmax / xmin); }
double panel_axes::ydec_px() const { return (area.y1 - area.y0) / std::log10(ymax / ymin); }
double panel_axes::px_x(double v) const { return area.x0 + std::log10(v / xmin) * xdec_px(); }
double panel_axes::px_y(double v) const { return area.y0 + std::log10(v / ymin) * ydec_px(); }

std::string prefix_of(const roof_point& p) {
  const auto colon = p.id.find(':');
  return colon != std::string::npos && colon < p.id.find('/') ? p.id.substr(0, colon + 1) : "";
}

chart_layout layout_chart(const roofline_model& m, chart_group requested, double width) {
  chart_layout out;
  out.group = resolve(m, requested, width > 0);
  if (m.memory.empty() || m.points.empty()) return out;

  // Panels in the order their first point appears.
  std::map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < m.points.size(); ++i) {
    const roof_point& p = m.points[i];
    const auto [it, fresh] = index_of.try_emplace(panel_key(p, out.group), out.panels.size());
    if (fresh) {
      chart_panel panel;
      panel.title = out.group == chart_group::chapter ? fmt::format("chapter {}", p.chapter)
                    : out.group == chart_group::pair  ? fmt::format("ch{:02d}/{}", p.chapter, p.pair)
                                                      : "";
      out.panels.push_back(std::move(panel));
    }
    out.panels[it->second].points.push_back(i);
    if (bound_of(m, p).fraction > 1) out.panels[it->second].above.push_back(i);
  }
  // One arrow per size: from its baseline to its fastest variant.
  std::map<std::size_t, std::size_t> fastest;
  for (const auto& [from, to] : m.arrows) {
    const auto [it, fresh] = fastest.try_emplace(from, to);
    if (!fresh && m.points[to].flops_per_s > m.points[it->second].flops_per_s) it->second = to;
  }
  for (const auto& [from, to] : fastest)
    out.panels[index_of.at(panel_key(m.points[from], out.group))].arrows.emplace_back(from, to);

  // Legends first: they decide each panel's right margin and height.
  std::size_t key_chars = 12, key_rows = 0;
  for (chart_panel& panel : out.panels) {
    build_series(m, out.group, panel);
    panel.compute = panel_roofs(m, panel);
    for (std::size_t i : panel.points) {
      const roof_point& p = m.points[i];
      panel.l2_points = panel.l2_points || (p.l2_intensity > 0 && l2_roof(m));
      panel.model_ties = panel.model_ties || (m.placement == points_mode::both && p.source != point_source::model &&
                                              (p.intensity != p.model_intensity || p.flops_per_s != p.model_flops_per_s));
    }
    panel.key_entries =
        panel.series.size() + !panel.arrows.empty() + panel.l2_points + panel.model_ties + !panel.above.empty();
    for (const chart_series& s : panel.series) key_chars = std::max<std::size_t>(key_chars, static_cast<std::size_t>(chars_of(s.title)));
    // The fixed entries a panel shows (an unused one would only widen the margin).
    for (const auto& [fixed, shown] :
         {std::pair{kKeyArrows, !panel.arrows.empty()}, std::pair{kKeyL2, panel.l2_points},
          std::pair{kKeyModel, panel.model_ties}, std::pair{kKeyAbove, !panel.above.empty()}})
      if (shown) key_chars = std::max<std::size_t>(key_chars, static_cast<std::size_t>(chars_of(fixed)));
    key_rows = std::max(key_rows, panel.key_entries);
  }
  const bool page = width > 0;
  const std::size_t cols = !page && out.group == chart_group::pair && out.panels.size() > 1 ? 2 : 1;
  const std::size_t rows = (out.panels.size() + cols - 1) / cols;
  // gnuplot sizes the key's box from its own estimate of the text (about 6.6 px a character at
  // font 11, plus the sample): ours errs wide.
  const double key_w = static_cast<double>(key_chars) * kLabelCharW * 1.05 + 60;
  const double cell_w = page ? width : std::max(cols == 1 ? 1600.0 : 900.0, kLeftMargin + 520 + kRightGap + key_w);
  const double key_h = static_cast<double>(key_rows) * kLabelH * 1.3 + 24;
  const bool single = out.panels.size() == 1;
  const double cell_h = std::max(page     ? (single ? 600.0 : 500.0)
                                 : single ? 950.0
                                          : 640.0,
                                 kPanelTitle + key_h + kBottomMargin);
  out.width = cell_w * static_cast<double>(cols);
  out.height = kTitleBand + cell_h * static_cast<double>(rows);

  const auto sizes = short_sizes(m);
  for (std::size_t k = 0; k < out.panels.size(); ++k) {
    chart_panel& panel = out.panels[k];
    const double x0 = cell_w * static_cast<double>(k % cols);
    const double y1 = out.height - kTitleBand - cell_h * static_cast<double>(k / cols);
    panel.cell = {x0, y1 - cell_h, x0 + cell_w, y1};
    panel.axes.area = {x0 + kLeftMargin, y1 - cell_h + kBottomMargin, x0 + cell_w - kRightGap - key_w, y1 - kPanelTitle};
    panel.key_x = panel.axes.area.x1 + 14;
    panel.key_y = panel.axes.area.y1;
    fit_axes(m, panel);
    for (const roof& r : panel.beyond)
      panel.title += fmt::format("{}{} {} off the axes (ridge {:.3g} FLOP/B)", panel.title.empty() ? "" : "  ·  ",
                                 r.name, format_si(r.value, "FLOP/s"), ridge_point(r.value, m.memory[0].value));
    const panel_axes& a = panel.axes;
    // Markers first: every label keeps off every point of its panel, its own included.
    std::vector<px_box> taken;
    auto mark = [&](double x, double y) {
      const double px = a.px_x(x), py = a.px_y(y);
      taken.push_back({px - kMarkerHalf, py - kMarkerHalf, px + kMarkerHalf, py + kMarkerHalf});
    };
    for (std::size_t i : panel.points) {
      const roof_point& p = m.points[i];
      mark(p.intensity, p.flops_per_s);
      if (panel.l2_points && p.l2_intensity > 0) mark(p.l2_intensity, p.flops_per_s);
      if (panel.model_ties) mark(p.model_intensity, p.model_flops_per_s);
    }
    const std::vector<px_box> marks = taken;
    // Arrows and the ties gnuplot draws (L2 × to its DRAM point, model to counted) are lines too.
    const auto line = [&](double from_x, double from_y, double to_x, double to_y) {
      sample_segment(a.px_x(from_x), a.px_y(from_y), a.px_x(to_x), a.px_y(to_y), 3, taken);
    };
    for (const auto& [from, to] : panel.arrows)
      line(m.points[from].intensity, m.points[from].flops_per_s, m.points[to].intensity, m.points[to].flops_per_s);
    for (std::size_t i : panel.points) {
      const roof_point& p = m.points[i];
      if (panel.l2_points && p.l2_intensity > 0) line(p.l2_intensity, p.flops_per_s, p.intensity, p.flops_per_s);
      if (panel.model_ties && p.source != point_source::model)
        line(p.model_intensity, p.model_flops_per_s, p.intensity, p.flops_per_s);
    }
    std::vector<std::vector<px_box>> slopes(m.memory.size());
    for (std::size_t r = 0; r < m.memory.size(); ++r) {
      double lo = 0, hi = 0;
      if (slope_px(panel, m.memory[r], lo, hi))
        sample_segment(a.px_x(lo), a.px_y(m.memory[r].value * lo), a.px_x(hi), a.px_y(m.memory[r].value * hi), 3,
                       slopes[r]);
    }
    std::vector<px_box> labels;
    place_roof_labels(m, panel, marks, taken, labels, slopes);
    for (const auto& sl : slopes) taken.insert(taken.end(), sl.begin(), sl.end());
    place_size_labels(m, panel, taken, labels, sizes);
  }
  return out;
}

}  // namespace gpubench::detail
