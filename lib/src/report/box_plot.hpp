#pragma once
// Box plots of timing samples, drawn by gnuplot as SVG for the HTML report. CUDA-free.
//
// One chart per pair: the pair's sizes side by side, one box per variant (a colour each, named in
// the key). A box shows a record's samples as their deviation from its own median, in percent:
// the variants of one size differ by up to 1311× (ch04/reduction in the committed profiles) and
// the sizes by orders of magnitude, so on a shared time axis every box would be a flat line; the
// medians themselves are in the table beside the chart. Box and whiskers follow Tukey (quartiles as summarize() computes them, whiskers at
// the furthest sample within 1.5 IQR), and gnuplot only draws what is computed here, so the
// chart agrees with the profile's own summary.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace gpubench::detail {

/// Tukey's box of one sample set, in the samples' unit.
struct box_stats {
  double low = 0, q1 = 0, median = 0, q3 = 0, high = 0;  ///< low/high: the whisker ends
  std::vector<double> outliers;                           ///< samples beyond the whiskers, ascending
  std::size_t count = 0;
};
/// Requires non-empty samples.
box_stats tukey_box(std::span<const double> samples);

struct box_chart {
  std::vector<std::string> groups;  ///< x-axis groups (a pair's sizes), in order; labels may be empty
  std::vector<std::string> series;  ///< one colour and key entry each (a pair's variants), in order
  struct box {
    std::size_t group = 0, series = 0;  ///< indexes into groups and series
    std::vector<double> samples;        ///< seconds (any positive unit); empty boxes are left out
  };
  std::vector<box> boxes;
};

struct box_plot_files {
  std::string script;  ///< draws chart i into `dir / "box<i>.svg"` from `data`
  std::string data;    ///< numbers only: gnuplot never reads a name from it
};
/// The gnuplot script and data for `charts`, every name gnuplot_quote'd. `data` is the data
/// file's path as the script names it; `dir` where the SVGs go (absolute paths are best: a name
/// starting with '<' or '|' would be a command to gnuplot).
box_plot_files box_plots_gnuplot(const std::vector<box_chart>& charts, const std::filesystem::path& dir,
                                 const std::filesystem::path& data);

/// Renders every chart in one gnuplot process (posix_spawn, no shell) inside `scratch`, which
/// must be a private directory, and returns each chart's SVG text in order. Throws runtime_error
/// with gnuplot's output when it fails (the script is gpubench's own: a failure is ours).
std::vector<std::string> render_box_plots(const std::vector<box_chart>& charts, const std::filesystem::path& gnuplot,
                                          const std::filesystem::path& scratch);

}  // namespace gpubench::detail
