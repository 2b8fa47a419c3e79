#pragma once
// The transient progress line of `run` on a terminal, e.g.
//   [4/26 · 12 s · ~40 s left, est.] ch01/batched_gemm [batch=40,m=32]  sampling optimized: 35 samples, noise 0.3%
// Pure functions over a snapshot, so the line is tested without a terminal or a clock. CUDA-free.
#include <cstddef>
#include <optional>
#include <string>

namespace gpubench::detail {

/// Where a run stands.
struct progress_state {
  std::string pair_id;          ///< e.g. "ch01/batched_gemm"
  std::string size;             ///< e.g. "batch=40,m=32"
  std::string activity;         ///< e.g. "verifying", "sampling optimized: 35 samples, noise 0.3%"
  double sizes_done = 0;        ///< sizes whose records are final (a swept size counts a share per round)
  std::size_t sizes_total = 0;  ///< sizes planned for the run; 0 = unknown
  double elapsed_s = 0;         ///< since the run began
  double size_elapsed_s = 0;    ///< since the current size began (0 between sizes)
};

/// Seconds left, assuming each remaining size takes as long as the finished ones did on average,
/// less what the current size has used already (never negative). An estimate, and a rough one:
/// sizes of one run differ by orders of magnitude. nullopt before the first size is done or when
/// the total is unknown.
std::optional<double> estimate_time_left(const progress_state& p);

/// Wall-clock time at a glance: "0 s", "42 s", "3 min 07 s", "1 h 05 min".
std::string format_clock(double seconds);

/// The line without newline or escape codes, cut to at most `width` columns (counted as UTF-8
/// code points; a cut line ends in "…"). Size counter and times first, so a narrow terminal
/// loses the detail, never the progress.
std::string progress_line(const progress_state& p, std::size_t width);

}  // namespace gpubench::detail
