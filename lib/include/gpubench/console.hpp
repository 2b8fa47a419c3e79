#pragma once
/// The run's console output, in the spirit of hyperfine: a progress line while sampling (on a
/// terminal only), then per variant `median ± noise`, range, throughput and % of floor, and per
/// size "optimized ran 13.6× faster than baseline". CUDA-free, so it is tested on the CPU.
#include <cstdio>

#include "gpubench/compare.hpp"
#include "gpubench/observer.hpp"

namespace gpubench {

struct console_style {
  bool color = false;     ///< ANSI colour (only on a terminal, never with NO_COLOR)
  bool progress = false;  ///< transient progress lines (only on a terminal)
  bool quiet = false;     ///< results only for failures and the final summary
};

/// Decides colour/progress for a stream: a terminal, and NO_COLOR unset for colour.
console_style detect_style(std::FILE* stream, bool quiet);

class console_reporter : public run_observer {
 public:
  /// Results go to `out`; progress lines to `progress` (usually stderr).
  console_reporter(std::FILE* out, std::FILE* progress, console_style style);
  void pair_begin(const pair_def& pair) override;
  void size_begin(const pair_def& pair, const size_point& size, const work& w, const ceilings& c) override;
  void phase(std::string_view what) override;
  void sampling(const record& r, std::size_t samples, double rel_noise, double elapsed_s) override;
  void size_end(const pair_def& pair, const std::vector<record>& records) override;

  /// Final tally: passed / failed / errors / skipped / suspect counts.
  void summary(const std::vector<record>& all);

 private:
  void clear_progress();
  [[nodiscard]] std::string paint(const std::string& text, const char* ansi) const;
  void print_record(const variant_def* v, const record& r);
  void print_metrics(const metric_result& m, const work& declared);

  std::FILE* out_;
  std::FILE* progress_;
  console_style style_;
  bool progress_shown_ = false;
  std::size_t name_width_ = 9;
  std::string last_metrics_reason_;  ///< so a run-wide "counters unavailable" is printed once
};

/// A comparison as a console table: one line per record (base, new, ratio with its interval,
/// verdict), the speedup changes, unmatched records, and a summary line.
void print_comparison(std::FILE* out, const comparison& c, const console_style& style);

}  // namespace gpubench
