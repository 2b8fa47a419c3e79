// Console view of `gpubench compare`, wrapped to the console's width (style.width).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpubench/console.hpp"
#include "gpubench/escape.hpp"
#include "gpubench/format.hpp"
#include "gpubench/text_width.hpp"

namespace gpubench {

namespace {

constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kBoldRed = "\x1b[1;31m";

// Colour only outside the same band: a change the interval shows beyond the threshold. A same or
// inconclusive verdict stays plain, so "+0.4%, inconclusive" does not shout like a regression.
const char* colour_of(verdict v, bool critical) {
  switch (v) {
    case verdict::faster: return kGreen;
    case verdict::slower: return critical ? kBoldRed : kRed;
    case verdict::inconclusive:
    case verdict::same: return nullptr;
  }
  return nullptr;
}

// A ratio as a signed percent change with its interval: "+12.3% [+10.1, +14.2]". Past ±100% a
// decimal says nothing and only widens the column.
std::string change(const ratio_interval& r) {
  const auto pct = [](double x) {
    const double p = (x - 1) * 100;
    return std::abs(p) >= 100 ? fmt::format("{:+.0f}", p) : fmt::format("{:+.1f}", p);
  };
  return fmt::format("{}% [{}, {}]", pct(r.estimate), pct(r.low), pct(r.high));
}

/// `lead` then `text`, wrapped to `width` columns, continuation lines under the text. Paths and
/// ids without spaces break after a '/'.
void print_wrapped(std::FILE* out, std::string_view lead, std::string_view text, std::size_t width) {
  const std::size_t indent = display_width(lead);
  const std::size_t room = width > indent ? width - indent : 1;
  bool first = true;
  // Sources, devices and ids may hold anything: shown, never obeyed (gpubench/escape.hpp).
  for (const std::string& line : wrap_text(terminal_text(std::string(text)), room, "/")) {
    fmt::print(out, "{}{}\n", first ? std::string(lead) : std::string(indent, ' '), line);
    first = false;
  }
}

/// One footnote per kind of reason: reasons that differ only in their numbers ("base: noise 6.1%
/// above 5.00%", "base: noise 8.4% above 5.00%") share one note, numbered once in order of first
/// use. The note keeps the numbers all its uses agree on and shows "…" for the others, which
/// each row's own interval gives.
class footnotes {
 public:
  /// "[1,3]" for the "; "-separated parts of `note` ("" for no note).
  std::string mark(const std::string& note) {
    if (note.empty()) return {};
    std::string refs;
    for (std::size_t from = 0; from <= note.size();) {
      const std::size_t to = std::min(note.find("; ", from), note.size());
      const std::string part = note.substr(from, to - from);
      const std::string key = shape_of(part).first;
      auto it = std::find_if(kinds_.begin(), kinds_.end(), [&](const kind& k) { return k.key == key; });
      if (it == kinds_.end()) it = kinds_.insert(kinds_.end(), kind{key, {}});
      it->uses.push_back(part);
      refs += (refs.empty() ? "" : ",") + std::to_string(it - kinds_.begin() + 1);
      from = to + 2;
    }
    return "[" + refs + "]";
  }
  void print(std::FILE* out, std::size_t width) const {
    if (kinds_.empty()) return;
    fmt::print(out, "\nwhy inconclusive:\n");
    for (std::size_t i = 0; i < kinds_.size(); ++i)
      print_wrapped(out, fmt::format("  [{}] ", i + 1), kinds_[i].text(), width);
  }

 private:
  struct kind {
    std::string key;                ///< the text with every number replaced by '#'
    std::vector<std::string> uses;  ///< each use's own text
    [[nodiscard]] std::string text() const {
      const auto [pattern, first] = shape_of(uses.front());
      std::vector<bool> agree(first.size(), true);
      for (const std::string& u : uses) {
        const auto numbers = shape_of(u).second;
        for (std::size_t i = 0; i < first.size() && i < numbers.size(); ++i)
          agree[i] = agree[i] && numbers[i] == first[i];
      }
      std::string out;
      std::size_t n = 0;
      for (const char ch : pattern) {
        if (ch != '#') out += ch;
        else {
          out += agree[n] ? first[n] : "…";
          ++n;
        }
      }
      return out;
    }
  };

  /// `text` with every number ("6.1", "+4.5", "12") replaced by '#', and the numbers in order.
  /// A digit inside a word ("b256_k8", "ch01") is part of the word, not a number.
  static std::pair<std::string, std::vector<std::string>> shape_of(const std::string& text) {
    std::string pattern;
    std::vector<std::string> numbers;
    const auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
    for (std::size_t i = 0; i < text.size();) {
      const bool sign = (text[i] == '+' || text[i] == '-') && i + 1 < text.size() &&
                        std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0;
      const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
      if ((sign || digit) && (i == 0 || !word(text[i - 1]))) {
        std::size_t j = i + (sign ? 1 : 0);
        while (j < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[j])) != 0 ||
                (text[j] == '.' && j + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[j + 1])) != 0)))
          ++j;
        if (j >= text.size() || !word(text[j])) {  // "12abc" is a word
          numbers.push_back(text.substr(i, j - i));
          pattern += '#';
          i = j;
          continue;
        }
      }
      pattern += text[i++];
    }
    return {pattern, numbers};
  }

  std::vector<kind> kinds_;
};

/// What the intervals can see, and what limits them: the median record's resolvable change, how
/// many resolve 5% and 10%, and per limiting term how many records it limits, with what narrows it.
void print_resolution(std::FILE* out, const comparison& c, std::size_t width) {
  std::vector<double> resolvable;
  std::size_t by_term[4] = {0, 0, 0, 0};
  for (const auto& r : c.records)
    if (r.log_sd > 0) {
      resolvable.push_back(r.resolvable);
      ++by_term[static_cast<int>(r.limit)];
    }
  if (resolvable.empty()) return;
  std::sort(resolvable.begin(), resolvable.end());
  const auto within = [&](double x) {
    return std::count_if(resolvable.begin(), resolvable.end(), [&](double v) { return v <= x; });
  };
  fmt::print(out, "\n");
  print_wrapped(out, "resolution: ",
                fmt::format("the median record resolves {}; {} of {} resolve 5%, {} resolve 10%",
                            format_percent(resolvable[resolvable.size() / 2]), within(0.05), resolvable.size(),
                            within(0.10)),
                width);
  // How noisy the machine was, for an ab session: the intervals widen with it, whatever the code.
  if (const std::optional<double> spread = c.median_cycle_spread())
    print_wrapped(out, "cycle spread: ",
                  fmt::format("{}, the median record's (how far one cycle's new/base strays: the machine's noise "
                              "and the workers' offsets; docs/measurement.md, \"A noisy host\")",
                              format_percent(*spread)),
                  width);
  // Each term with the options that narrow it: `gpubench ab`'s own where its cycles judged the
  // records (it has no --rounds or --processes).
  const bool ab = std::any_of(c.records.begin(), c.records.end(), [](const auto& r) { return r.evidence == "cycles"; });
  static constexpr const char* kWhat[4] = {
      "within rounds (more samples: --min-time)", "between rounds (more rounds: --rounds, --max-rounds)",
      "between processes, measured (more processes, history or ab cycles)",
      "the fitted floor, nothing measured it (gpubench ab, run --processes K, or --history)"};
  // At ab's most workers, only earlier sessions add pairs of workers.
  const bool more_workers = c.ab_workers_per_build < kAbMaxWorkersPerBuild;
  const std::string between_ab =
      more_workers
          ? "between processes, measured (more worker pairs: --workers; earlier sessions: --history)"
          : fmt::format("between processes, measured ({} worker pairs, ab's most; earlier sessions: --history)",
                        c.ab_workers_per_build);
  const std::array<const char*, 4> what_ab = {"within rounds (more samples: --min-time)",
                                              "between rounds (more cycles: --cycles, --max-cycles, --size-budget)",
                                              between_ab.c_str(),
                                              "the fitted floor, nothing measured it (--workers 2 or more)"};
  for (int t = 0; t < 4; ++t)
    if (by_term[t] > 0)
      print_wrapped(out, fmt::format("  limited by {:>3}: ", by_term[t]),
                    ab ? what_ab[static_cast<std::size_t>(t)] : kWhat[t], width);
}

void print_row(std::FILE* out, std::string_view indent, const std::vector<text_column>& cols,
               const std::vector<std::string>& cells, const std::vector<const char*>& colours, bool color) {
  const auto paint = [&](std::size_t i, const std::string& text) {
    return i < colours.size() && colours[i] != nullptr ? fmt::format("{}{}\x1b[0m", colours[i], text) : text;
  };
  for (const std::string& line :
       table_row(indent, cols, cells, color ? paint : std::function<std::string(std::size_t, const std::string&)>()))
    fmt::print(out, "{}\n", line);
}

/// Widths for an id column and a verdict column sharing what `fixed` columns leave of `width`:
/// the verdicts keep up to `verdict_share` of it (at least `verdict_min` columns), the ids take
/// the rest (at least 12).
std::pair<std::size_t, std::size_t> share(std::size_t width, std::size_t fixed, std::size_t longest_id,
                                          std::size_t longest_verdict, double verdict_share, std::size_t verdict_min) {
  const std::size_t room = width > fixed + 24 ? width - fixed : 24;
  std::size_t verdict =
      std::min(longest_verdict,
               std::max(static_cast<std::size_t>(static_cast<double>(room) * verdict_share), verdict_min));
  std::size_t id = std::max<std::size_t>(room > verdict ? room - verdict : 12, 12);
  if (id > longest_id) {  // the ids need less: give the verdicts what they leave
    id = longest_id;
    verdict = std::min(longest_verdict, room - id);
  }
  return {id, std::max<std::size_t>(verdict, 1)};
}

}  // namespace

void print_compare_warning(std::FILE* out, const std::string& text) {
  print_wrapped(out, "gpubench: warning: ", text, console_width(out));
}

void print_comparison(std::FILE* out, const comparison& c, const console_style& style) {
  const std::size_t width = std::max(style.width, kMinConsoleWidth);
  const auto bold = [&](const std::string& t) { return style.color ? "\x1b[1m" + t + "\x1b[0m" : t; };
  // Verdict texts first (footnotes numbered in print order), then the columns fitted to what is shown.
  footnotes notes;
  std::vector<std::string> record_verdicts, speedup_verdicts, record_changes, speedup_changes;
  std::vector<record_id_parts> record_names, speedup_names;
  std::size_t longest_variant = 7, longest_verdict = 7, base_w = 4, new_w = 3, change_w = 22;
  for (const auto& r : c.records) {
    std::string v = to_string(r.result);
    if (r.critical) v += " (critical)";
    if (!r.note.empty()) v += " " + notes.mark(r.note);
    std::string ch = r.base_median > 0 && r.new_median > 0 ? change(r.ratio) : "";
    record_names.push_back(split_record_id(terminal_text(r.id)));
    if (!(style.quiet && r.result == verdict::same)) {
      longest_variant = std::max(longest_variant, display_width(record_names.back().variant));
      longest_verdict = std::max(longest_verdict, display_width(v));
      base_w = std::max(base_w, display_width(format_duration(r.base_median)));
      new_w = std::max(new_w, display_width(format_duration(r.new_median)));
      change_w = std::max(change_w, display_width(ch));
    }
    record_verdicts.push_back(std::move(v));
    record_changes.push_back(std::move(ch));
  }
  std::size_t longest_speedup_variant = 7, speedup_w = 0, speedup_change_w = 25, longest_word = 7;
  for (const auto& s : c.speedups) {
    std::string word = s.result == verdict::slower   ? "shrank"
                       : s.result == verdict::faster ? "grew"
                       : s.result == verdict::same   ? "same"
                                                     : "inconclusive";
    if (!s.note.empty()) word += " " + notes.mark(s.note);
    std::string ch = s.base_speedup > 0 && s.new_speedup > 0 ? change(s.ratio) : "";
    speedup_names.push_back(split_record_id(terminal_text(s.id)));
    if (!(style.quiet && s.result == verdict::same)) {
      longest_speedup_variant = std::max(longest_speedup_variant, display_width(speedup_names.back().variant));
      speedup_w =
          std::max(speedup_w, display_width(format_factor(s.base_speedup) + " → " + format_factor(s.new_speedup)));
      speedup_change_w = std::max(speedup_change_w, display_width(ch));
      longest_word = std::max(longest_word, display_width(word));
    }
    speedup_verdicts.push_back(std::move(word));
    speedup_changes.push_back(std::move(ch));
  }

  print_wrapped(out, "base: ", c.base_source + " (" + c.base_device + ")", width);
  print_wrapped(out, "new:  ", c.new_source + " (" + c.new_device + ")", width);
  print_wrapped(out, "",
                fmt::format("verdicts at ±{} (critical {}), intervals at {} confidence each ({})",
                            format_percent(c.options.threshold), format_percent(c.options.critical),
                            c.family_min == c.family_max ? format_percent(c.interval_confidence)
                                                         : "≥" + format_percent(c.interval_confidence),
                            c.family_phrase()),
                width);
  if (c.history_runs > 0)
    print_wrapped(out, "",
                  fmt::format("run-to-run drift estimated from the base and {} earlier run{}", c.history_runs,
                              c.history_runs == 1 ? "" : "s"),
                  width);
  fmt::print(out, "\n");

  // Records, under a line per pair and size: variant | base | new | time change [interval] | verdict.
  const std::size_t fixed = 2 + base_w + new_w + change_w + 4 * 2;
  const auto [variant_w, verdict_w] = share(width, fixed, longest_variant, longest_verdict, 1.0 / 3, 18);
  const std::vector<text_column> cols{
      {variant_w, false, "_"}, {base_w, true, ""}, {new_w, true, ""}, {change_w, false, ""}, {verdict_w, false, ","}};
  print_row(out, "  ", cols, {"variant", "base", "new", "time change [interval]", "verdict"}, {}, false);
  std::string group;
  for (std::size_t i = 0; i < c.records.size(); ++i) {
    const auto& r = c.records[i];
    if (style.quiet && r.result == verdict::same) continue;
    if (record_names[i].group != group) {
      group = record_names[i].group;
      for (const std::string& line : wrap_text(group, width, "/,[")) fmt::print(out, "{}\n", bold(line));
    }
    print_row(out, "  ", cols,
              {record_names[i].variant, format_duration(r.base_median), format_duration(r.new_median),
               record_changes[i], record_verdicts[i]},
              {nullptr, nullptr, nullptr, nullptr, colour_of(r.result, r.critical)}, style.color);
  }

  // Speedups, grouped the same way: variant | speedup change [interval] | base → new  verdict.
  if (!c.speedups.empty()) {
    fmt::print(out, "\nspeedups over the baseline (robust to machine drift):\n");
    const std::size_t sfixed = 2 + speedup_change_w + 2 * 2;
    const auto [sv_w, tail_w] = share(width, sfixed, longest_speedup_variant, speedup_w + 2 + longest_word, 0.5, 26);
    const std::vector<text_column> scols{{sv_w, false, "_"}, {speedup_change_w, false, ""}, {tail_w, false, ","}};
    print_row(out, "  ", scols, {"variant", "speedup change [interval]", "base → new  verdict"}, {}, false);
    group.clear();
    for (std::size_t i = 0; i < c.speedups.size(); ++i) {
      const auto& s = c.speedups[i];
      if (style.quiet && s.result == verdict::same) continue;
      if (speedup_names[i].group != group) {
        group = speedup_names[i].group;
        for (const std::string& line : wrap_text(group, width, "/,[")) fmt::print(out, "{}\n", bold(line));
      }
      print_row(out, "  ", scols,
                {speedup_names[i].variant, speedup_changes[i],
                 fmt::format("{} → {}  {}", format_factor(s.base_speedup), format_factor(s.new_speedup),
                             speedup_verdicts[i])},
                {nullptr, nullptr, colour_of(s.result, false)}, style.color);
    }
  }
  notes.print(out, width);
  if (!c.only_in_base.empty() || !c.only_in_new.empty() || !c.skipped_in_both.empty()) fmt::print(out, "\n");
  for (const auto& id : c.only_in_base) print_wrapped(out, "only in base: ", id, width);
  for (const auto& id : c.only_in_new) print_wrapped(out, "only in new:  ", id, width);
  for (const auto& id : c.skipped_in_both) print_wrapped(out, "skipped in both (not judged): ", id, width);
  print_resolution(out, c, width);
  fmt::print(out, "\n");
  print_wrapped(
      out, "",
      fmt::format("{} slower ({} critical), {} faster, {} same, {} inconclusive; {} only in base, {} only in new",
                  c.count(verdict::slower), c.critical_count(), c.count(verdict::faster), c.count(verdict::same),
                  c.count(verdict::inconclusive), c.only_in_base.size(), c.only_in_new.size()),
      width);
}

}  // namespace gpubench
