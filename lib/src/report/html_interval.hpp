#pragma once
// Intervals drawn in HTML: a track on a log scale, a grey *same* band around 1×, the interval as a
// bar and its estimate as a tick, coloured only when the whole interval lies outside the band. The
// summary's speedups and the comparison's time ratios use it, row by row beside their numbers;
// plain elements and inline style, so the page still loads nothing. CUDA-free.
#include <string>
#include <vector>

#include "gpubench/compare.hpp"

namespace gpubench::detail {

/// A log axis mapped onto a track's width, 0–100%.
struct log_track {
  double lo = 0.5, hi = 2;
  /// The axis holding every interval of `rows`, 1× and the band 1/(1+threshold) … 1+threshold,
  /// with a little room either side.
  static log_track around(const std::vector<ratio_interval>& rows, double threshold);
  [[nodiscard]] double percent(double v) const;  ///< clamped to the track
};

/// "good", "bad" or "" (no colour). A verdict always speaks of time, whichever ratio it was read
/// from: faster (a record's new run, a variant against its baseline, a speedup that grew) is good,
/// slower is bad, same and inconclusive get no colour.
const char* tone_of(verdict v);

/// One row's track: band, the 1× line, the interval and the estimate; `label` for the title
/// attribute (a tooltip and what a screen reader says).
std::string html_interval_track(const log_track& t, const ratio_interval& r, double threshold, const char* tone,
                                const std::string& label);

/// The axis' tick labels ("1×", "10×") placed over a column of tracks; given the track's width in
/// CSS px, only the labels that do not overlap, decades first.
std::string html_track_axis(const log_track& t, double width_px = 0);

}  // namespace gpubench::detail
