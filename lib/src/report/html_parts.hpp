#pragma once
// Pieces of the HTML report (gpubench/report.hpp), one concern per file: the device and ceilings
// tables and the records' table (html_tables.cpp), the comparison (html_compare.cpp), the style
// sheet (html_style.cpp). Every string from a profile goes through html_escape. CUDA-free.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpubench/compare.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/report.hpp"

namespace gpubench::detail {

/// The page's style sheet (inline: the page loads nothing).
extern const char* const kReportCss;

/// The run's provenance, the device's facts and its ceilings (measured table, else theoretical).
std::string html_device(const profile& p);

/// One pair's records as a table, sizes grouped (rowspan), in profile order; row k gets the
/// element id row_ids[k]. `notes` (may be null) adds each variant's description; `verdicts` (by
/// record id, may be empty) adds a "vs base" column.
std::string html_record_table(const std::vector<const record*>& records, const std::vector<std::string>& row_ids,
                              const pair_notes* notes, const std::map<std::string, const record_comparison*>& verdicts);

/// A verdict as a coloured badge ("slower (critical)", "same", ...).
std::string html_verdict(const record_comparison& r);
/// "1.021× [0.987, 1.056]": a time ratio new/base with its interval.
std::string html_ratio(const ratio_interval& r);

/// The comparison section: summary, the records regressions first, speedup changes, unmatched
/// records. `anchor_of(id)` gives the in-page link of a record id ("" for none).
std::string html_compare(const comparison& c, const std::function<std::string(const std::string&)>& anchor_of);

}  // namespace gpubench::detail
