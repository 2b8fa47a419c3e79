#pragma once
/// The roofline model (Williams, Waterman & Patterson, CACM 2009) built from profiles, and its
/// renderings: a log-log gnuplot chart (PNG/SVG) and a text table. CUDA-free.
///
/// A point is placed from hardware counters where the record has them (`run --metrics`), as
/// Nsight Compute's roofline places kernels: counted FLOPs over counted DRAM bytes for the
/// intensity, counted FLOPs over the median time for the performance, and counted FLOPs over L2
/// bytes for a second, hierarchical intensity. Without counters (or with `points::model`) the
/// work model places it: declared FLOPs over declared DRAM bytes. Records with no FLOPs or no DRAM
/// bytes (e.g. PCIe transfers) cannot be placed and are listed as skipped with the reason.
#include <filesystem>
#include <string>
#include <vector>

#include "gpubench/profile.hpp"

namespace gpubench {

struct roof {
  std::string name;    ///< "fp32", "bf16", "dram", "l2", ... (compute roofs: a flop_kind's name, work.hpp)
  double value = 0;    ///< FLOP/s for compute roofs (operations/s for int8), bytes/s for memory roofs
  std::string source;  ///< compute roofs: "measured" or "theoretical" (gpubench/compute_peaks.hpp); "" for memory roofs
};

/// Where a point's two coordinates come from.
enum class point_source {
  model,          ///< declared FLOPs and DRAM bytes (the work model)
  counters,       ///< counted FLOPs and DRAM bytes
  counted_bytes,  ///< counted DRAM bytes, declared FLOPs: the counters saw no FLOPs (e.g. a tensor-core
                  ///< path the chip's counters miss) while the model says there are some
};
const char* to_string(point_source s);

struct roof_point {
  std::string id;       ///< record id
  int chapter = 0;
  std::string pair, variant, size;
  std::string flops_kind;  ///< which compute roof applies ("fp32", ...)
  double intensity = 0;    ///< FLOP per DRAM byte
  double flops_per_s = 0;
  double bytes_per_s = 0;  ///< DRAM bytes per second
  point_source source = point_source::model;
  double l2_intensity = 0;       ///< FLOP per L2 byte (counted lts__t_bytes); 0 when not counted
  double model_intensity = 0;    ///< the work model's placement, kept beside a counted one
  double model_flops_per_s = 0;
};

/// Which placement `build_roofline` uses for records that have counters.
enum class points_mode {
  counters,  ///< counters where a record has them, else the work model (the default)
  model,     ///< always the work model
  both,      ///< counters where present, and the chart ties each such point to its model placement
};

struct roofline_options {
  points_mode points = points_mode::counters;
};

struct roof_bound {
  std::string roof;       ///< the roof that limits this point: a memory roof name or the compute roof
  bool memory_bound = false;
  double attainable = 0;  ///< min(compute peak, DRAM bandwidth × intensity), FLOP/s
  double fraction = 0;    ///< achieved / attainable ("speed of light")
  std::string compute_roof;  ///< the point's own compute roof (its flops_kind's; else the highest), bound or not
  /// Above the roof that bounds it: marked wherever the fraction is shown, with above_roof_reason(roof).
  [[nodiscard]] bool above_roof() const { return fraction > 1.0; }
};

struct roofline_model {
  std::string title;                  ///< names the GPU(s) and the run(s)
  std::string ceilings_source;        ///< "measured" or "theoretical": the first profile's, whose roofs are drawn
  /// compute: one roof per precision (every measured one, fp32 and fp64, and each kind a point
  /// uses); each point is judged against the roof of its own flops_kind. memory[0] is DRAM, the
  /// roof points are judged against.
  std::vector<roof> compute, memory;
  std::vector<roof_point> points;
  std::vector<std::pair<std::size_t, std::size_t>> arrows;  ///< baseline → variant, indexes into points
  std::vector<std::string> skipped;   ///< "id: reason" for records that cannot be placed
  points_mode placement = points_mode::counters;  ///< how it was built (the chart draws ties with `both`)
};

/// Ridge point: the intensity where a memory roof meets a compute roof (FLOP/byte).
double ridge_point(double compute_flops_per_s, double memory_bytes_per_s);
/// Which roof bounds `p` in `m` and how close it gets.
roof_bound bound_of(const roofline_model& m, const roof_point& p);
/// Builds the model from one or more profiles (their ceilings: measured if present, else
/// theoretical). Throws usage_error when there is nothing to plot or no ceilings at all.
roofline_model build_roofline(const std::vector<profile>& profiles, const std::vector<std::string>& sources,
                              const roofline_options& o = {});

/// `--format table`: the roofs (one per precision, with their source), then per point its
/// intensity, FLOP/s, bytes/s, bounding roof and fraction; a fraction above 100% is marked and
/// explained under the table, once per roof (above_roof_reason, gpubench/record.hpp). Lines fit
/// `width` columns: ids wrap in their column, or take lines of their own when it would be narrow.
std::string roofline_table(const roofline_model& m, std::size_t width = 80);

/// A gnuplot string literal that reads back as `s`, whoever wrote `s`: single-quoted (gnuplot
/// runs `...` inside double quotes as a shell command, never inside single ones), ' written as
/// '', control characters (a newline would end the command) replaced by spaces.
std::string gnuplot_quote(const std::string& s);

/// gnuplot as execvp would find it on PATH (searched here: no shell is involved); empty when absent.
std::filesystem::path find_gnuplot();

/// How the chart splits its points into panels (small multiples), each with its own axes fitted
/// to its points, its own legend and its own labels. `automatic`: one panel while the legend stays
/// short (at most 12 series; 6 on a canvas of a page's width), else one per chapter when the points
/// span chapters, else one per pair.
enum class chart_group { automatic, none, pair, chapter };

struct gnuplot_files {
  std::string script;  ///< draws into `image` (PNG or SVG by its extension) from `data`
  std::string data;    ///< the data file's text (gnuplot blocks, listed in the script)
};
/// The chart of `m` as a gnuplot script and its data. Paths are made absolute; every string in
/// the script is gnuplot_quote'd, every comment stripped of control characters and backslashes.
/// `width` > 0 draws on a canvas that wide, panels one per row (layout_chart in chart_layout.hpp);
/// 0 sizes it for a standalone image.
gnuplot_files roofline_gnuplot(const roofline_model& m, const std::filesystem::path& image,
                               const std::filesystem::path& data, chart_group group = chart_group::automatic,
                               double width = 0);

struct render_options {
  bool keep_script = false;  ///< also write `<out stem>.gp` and `<out stem>.dat` beside `out`
  bool force = false;        ///< replace read-only outputs and write through symbolic links
  chart_group group = chart_group::automatic;
  double width = 0;  ///< the canvas' width in pixels, panels one per row (the HTML report's page width); 0: automatic
};

struct render_result {
  bool image_written = false;   ///< false when gnuplot is missing or failed
  std::filesystem::path script, data, image;  ///< script and data: empty unless kept
  std::string message;          ///< what happened / what to do (install gnuplot, ...)
};
/// Runs gnuplot (no shell) in a private temporary directory, removed afterwards, and replaces
/// `out` (PNG or SVG by extension) atomically with its image; with `keep_script` also writes the
/// script and data beside `out`. Writes nothing else. Throws usage_error for another extension,
/// an unwritable path, or (unless `o.force`) a read-only or symlinked output; gnuplot missing or
/// failing is reported in the result, not thrown.
render_result render_roofline(const roofline_model& m, const std::filesystem::path& out, const render_options& o = {});

}  // namespace gpubench
