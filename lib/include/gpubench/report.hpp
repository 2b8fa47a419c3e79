#pragma once
/// `gpubench report`: one self-contained HTML page for people who would rather look than read.
/// First a summary: per chapter, each pair's best variant, its speedup over the baseline with an
/// interval, and its % of its roof. Per profile the device and its ceilings; per chapter its
/// roofline; per pair the explanation, a chart of every variant's speedup per size (a tuning
/// grid: a heatmap), the hardware counters, a table of variants and, on demand, a box plot of the
/// samples; with a base profile, every record's verdict with its interval, regressions first. The
/// plots are gnuplot's SVG, inlined; the page has no script and loads nothing (no font, no image,
/// no style sheet). CUDA-free.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/trend.hpp"

namespace gpubench {

/// What the registry compiled into the binary says about a pair. The report gets it from the
/// caller: a profile may hold pairs this binary does not know (they just have no explanation).
struct pair_notes {
  std::string title;
  std::string explanation;
  std::map<std::string, std::string> variants;  ///< variant name → one-line description
  std::map<std::string, std::string>
      params;  ///< a tuning pair's parameter tag → what it sets ("b" → "threads per block")
};

struct report_profile {
  std::string source;  ///< the file it was read from, as the user named it
  profile prof;
};

struct report_input {
  std::vector<report_profile> profiles;     ///< in the order given; at least one
  std::map<std::string, pair_notes> pairs;  ///< by pair id, "ch01/batched_gemm"
  std::map<int, std::string> chapters;      ///< chapter number → title
  std::optional<comparison> compare;        ///< base → profiles[0] (`report --compare BASE`)
  /// With `compare`: the base and its --history runs, whose medians with the new run's make each
  /// compared record's trend (in the order the runs started).
  std::vector<report_profile> trend_runs;
  std::string generator;                    ///< "gpubench 0.1.0 (abc123)", for the page's footer
  std::vector<record_trend> trends;         ///< profiles[0]'s records over the stored runs (report_trends.hpp)
};

/// Called as plots are drawn: (done, total, what is being drawn), for a progress line.
using report_progress = std::function<void(std::size_t, std::size_t, const std::string&)>;

/// The whole page as one string. Plots are drawn by gnuplot, found on PATH, inside a private
/// temporary directory that is removed afterwards. Throws usage_error when gnuplot is missing or
/// there is no profile, runtime_error when gnuplot fails.
std::string html_report(const report_input& in, const report_progress& progress = {});

/// The order the report lists compared records in: slower first (critical ones first, then by
/// how much slower), then inconclusive, faster and same; the comparison's order within each.
std::vector<const record_comparison*> regressions_first(const comparison& c);

}  // namespace gpubench
