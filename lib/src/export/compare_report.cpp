/// A comparison for CI: markdown for a job summary or a pull-request comment, JUnit XML for test
/// report widgets (slower → failure, inconclusive → skipped), and JSON for scripts.
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/format.hpp"
#include "export/markdown_text.hpp"

namespace gpubench {
namespace {

using ojson = nlohmann::ordered_json;

struct tally {
  std::size_t slower = 0, critical = 0, faster = 0, same = 0, inconclusive = 0;
};

tally count_verdicts(const comparison& c) {
  return {c.count(verdict::slower), c.critical_count(), c.count(verdict::faster), c.count(verdict::same),
          c.count(verdict::inconclusive)};
}

ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

std::string ratio_text(const ratio_interval& r) {
  if (!std::isfinite(r.estimate)) return "n/a";
  const auto bound = [](double v) { return std::isfinite(v) ? fmt::format("{:.3f}", v) : std::string("n/a"); };
  return fmt::format("{:.3f} [{}, {}]", r.estimate, bound(r.low), bound(r.high));
}

std::string record_size(const record_comparison& r) { return r.variant + "[" + r.size + "]"; }

// ---------------------------------------------------------------------------------- markdown

using detail::md_cell;

/// Inline code (gpubench/escape.hpp, markdown_code).
std::string md_code(std::string_view s) { return markdown_code(s); }

std::string md_verdict(const record_comparison& r) {
  switch (r.result) {
    case verdict::slower: return r.critical ? "⚠ **slower (critical)**" : "⚠ slower";
    case verdict::faster: return "✓ faster";
    case verdict::same: return "✓ same";
    case verdict::inconclusive: return "inconclusive" + (r.note.empty() ? std::string() : ": " + md_cell(r.note));
  }
  return "?";
}

std::string md_speedup_verdict(const speedup_comparison& s) {
  switch (s.result) {
    case verdict::slower: return "⚠ speedup shrank";
    case verdict::faster: return "✓ speedup grew";
    case verdict::same: return "✓ same";
    case verdict::inconclusive: return "inconclusive" + (s.note.empty() ? std::string() : ": " + md_cell(s.note));
  }
  return "?";
}

// ---------------------------------------------------------------------------------- XML

/// XML 1.0 text and attribute values (gpubench/escape.hpp, xml_text): what XML cannot hold and
/// what a reader cannot see is shown as an escape, so tab, LF and CR never need a reference.
std::string xml(std::string_view s, bool /*attribute*/ = true) { return xml_text(s); }

std::string junit_time(double seconds) {
  return fmt::format("{:.9f}", std::isfinite(seconds) && seconds > 0 ? seconds : 0.0);
}

std::string change_text(const record_comparison& r) {
  return fmt::format("new/base time ratio {} (base {}, new {})", ratio_text(r.ratio), format_duration(r.base_median),
                     format_duration(r.new_median));
}

}  // namespace

std::string comparison_markdown(const comparison& c) {
  const tally t = count_verdicts(c);
  std::string out = fmt::format("**{} slower{}, {} faster, {} same, {} inconclusive** — {} vs {}\n\n", t.slower,
                                t.critical ? fmt::format(" ({} critical)", t.critical) : std::string(), t.faster,
                                t.same, t.inconclusive, md_cell(c.base_device), md_cell(c.new_device));
  out +=
      fmt::format("{} → {} · threshold {} (critical {}) · {}{} confidence per record, {} {}\n", md_code(c.base_source),
                  md_code(c.new_source), format_percent(c.options.threshold), format_percent(c.options.critical),
                  c.family_min == c.family_max ? "" : "≥", format_percent(c.interval_confidence),
                  format_percent(1 - c.options.alpha), c.family_per_chapter ? "within each chapter" : "overall");
  if (!c.same_device)
    out += "\n> ⚠ The profiles come from different GPUs: absolute times differ by hardware; the speedups are the "
           "comparable part.\n";
  if (const std::string mixed = c.figures_differ_warning(); !mixed.empty()) out += "\n> ⚠ " + mixed + ".\n";
  if (const std::string rest = c.rest_differs_warning(); !rest.empty()) out += "\n> ⚠ " + rest + ".\n";
  if (const std::string chip = c.another_chip_warning(); !chip.empty()) out += "\n> ⚠ " + chip + ".\n";
  if (const std::string repeats = c.history_repeats_warning(); !repeats.empty()) out += "\n> ⚠ " + repeats + ".\n";

  if (!c.records.empty()) {
    out += "\n| id | base | new | ratio [low, high] | verdict |\n|---|--:|--:|---|---|\n";
    for (const record_comparison& r : c.records)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", md_code(r.id), format_duration(r.base_median),
                         format_duration(r.new_median), ratio_text(r.ratio), md_verdict(r));
  }
  const auto list = [&](const char* title, const std::vector<std::string>& ids) {
    if (ids.empty()) return;
    out += fmt::format("\n**{}** ({}):\n\n", title, ids.size());
    for (const std::string& id : ids) out += "- " + md_code(id) + "\n";
  };
  list("Only in base", c.only_in_base);
  list("Only in new", c.only_in_new);
  list("Skipped in both runs (not judged)", c.skipped_in_both);

  if (!c.speedups.empty()) {
    out += "\n**Speedups** (baseline time ÷ variant time, within each run):\n\n";
    out += "| id | base | new | ratio [low, high] | verdict |\n|---|--:|--:|---|---|\n";
    for (const speedup_comparison& s : c.speedups)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", md_code(s.id), format_factor(s.base_speedup),
                         format_factor(s.new_speedup), ratio_text(s.ratio), md_speedup_verdict(s));
  }
  return out;
}

std::string comparison_junit(const comparison& c) {
  const tally t = count_verdicts(c);
  const std::size_t tests = c.records.size();
  double total = 0;
  for (const record_comparison& r : c.records)
    if (std::isfinite(r.new_median) && r.new_median > 0) total += r.new_median;

  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"gpubench compare\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                     "time=\"{}\">\n",
                     tests, t.slower, t.inconclusive, junit_time(total));
  out += fmt::format("  <testsuite name=\"gpubench compare\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
                     "time=\"{}\">\n",
                     tests, t.slower, t.inconclusive, junit_time(total));
  out += "    <properties>\n";
  const auto property = [&](const char* name, const std::string& value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml(value));
  };
  property("base", c.base_source);
  property("new", c.new_source);
  property("base_device", c.base_device);
  property("new_device", c.new_device);
  property("threshold", fmt::format("{}", c.options.threshold));
  property("critical", fmt::format("{}", c.options.critical));
  property("alpha", fmt::format("{}", c.options.alpha));
  out += "    </properties>\n";

  for (const record_comparison& r : c.records) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
                       xml(fmt::format("ch{:02d}.{}", r.chapter, r.pair)), xml(record_size(r)),
                       junit_time(r.new_median));
    if (r.result == verdict::slower) {
      const std::string what = r.critical ? "slower beyond the critical threshold" : "slower";
      out += fmt::format(">\n      <failure message=\"{}\" type=\"{}\">{}: {}</failure>\n    </testcase>\n",
                         xml(what + ": " + change_text(r)), r.critical ? "critical" : "slower", xml(r.id, false),
                         xml(change_text(r), false));
    } else if (r.result == verdict::inconclusive) {
      const std::string why = r.note.empty() ? std::string("inconclusive") : "inconclusive: " + r.note;
      out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", xml(why + "; " + change_text(r)));
    } else {
      out += "/>\n";
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

nlohmann::ordered_json comparison_json(const comparison& c) {
  const tally t = count_verdicts(c);
  const auto interval = [](const ratio_interval& r) {
    return ojson{{"estimate", num(r.estimate)}, {"low", num(r.low)}, {"high", num(r.high)}};
  };
  ojson j = ojson::object();
  j["sources"] = {{"base", c.base_source}, {"new", c.new_source}};
  const std::optional<bool> same_gpu = c.same_gpu();
  j["devices"] = {{"base", c.base_device}, {"new", c.new_device}, {"same", c.same_device},
                  {"same_gpu", same_gpu ? ojson(*same_gpu) : ojson(nullptr)}};
  j["rest_ratio"] = {{"base", c.base_rest ? ojson(*c.base_rest) : ojson(nullptr)},
                     {"new", c.new_rest ? ojson(*c.new_rest) : ojson(nullptr)},
                     {"history_left_out", c.history_rested_differently}};
  j["options"] = {{"threshold", num(c.options.threshold)},
                  {"critical", num(c.options.critical)},
                  {"alpha", num(c.options.alpha)},
                  {"max_noise", num(c.options.noise_limit)},
                  {"min_samples", c.options.min_samples},
                  {"noise_model",
                   {{"floor_device", c.model.floor_device},
                    {"round_factor_device", c.model.round_factor_device},
                    {"floor_host", c.model.floor_host},
                    {"round_factor_host", c.model.round_factor_host},
                    {"floor_peer", c.model.floor_peer},
                    {"round_factor_peer", c.model.round_factor_peer},
                    {"floor_device_abs_s", c.model.floor_device_abs_s},
                    {"floor_pcie", c.model.floor_pcie},
                    {"round_factor_pcie", c.model.round_factor_pcie}}}};
  j["interval_confidence"] = num(c.interval_confidence);
  j["family"] = c.family_per_chapter ? "chapter" : "all";
  j["counts"] = {{"records", c.records.size()}, {"slower", t.slower},     {"critical", t.critical},
                 {"faster", t.faster},          {"same", t.same},         {"inconclusive", t.inconclusive},
                 {"only_in_base", c.only_in_base.size()}, {"only_in_new", c.only_in_new.size()}};
  ojson records = ojson::array();
  for (const record_comparison& r : c.records) {
    // What `ab --history` reads back (gpubench/pair_history.hpp).
    ojson pairs = r.pairs_var ? ojson{{"var", num(*r.pairs_var)}, {"df", num(r.pairs_df)}} : ojson(nullptr);
    if (r.pairs_var && r.context_slope) pairs["context_adjusted"] = true;
    records.push_back({{"id", r.id},
                       {"chapter", r.chapter},
                       {"pair", r.pair},
                       {"variant", r.variant},
                       {"size", r.size},
                       {"base_median_s", num(r.base_median)},
                       {"new_median_s", num(r.new_median)},
                       {"ratio", interval(r.ratio)},
                       {"verdict", to_string(r.result)},
                       {"critical", r.critical},
                       {"runs", r.runs},
                       {"drift_log_sd", num(r.drift)},
                       {"log_sd", num(r.log_sd)},
                       {"resolvable_pct", num(100 * r.resolvable)},
                       {"degrees_of_freedom", num(r.degrees_of_freedom)},
                       {"limited_by", to_string(r.limit)},
                       {"between_process_evidence", r.evidence},
                       {"between_pairs", pairs},
                       {"context_slope", r.context_slope ? num(*r.context_slope) : ojson(nullptr)},
                       {"pair_history_sessions", r.pair_history_sessions},
                       {"cycle_spread_pct", r.cycle_spread ? num(100 * *r.cycle_spread) : ojson(nullptr)},
                       {"wild_cycles", r.wild_cycles ? ojson(*r.wild_cycles) : ojson(nullptr)},
                       {"rounds", {{"base", r.rounds.first}, {"new", r.rounds.second}}},
                       {"judged_on", to_string(r.figure)},
                       {"note", r.note}});
  }
  j["records"] = std::move(records);
  ojson speedups = ojson::array();
  for (const speedup_comparison& s : c.speedups) {
    speedups.push_back({{"id", s.id},
                        {"base_speedup", num(s.base_speedup)},
                        {"new_speedup", num(s.new_speedup)},
                        {"ratio", interval(s.ratio)},
                        {"verdict", to_string(s.result)},
                        {"note", s.note}});
  }
  j["speedups"] = std::move(speedups);
  j["only_in_base"] = c.only_in_base;
  j["only_in_new"] = c.only_in_new;
  j["skipped_in_both"] = c.skipped_in_both;
  j["history_runs"] = c.history_runs;
  j["ab_session"] = c.ab_session.empty() ? ojson(nullptr) : ojson(c.ab_session);
  const std::optional<double> spread = c.median_cycle_spread();
  j["cycle_spread_pct"] = spread ? num(100 * *spread) : ojson(nullptr);
  j["history_repeats"] = {{"runs", c.history_repeated_runs}, {"records", c.history_repeated_records}};
  return j;
}

}  // namespace gpubench
