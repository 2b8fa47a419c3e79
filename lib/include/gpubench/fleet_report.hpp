#pragma once
/// What `gpubench fleet report` prints and writes (docs/fleet.md): the console summary (flagged
/// GPUs and their records, the slowest GPUs, GPUs of another model kept apart, failed and missing
/// tasks), at most `width` columns, and a self-contained HTML page whose heatmap shows every GPU on
/// every record against the fleet median. CUDA-free.
#include <string>

#include "gpubench/fleet.hpp"

namespace gpubench {

/// The console text; every line at most `width` columns (80 when unknown). `slowest`: how many
/// of the slowest GPUs to list per group.
std::string fleet_console(const fleet_ranking& r, std::size_t width = 80, std::size_t slowest = 5);

/// The HTML page: a GPUs × records heatmap per model (inline SVG, colour = the GPU's ratio to the
/// fleet median, flagged cells outlined, each cell's numbers in its tooltip), the flagged cells
/// with their intervals, failed and missing tasks. Loads nothing, runs no script.
std::string html_fleet_page(const fleet_ranking& r, const std::string& generator);

/// A GPU's short label: "node17 GPU-3f2a9c1e" (the node and the UUID's first 8 hex digits).
std::string fleet_gpu_label(const fleet_task_tags& t);

}  // namespace gpubench
