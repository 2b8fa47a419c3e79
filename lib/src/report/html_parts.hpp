#pragma once
// Pieces of the HTML report (gpubench/report.hpp), one concern per file: the device and ceilings
// tables and the records' table (html_tables.cpp), the first screen's summary (html_glance.cpp),
// the counters (html_counters.cpp), the comparison (html_compare.cpp), the style sheet
// (html_style.cpp). Every string from a profile goes through html_escape. CUDA-free.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/report.hpp"
#include "report/pair_speedups.hpp"

namespace gpubench::detail {

/// The page's style sheet (inline: the page loads nothing).
extern const char* const kReportCss;

/// The run's provenance, the device's facts and its ceilings (measured table, else theoretical).
std::string html_device(const profile& p);

/// What the records' table needs beside the records.
struct record_table_context {
  const pair_notes* notes = nullptr;        ///< adds each variant's description (may be null)
  const pair_speedups* speedups = nullptr;  ///< the speedup column's intervals (may be null)
  /// By record id, may be empty: adds a "vs base" column.
  const std::map<std::string, const record_comparison*>* verdicts = nullptr;
  double noise_target = 0.005;  ///< the run's noise target (options.max_noise), for the "noisy" flag
  bool fastest_first = false;   ///< order each size's rows by median (a tuning grid), the fastest marked
};

/// One pair's records as a table, sizes grouped (rowspan), in profile order (or fastest first);
/// record k's row gets the element id row_ids[k].
std::string html_record_table(const std::vector<const record*>& records, const std::vector<std::string>& row_ids,
                              const record_table_context& context);

/// `s` HTML-escaped, with break opportunities (<wbr>) after each ',' and '/' and before '[', so
/// that a record id or a size wraps where it reads instead of widening its column.
std::string html_breakable(std::string_view s);

/// "[9.41, 9.75]": an interval's ends to three significant digits ("" when either is not finite).
std::string interval_text(const ratio_interval& r);
/// "9.58× faster [9.41, 9.75]": a speedup coloured only when its whole interval lies outside the
/// same band; `words` adds faster / slower / same.
std::string html_speedup(const variant_speedup& v, bool words);
/// "78.2% fp32": a record's share of its roof (its floor's fraction and bound), marked ▲ above 100%.
std::string html_roof_share(const record& r);

/// One chapter's block in the summary, and one pair's row in it.
struct glance_pair {
  std::string name, anchor;  ///< "sgemm_ladder", and the id of its section
  const pair_speedups* speedups = nullptr;
};
struct glance_chapter {
  int number = 0;
  std::string title, anchor;
  std::string profile;  ///< the profile's file and GPU, named on the card when the page shows several
  std::vector<glance_pair> pairs;
};
/// A table per chapter (two columns of them on a wide page when there are several): per pair its
/// best variant at the headline size, the speedup over the baseline with its interval (as text and
/// on the chapter's log track), and its % of its roof. `name_chapters` false leaves the chapter's
/// name out (its own section has it).
std::string html_glance(const std::vector<glance_chapter>& chapters, double threshold, bool name_chapters = true);

/// The pair's hardware counters as a Speed-of-Light table; "" when no record has counters.
std::string html_counters(const std::vector<const record*>& records, const pair_speedups& speedups);

/// One record's medians across runs (html_trend.cpp).
struct compared_series {
  std::vector<double> medians;  ///< seconds, in the order the runs started; NaN where a run lacks it
  std::size_t new_run = 0;      ///< the index of the compared new run
};
/// A sparkline of `t`: a line through the runs' medians on a log scale, the new run's a dot
/// coloured by `tone` (good, bad or ""), its values in the title attribute. "" under two medians.
std::string html_sparkline(const compared_series& t, const char* tone);

/// A verdict as a coloured badge ("slower (critical)", "same", ...).
std::string html_verdict(const record_comparison& r);
/// "1.021× [0.987, 1.056]": a time ratio new/base with its interval.
std::string html_ratio(const ratio_interval& r);

/// The comparison section: summary, the records regressions first, speedup changes, unmatched
/// records. `anchor_of(id)` gives the in-page link of a record id ("" for none).
/// `trends` (may be null): by record id, its medians run by run in the order the runs started, the
/// new run's among them at its place; a record with two or more gets a trend column.
std::string html_compare(const comparison& c, const std::function<std::string(const std::string&)>& anchor_of,
                         const std::map<std::string, compared_series>* trends = nullptr);

}  // namespace gpubench::detail
