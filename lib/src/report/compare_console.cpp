// Console view of `gpubench compare`.
#include <algorithm>

#include <fmt/format.h>

#include "gpubench/console.hpp"
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
  const auto pct = [](double x) { return fmt::format("{:+.1f}", (x - 1) * 100); };
  return fmt::format("{}% [{}, {}]", pct(r.estimate), pct(r.low), pct(r.high));
}

}  // namespace

void print_comparison(std::FILE* out, const comparison& c, const console_style& style) {
  const auto paint = [&](const std::string& t, const char* ansi) {
    return style.color ? fmt::format("{}{}\x1b[0m", ansi, t) : t;
  };
  std::size_t width = 20;
  for (const auto& r : c.records) width = std::max(width, r.id.size());
  fmt::print(out, "base: {} ({})\nnew:  {} ({})\n", c.base_source, c.base_device, c.new_source, c.new_device);
  fmt::print(out, "verdicts at ±{} (critical {}), intervals at {} confidence each (Bonferroni over {} records)\n",
             format_percent(c.options.threshold), format_percent(c.options.critical),
             format_percent(c.interval_confidence), c.records.size());
  if (c.history_runs > 0)
    fmt::print(out, "run-to-run drift estimated from the base and {} earlier run{}\n", c.history_runs,
               c.history_runs == 1 ? "" : "s");
  fmt::print(out, "\n");
  fmt::print(out, "{:<{}}  {:>11}  {:>11}  {:<27}  {}\n", "record", width, "base", "new", "time change [interval]", "verdict");
  for (const auto& r : c.records) {
    if (style.quiet && r.result == verdict::same) continue;
    std::string v = to_string(r.result);
    if (r.critical) v += " (critical)";
    if (!r.note.empty()) v += ": " + r.note;
    fmt::print(out, "{:<{}}  {:>11}  {:>11}  {:<27}  {}\n", r.id, width, format_duration(r.base_median),
               format_duration(r.new_median), r.base_median > 0 && r.new_median > 0 ? change(r.ratio) : "",
               paint(v, colour_of(r.result)));
  }
  if (!c.speedups.empty()) {
    fmt::print(out, "\nspeedups over the baseline (robust to machine drift):\n");
    for (const auto& s : c.speedups) {
      if (style.quiet && s.result == verdict::same) continue;
      const char* word = s.result == verdict::slower   ? "shrank"
                         : s.result == verdict::faster ? "grew"
                         : s.result == verdict::same   ? "same"
                                                       : "inconclusive";
      fmt::print(out, "  {:<{}}  {} → {}  {}\n", s.id, width, format_factor(s.base_speedup), format_factor(s.new_speedup),
                 paint(word, colour_of(s.result)));
    }
  }
  for (const auto& id : c.only_in_base) fmt::print(out, "only in base: {}\n", id);
  for (const auto& id : c.only_in_new) fmt::print(out, "only in new:  {}\n", id);
  for (const auto& id : c.skipped_in_both) fmt::print(out, "skipped in both (not judged): {}\n", id);
  fmt::print(out, "\n{} slower ({} critical), {} faster, {} same, {} inconclusive; {} only in base, {} only in new\n",
             c.count(verdict::slower), c.critical_count(), c.count(verdict::faster), c.count(verdict::same),
             c.count(verdict::inconclusive), c.only_in_base.size(), c.only_in_new.size());
}

}  // namespace gpubench
