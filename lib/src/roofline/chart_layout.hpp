#pragma once
// The roofline chart's geometry, computed before any gnuplot is written: the panels (small
// multiples), each panel's log-log axes fitted to its own points, its legend, and where every
// text label goes. gnuplot places text blindly, so every label is placed here, in canvas pixels,
// against every marker, roof line and label placed before it: a label that fits nowhere is left
// out and counted, never drawn over another. CUDA-free; tests/unit/roofline_layout_test.cpp checks
// the no-overlap promise on the committed profiles.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gpubench/roofline.hpp"

namespace gpubench::detail {

/// An axis-aligned rectangle in canvas pixels, y growing upwards (gnuplot's screen coordinates).
struct px_box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  [[nodiscard]] bool overlaps(const px_box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  [[nodiscard]] bool inside(const px_box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

// Text metrics of the fonts the script asks for (pngcairo and svg agree to within a pixel or two):
// pixels per character and per line. Estimates err wide, so estimated boxes contain the drawn text.
inline constexpr double kLabelCharW = 8.0, kLabelH = 18.0;  // size labels and the key, font ',11'
inline constexpr double kRoofCharW = 8.5, kRoofH = 20.0;    // roof labels, font ',12'

// Distinct colours and marker shapes a panel draws from (gnuplot.cpp holds the lists): a series'
// (colour, marker) is never another's in the same panel, for up to kColorCount × kMarkerCount series.
inline constexpr int kColorCount = 12, kMarkerCount = 15;

// The legend's fixed entries (besides one per series).
inline constexpr const char* kKeyArrows = "baseline → fastest variant";
inline constexpr const char* kKeyAbove = "above its roof";
inline constexpr const char* kKeyL2 = "L2 intensity (×, dotted to DRAM)";
inline constexpr const char* kKeyModel = "work model (dashed to counted)";

/// Log-log axes of one panel: data ranges and the plot area they map onto.
struct panel_axes {
  double xmin = 1, xmax = 10, ymin = 1, ymax = 10;
  px_box area;  ///< the plot area (inside the border)
  [[nodiscard]] double px_x(double intensity) const;
  [[nodiscard]] double px_y(double flops_per_s) const;
  [[nodiscard]] double xdec_px() const;  ///< pixels per decade
  [[nodiscard]] double ydec_px() const;
};

/// A text label: drawn at (x, y) in data coordinates, moved by (dx, dy) pixels, aligned left,
/// right or centre there; `box` is where its text lands, in canvas pixels.
struct placed_label {
  std::string text;
  double x = 0, y = 0, dx = 0, dy = 0, angle = 0;
  std::string align = "left";
  px_box box;                 ///< the text's bounding box
  std::vector<px_box> parts;  ///< where its text lands, tighter: the box, or a rotated label's run of squares
  bool boxed = false;         ///< a roof label with no clear spot: drawn on an opaque box over what it covers
};

/// One legend entry. A series is all points of one (profile prefix, pair, variant).
struct chart_series {
  std::string key;    ///< "prefix:pair/variant", as in the point ids
  std::string title;  ///< what the legend says (the variant alone inside a pair's panel)
  int color = 0, marker = 0;
  std::vector<std::size_t> points;  ///< indexes into the model's points
};

struct chart_panel {
  std::string title;
  std::vector<std::size_t> points;                        ///< indexes into the model's points
  /// baseline → its size's fastest variant (the model's arrows to the others would stack on one
  /// line where the variants share an intensity, as a ladder's do), model indexes
  std::vector<std::pair<std::size_t, std::size_t>> arrows;
  std::vector<std::size_t> above;  ///< points above the roof that bounds them
  std::vector<chart_series> series;
  std::vector<roof> compute;  ///< the compute roofs drawn here: those of the kinds its points use
  std::vector<roof>
      beyond;  ///< of those, the ones whose ridge lies a decade past every point: named in the title, not drawn
  bool l2_points = false;     ///< some point has an L2 intensity and the model an L2 roof
  bool model_ties = false;    ///< --points both and some point moved off its model placement
  panel_axes axes;
  px_box cell;                ///< the panel's share of the canvas
  double key_x = 0, key_y = 0;  ///< top-left of the legend, canvas pixels
  std::size_t key_entries = 0;
  std::vector<placed_label> roof_labels, size_labels;
  std::size_t labels_left_out = 0;  ///< labels that fit nowhere (sizes; roofs only when a panel is very crowded)
};

struct chart_layout {
  double width = 1600, height = 1000;
  chart_group group = chart_group::none;  ///< resolved: never `automatic`
  std::vector<chart_panel> panels;
};

/// Groups the points into panels and lays each one out. `width` > 0: the canvas' width in pixels,
/// panels one per row (a page that shows the chart 1:1, so its text keeps its size), one pair per
/// panel from 7 series on; 0: panels sized for a standalone image, one pair per panel from 13
/// series on, two per row.
chart_layout layout_chart(const roofline_model& m, chart_group group, double width = 0);

/// The part of a point id before ':' that build_roofline puts there when it merges profiles.
std::string prefix_of(const roof_point& p);

}  // namespace gpubench::detail
