// Console view of `gpubench compare`.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <cmath>

#include <fmt/format.h>

#include "gpubench/console.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/format.hpp"

namespace gpubench {

namespace {

const char* colour_of(verdict v) {
  switch (v) {
    case verdict::faster: return "\x1b[32m";
    case verdict::slower: return "\x1b[31m";
    case verdict::inconclusive: return "\x1b[33m";
    case verdict::same: return "\x1b[2m";
  }
  return "";
}

std::string change(const ratio_interval& r) {
  // Ratio of times new/base as a signed percent change with its interval: "+12.3% [+10.1, +14.2]".
  // Past ±100% a decimal says nothing and would push the line past 120 columns.
  const auto pct = [](double x) {
    const double p = (x - 1) * 100;
    return std::abs(p) >= 100 ? fmt::format("{:+.0f}", p) : fmt::format("{:+.1f}", p);
  };
  return fmt::format("{}% [{}, {}]", pct(r.estimate), pct(r.low), pct(r.high));
}

// Console lines fit kWidth columns: the id column takes what the others leave, and a longer id
// gets a line of its own above its numbers.
constexpr std::size_t kWidth = 120;
constexpr std::size_t kNumbers = 2 + 10 + 2 + 10 + 2 + 24 + 2;  // base, new, change and their gaps
constexpr std::size_t kVerdict = 24;  // room kept for a verdict: "slower (critical) [12,13]"

/// `lead` then `text`, wrapped at spaces to kWidth columns, continuation lines under the text.
void print_wrapped(std::FILE* out, const std::string& lead, const std::string& text) {
  const std::size_t room = kWidth - lead.size();
  const std::string shown = terminal_text(text);  // may name devices and files: shown, never obeyed
  std::string_view rest = shown;
  bool first = true;
  while (!rest.empty()) {
    std::size_t cut = rest.size();
    if (cut > room) {
      cut = rest.rfind(' ', room);
      if (cut == std::string_view::npos || cut == 0) cut = room;  // one long word: cut it
    }
    fmt::print(out, "{}{}\n", first ? lead : std::string(lead.size(), ' '), rest.substr(0, cut));
    rest.remove_prefix(cut);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    first = false;
  }
}

/// Notes numbered once in order of first use: a reason shared by many records ("host-timed, no
/// history ...") is printed once under the table instead of on every line.
class footnotes {
 public:
  /// "[1,3]" for the "; "-separated parts of `note` ("" for no note).
  std::string mark(const std::string& note) {
    if (note.empty()) return {};
    std::string refs;
    for (std::size_t from = 0; from <= note.size();) {
      const std::size_t to = std::min(note.find("; ", from), note.size());
      const std::string part = note.substr(from, to - from);
      auto it = std::find(parts_.begin(), parts_.end(), part);
      if (it == parts_.end()) it = parts_.insert(parts_.end(), part);
      refs += (refs.empty() ? "" : ",") + std::to_string(it - parts_.begin() + 1);
      from = to + 2;
    }
    return "[" + refs + "]";
  }
  void print(std::FILE* out) const {
    if (parts_.empty()) return;
    fmt::print(out, "\nwhy inconclusive:\n");
    for (std::size_t i = 0; i < parts_.size(); ++i) print_wrapped(out, fmt::format("  [{}] ", i + 1), parts_[i]);
  }

 private:
  std::vector<std::string> parts_;
};

}  // namespace

void print_compare_warning(std::FILE* out, const std::string& text) { print_wrapped(out, "gpubench: warning: ", text); }

void print_comparison(std::FILE* out, const comparison& c, const console_style& style) {
  const auto paint = [&](const std::string& t, const char* ansi) {
    return style.color ? fmt::format("{}{}\x1b[0m", ansi, t) : t;
  };
  // Verdict texts first (footnotes numbered in print order), so the id column can take what the
  // numbers and the longest verdict leave of kWidth.
  footnotes notes;
  std::vector<std::string> record_verdicts, speedup_verdicts;
  std::size_t longest_id = 6, longest_verdict = 7;
  for (const auto& r : c.records) {
    std::string v = to_string(r.result);
    if (r.critical) v += " (critical)";
    if (!r.note.empty()) v += " " + notes.mark(r.note);
    if (!(style.quiet && r.result == verdict::same)) {
      longest_id = std::max(longest_id, r.id.size());
      longest_verdict = std::max(longest_verdict, v.size());
    }
    record_verdicts.push_back(std::move(v));
  }
  for (const auto& s : c.speedups) {
    std::string word = s.result == verdict::slower   ? "shrank"
                       : s.result == verdict::faster ? "grew"
                       : s.result == verdict::same   ? "same"
                                                     : "inconclusive";
    if (!s.note.empty()) word += " " + notes.mark(s.note);
    speedup_verdicts.push_back(std::move(word));
  }
  const std::size_t room = kWidth - kNumbers - std::min(longest_verdict, kVerdict);
  const std::size_t width = std::min(longest_id, room);
  // The id, alone on its line when it does not fit its column; returns the column's text.
  const auto id_cell = [&](const std::string& id, const char* indent) {
    if (id.size() <= width) return id;
    fmt::print(out, "{}{}\n", indent, id);
    return std::string();
  };
  fmt::print(out, "base: {} ({})\nnew:  {} ({})\n", terminal_text(c.base_source), terminal_text(c.base_device),
             terminal_text(c.new_source), terminal_text(c.new_device));
  fmt::print(out, "verdicts at ±{} (critical {}), intervals at {} confidence each (Bonferroni over {} records)\n",
             format_percent(c.options.threshold), format_percent(c.options.critical),
             format_percent(c.interval_confidence), c.records.size());
  if (c.history_runs > 0)
    fmt::print(out, "run-to-run drift estimated from the base and {} earlier run{}\n", c.history_runs,
               c.history_runs == 1 ? "" : "s");
  fmt::print(out, "\n");
  fmt::print(out, "{:<{}}  {:>10}  {:>10}  {:<24}  {}\n", "record", width, "base", "new", "time change [interval]",
             "verdict");
  for (std::size_t i = 0; i < c.records.size(); ++i) {
    const auto& r = c.records[i];
    if (style.quiet && r.result == verdict::same) continue;
    const std::string id = id_cell(terminal_text(r.id), "");
    fmt::print(out, "{:<{}}  {:>10}  {:>10}  {:<24}  {}\n", id, width, format_duration(r.base_median),
               format_duration(r.new_median), r.base_median > 0 && r.new_median > 0 ? change(r.ratio) : "",
               paint(record_verdicts[i], colour_of(r.result)));
  }
  if (!c.speedups.empty()) {
    fmt::print(out, "\nspeedups over the baseline (robust to machine drift):\n");
    for (std::size_t i = 0; i < c.speedups.size(); ++i) {
      const auto& s = c.speedups[i];
      if (style.quiet && s.result == verdict::same) continue;
      const std::string id = id_cell(terminal_text(s.id), "  ");
      fmt::print(out, "  {:<{}}  {} → {}  {}\n", id, width, format_factor(s.base_speedup), format_factor(s.new_speedup),
                 paint(speedup_verdicts[i], colour_of(s.result)));
    }
  }
  notes.print(out);
  if (!c.only_in_base.empty() || !c.only_in_new.empty() || !c.skipped_in_both.empty()) fmt::print(out, "\n");
  for (const auto& id : c.only_in_base) fmt::print(out, "only in base: {}\n", terminal_text(id));
  for (const auto& id : c.only_in_new) fmt::print(out, "only in new:  {}\n", terminal_text(id));
  for (const auto& id : c.skipped_in_both) fmt::print(out, "skipped in both (not judged): {}\n", terminal_text(id));
  fmt::print(out, "\n{} slower ({} critical), {} faster, {} same, {} inconclusive; {} only in base, {} only in new\n",
             c.count(verdict::slower), c.critical_count(), c.count(verdict::faster), c.count(verdict::same),
             c.count(verdict::inconclusive), c.only_in_base.size(), c.only_in_new.size());
}

}  // namespace gpubench
