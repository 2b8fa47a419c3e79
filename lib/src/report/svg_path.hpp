#pragma once
// Smaller SVG path data, the same picture. CUDA-free.
#include <string>
#include <string_view>

namespace gpubench::detail {

/// Path data `d` made of polylines only ("M x,y L x,y L x,y ..." with absolute commands, as
/// gnuplot writes lines) with every point dropped that lies within `tolerance` (user units) of the
/// line its kept neighbours draw (Douglas & Peucker, 1973): gnuplot draws a straight roof, sampled
/// as a function, as hundreds of collinear points. Kept points keep their text. Path data with any
/// other command (curves, h/v, z, relative moves) comes back unchanged.
std::string simplify_polyline_path(std::string_view d, double tolerance);

}  // namespace gpubench::detail
