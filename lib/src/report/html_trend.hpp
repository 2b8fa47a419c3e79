#pragma once
// The report's trend charts: each record's median over the stored runs, change points marked, and
// with a comparison the base and new runs on the line. Drawn here as small inline SVG (one
// polyline each, no gnuplot), so a chapter's worth of them costs little. CUDA-free.
#include <string>
#include <vector>

#include "gpubench/trend.hpp"

namespace gpubench::detail {

/// The trends section (id "trends"), "" when there is no trend to show. `comparing`: the page has
/// a comparison, whose two runs the charts mark.
std::string html_trends(const std::vector<record_trend>& trends, bool comparing);

/// One record's chart: an <svg> of `width` × `height` CSS pixels.
std::string trend_svg(const record_trend& t, int width = 360, int height = 130);

}  // namespace gpubench::detail
