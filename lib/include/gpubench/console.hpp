#pragma once
/// The run's console output, in the spirit of hyperfine: a progress line while sampling (on a
/// terminal only), then per variant `median ± noise`, range, throughput and % of floor, and per
/// size "optimized ran 13.6× faster than baseline". CUDA-free, so it is tested on the CPU.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "gpubench/compare.hpp"
#include "gpubench/observer.hpp"

namespace gpubench {

struct console_style {
  bool color = false;     ///< ANSI colour (only on a terminal, never with NO_COLOR)
  bool progress = false;  ///< transient progress line (only when the results and the progress stream are terminals)
  bool quiet = false;     ///< results only for failures and the final summary
  std::size_t width = 80;  ///< columns lines wrap to (compare's table; console_width(), gpubench/text_width.hpp)
};

/// Decides colour/progress/width for results written to `stream`: colour on a terminal with
/// NO_COLOR unset; progress only when not quiet and both `stream` and `progress` (where the
/// progress line goes; nullptr = the same stream) are terminals, so `run > log` and CI logs stay
/// clean; the width from console_width(stream).
console_style detect_style(std::FILE* stream, bool quiet, std::FILE* progress = nullptr);

class console_reporter : public run_observer {
 public:
  /// Results go to `out`; progress lines to `progress` (usually stderr).
  console_reporter(std::FILE* out, std::FILE* progress, console_style style);
  /// How many sizes the run will measure in all (for "size 4/26" and the time left); without
  /// it the progress line shows only the elapsed time.
  void plan(std::size_t sizes_total) { sizes_total_ = sizes_total; }
  void pair_begin(const pair_def& pair) override;
  void size_begin(const pair_def& pair, const size_point& size, const work& w, const ceilings& c) override;
  void sweep_round(const pair_def& pair, const size_point& size, int round, int rounds) override;
  void phase(std::string_view what) override;
  void sampling(const record& r, std::size_t samples, double rel_noise, double elapsed_s) override;
  void size_end(const pair_def& pair, const std::vector<record>& records) override;

  /// Final tally: passed / failed / errors / skipped / suspect counts.
  void summary(const std::vector<record>& all);

 private:
  void clear_progress();
  void draw_progress();
  [[nodiscard]] double seconds_since(std::chrono::steady_clock::time_point t) const;
  [[nodiscard]] std::string paint(const std::string& text, const char* ansi) const;
  /// `lead` then `text` wrapped to style_.width, continuation lines under the text.
  void say(std::string_view lead, std::string_view text, std::string_view breaks = "");
  void print_record(const variant_def* v, const record& r);
  void print_metrics(const metric_result& m, const work& declared);
  /// "optimized ran 13.6× faster than baseline (95% interval ...)", coloured only outside the same band.
  void print_speedup(const record& baseline, const record& r);
  /// A tuning pair's size: one line per configuration, then the best configuration.
  void print_tuning(const std::vector<record>& records);

  std::FILE* out_;
  std::FILE* progress_;
  console_style style_;
  bool progress_shown_ = false;
  std::size_t name_width_ = 9;
  std::string last_metrics_reason_;  ///< so a run-wide "counters unavailable" is printed once
  // The progress line's state.
  std::chrono::steady_clock::time_point run_start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point size_start_ = run_start_;
  bool in_size_ = false;
  /// Sizes finished; a size taking its rounds in sweeps adds its share as each round ends.
  double sizes_done_ = 0;
  std::size_t sizes_total_ = 0;
  std::string pair_id_, size_text_, activity_;
  std::string sweep_;  ///< "round 2/3 ·" while a swept size takes a later round
  /// Swept sizes (pair id and size) not yet finished, and the share of each already counted done.
  std::map<std::string, double> swept_credit_;
};

/// A comparison as a console table of `style.width` columns: one row per record (base, new, the
/// time change with its interval, verdict; a record id too long for its column wraps in it), the
/// speedup changes with their intervals, one footnote per kind of reason for what is
/// inconclusive, unmatched records, and a summary line. Colour (style.color) only for verdicts
/// outside the same band: faster green, slower red, critical bold red.
void print_comparison(std::FILE* out, const comparison& c, const console_style& style);
/// compare's warnings ("gpubench: warning: ..."), wrapped at spaces to console_width(out).
void print_compare_warning(std::FILE* out, const std::string& text);

}  // namespace gpubench
