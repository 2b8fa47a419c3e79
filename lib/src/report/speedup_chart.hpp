#pragma once
// A pair's speedups as a chart: the variants along x in their declared order, the baseline first,
// and per size a line through each variant's speedup over that size's baseline, with its interval
// as an error bar, on a log axis, so that a ladder of steps that each multiply the speed looks like
// a ladder (ch07/sgemm_ladder: 5.4 → 51.8 TFLOP/s is a straight climb, where a linear axis would
// flatten the first rungs). A grey band marks *same* (±threshold): a marker is filled only when its
// whole interval lies outside the band. Drawn by gnuplot as SVG at most the page's width, text at
// 11–12 px. CUDA-free.
#include <filesystem>
#include <string>
#include <vector>

#include "report/gnuplot_batch.hpp"

namespace gpubench::detail {

struct speedup_chart {
  std::vector<std::string> variants;  ///< x positions 0, 1, ...; the baseline first
  struct point {
    std::size_t variant = 0;
    double estimate = 1, low = 1, high = 1;  ///< baseline time / variant time, and its interval
    bool outside_band = false;               ///< the whole interval beyond the same band
  };
  struct line {
    std::string label;          ///< the size ("n=8192"), in the key
    std::vector<point> points;  ///< by variant order; the baseline's is 1× with no interval
    bool labelled = false;      ///< write each point's value beside it (the pair's headline size)
  };
  std::vector<line> lines;
  double threshold = 0.05;  ///< the same band's half-width, relative
};

/// Tick values inside [lo, hi] for a log axis: powers of ten, with 2× and 5× between them when the
/// range spans few decades, and evenly spaced ones (a 1-2-5 step) when it spans less than 2.5×.
std::vector<double> log_ticks(double lo, double hi);

/// The script drawing chart i into `dir / "speedup<i>.svg"`, its data in `dir / data_name`.
/// Names reach gnuplot only gnuplot_quote'd; the data file holds numbers only.
gnuplot_job speedup_charts_gnuplot(const std::vector<speedup_chart>& charts, const std::filesystem::path& dir,
                                   const std::string& data_name);

}  // namespace gpubench::detail
