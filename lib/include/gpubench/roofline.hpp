#pragma once
/// The roofline model (Williams, Waterman & Patterson, CACM 2009) built from profiles, and its
/// renderings: a log-log gnuplot chart (PNG/SVG) and a text table. CUDA-free.
///
/// Points come from each passed record's work model: arithmetic intensity = declared FLOPs /
/// declared DRAM bytes, performance = declared FLOPs / median time (source "work model"; CUPTI
/// counters will replace this where collected). Records with no FLOPs or no DRAM bytes (e.g.
/// PCIe transfers) cannot be placed and are listed as skipped with the reason.
#include <filesystem>
#include <string>
#include <vector>

#include "gpubench/profile.hpp"

namespace gpubench {

struct roof {
  std::string name;   ///< "fp32", "bf16", "dram", "l2", ...
  double value = 0;   ///< FLOP/s for compute roofs, bytes/s for memory roofs
};

struct roof_point {
  std::string id;       ///< record id
  int chapter = 0;
  std::string pair, variant, size;
  std::string flops_kind;  ///< which compute roof applies ("fp32", ...)
  double intensity = 0;    ///< FLOP per DRAM byte
  double flops_per_s = 0;
  double bytes_per_s = 0;
  std::string source = "work model";
};

struct roof_bound {
  std::string roof;       ///< the roof that limits this point: a memory roof name or the compute roof
  bool memory_bound = false;
  double attainable = 0;  ///< min(compute peak, DRAM bandwidth × intensity), FLOP/s
  double fraction = 0;    ///< achieved / attainable ("speed of light")
};

struct roofline_model {
  std::string title;                  ///< names the GPU(s) and the run(s)
  std::string ceilings_source;        ///< "measured" or "theoretical": the first profile's, whose roofs are drawn
  std::vector<roof> compute, memory;  ///< memory[0] is DRAM, the roof points are judged against
  std::vector<roof_point> points;
  std::vector<std::pair<std::size_t, std::size_t>> arrows;  ///< baseline → variant, indexes into points
  std::vector<std::string> skipped;   ///< "id: reason" for records that cannot be placed
};

/// Ridge point: the intensity where a memory roof meets a compute roof (FLOP/byte).
double ridge_point(double compute_flops_per_s, double memory_bytes_per_s);
/// Which roof bounds `p` in `m` and how close it gets.
roof_bound bound_of(const roofline_model& m, const roof_point& p);
/// Builds the model from one or more profiles (their ceilings: measured if present, else
/// theoretical). Throws usage_error when there is nothing to plot or no ceilings at all.
roofline_model build_roofline(const std::vector<profile>& profiles, const std::vector<std::string>& sources);

/// `--format table`: per point its intensity, FLOP/s, bytes/s, bounding roof and fraction.
std::string roofline_table(const roofline_model& m);

/// A gnuplot string literal that reads back as `s`, whoever wrote `s`: single-quoted (gnuplot
/// runs `...` inside double quotes as a shell command, never inside single ones), ' written as
/// '', control characters (a newline would end the command) replaced by spaces.
std::string gnuplot_quote(const std::string& s);

/// gnuplot as execvp would find it on PATH (searched here: no shell is involved); empty when absent.
std::filesystem::path find_gnuplot();

struct gnuplot_files {
  std::string script;  ///< draws into `image` (PNG or SVG by its extension) from `data`
  std::string data;    ///< the data file's text (gnuplot blocks, listed in the script)
};
/// The chart of `m` as a gnuplot script and its data. Paths are made absolute; every string in
/// the script is gnuplot_quote'd, every comment stripped of control characters and backslashes.
gnuplot_files roofline_gnuplot(const roofline_model& m, const std::filesystem::path& image, const std::filesystem::path& data);

struct render_options {
  bool keep_script = false;  ///< also write `<out stem>.gp` and `<out stem>.dat` beside `out`
  bool force = false;        ///< replace read-only outputs and write through symbolic links
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
