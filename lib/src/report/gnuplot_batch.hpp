#pragma once
// Every chart of a report drawn by one gnuplot process: each kind of chart (box plots, speedup
// charts, tuning heatmaps) writes its script and its data file, and the scripts run one after the
// other (each starts with `reset`). CUDA-free.
#include <filesystem>
#include <string>
#include <vector>

namespace gpubench::detail {

/// The widest a chart is drawn, in CSS pixels: the page's content width (html_style.cpp: main is
/// 1280 px wide with 24 px of padding each side). A chart is never scaled up, and one this wide
/// is drawn 1:1, so its text renders at the size the script asks for.
inline constexpr double kPageContentWidth = 1232;

struct gnuplot_job {
  std::string script;                ///< draws every file of `outputs`, naming its data by the path it was given
  std::string data_name, data;       ///< the data file's name in the scratch directory and its text
  std::vector<std::string> outputs;  ///< SVG file names in the scratch directory, in order
};

/// Writes the jobs' data files and one script into `scratch` (a private directory), runs gnuplot
/// once, and returns every output's SVG text, job by job, in order. Throws runtime_error with
/// gnuplot's output when it fails (the scripts are gpubench's own: a failure is ours).
std::vector<std::string> render_gnuplot_jobs(const std::vector<gnuplot_job>& jobs, const std::filesystem::path& gnuplot,
                                             const std::filesystem::path& scratch);

}  // namespace gpubench::detail
