// Console view of launch facts and of tuning pairs (see console_launch.hpp for the layouts).
#include "report/console_launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/format.hpp"

namespace gpubench::detail {
namespace {

const double* find(const launch_facts& f, const char* key) {
  const auto it = f.find(key);
  return it == f.end() ? nullptr : &it->second;
}

const double* achieved_occupancy(const metric_result* m) {
  if (m == nullptr || m->status != metrics_status::collected) return nullptr;
  const auto it = m->derived.find("achieved_occupancy_pct");
  return it == m->derived.end() ? nullptr : &it->second;
}

std::string bytes(double b) {
  if (b < 1024) return fmt::format("{:g} B", b);
  return fmt::format("{:.1f} KiB", b / 1024);
}

// The facts the console knows, in the order it shows them; launch_line() spells each.
constexpr const char* kKnown[] = {"block_threads",        "grid_blocks",           "blocks_per_sm",
                                  "theoretical_occupancy_pct", "registers_per_thread", "local_bytes_per_thread",
                                  "shared_bytes_per_block"};

bool known(const std::string& key) {
  for (const char* k : kKnown)
    if (key == k) return true;
  return false;
}

}  // namespace

std::string launch_line(const launch_facts& f, const metric_result* counters) {
  std::vector<std::string> parts;
  const double* threads = find(f, "block_threads");
  const double* blocks = find(f, "grid_blocks");
  if (threads && blocks) parts.push_back(fmt::format("{:g} threads × {:g} blocks", *threads, *blocks));
  else if (threads) parts.push_back(fmt::format("{:g} threads/block", *threads));
  else if (blocks) parts.push_back(fmt::format("{:g} blocks", *blocks));
  if (const double* v = find(f, "blocks_per_sm")) parts.push_back(fmt::format("{:g} blocks/SM", *v));
  const double* theoretical = find(f, "theoretical_occupancy_pct");
  const double* achieved = achieved_occupancy(counters);
  if (theoretical && achieved)
    parts.push_back(fmt::format("occupancy {:.1f}% theoretical, {:.1f}% achieved", *theoretical, *achieved));
  else if (theoretical) parts.push_back(fmt::format("occupancy {:.1f}% theoretical", *theoretical));
  else if (achieved) parts.push_back(fmt::format("occupancy {:.1f}% achieved", *achieved));
  if (const double* v = find(f, "registers_per_thread")) parts.push_back(fmt::format("{:g} registers", *v));
  if (const double* v = find(f, "local_bytes_per_thread")) parts.push_back(fmt::format("local {}/thread", bytes(*v)));
  if (const double* v = find(f, "shared_bytes_per_block")) parts.push_back(fmt::format("shared {}/block", bytes(*v)));
  for (const auto& [key, value] : f)
    if (!known(key)) parts.push_back(fmt::format("{} {:g}", key, value));
  return fmt::format("{}", fmt::join(parts, " · "));
}

std::string tuning_row(const record& r, std::size_t name_width) {
  const std::string name = fmt::format("{:<{}}", r.variant, name_width);
  if (r.status == record_status::profiled)
    return fmt::format("{}       ran once for a profiler; verification: {}", name, to_string(r.check.result));
  if (r.status != record_status::passed || !r.stats)
    return fmt::format("{}       {}: {}", name, to_string(r.status), r.reason);
  const std::string rank = r.tuning && r.tuning->rank > 0 ? fmt::format("#{}", r.tuning->rank) : std::string("");
  std::string row = fmt::format("{} {:>4}  {:>10} ± {:<6}", name, rank, format_duration(r.stats->median),
                                format_percent(r.stats->rel_noise));
  if (r.floor)  // ▲: above its roof, explained once under the grid (console.cpp)
    row += fmt::format("  {:>6}{} of floor", format_percent(r.floor->fraction), r.floor->above_roof() ? "▲" : "");
  row += r.speedup ? fmt::format("  {:>6}", format_factor(*r.speedup)) : std::string("  (base)");
  std::vector<std::string> facts;
  const double* achieved = achieved_occupancy(r.metrics ? &*r.metrics : nullptr);
  if (const double* v = find(r.facts, "theoretical_occupancy_pct"))
    facts.push_back(achieved ? fmt::format("occupancy {:.1f}% ({:.1f}% achieved)", *v, *achieved)
                             : fmt::format("occupancy {:.1f}%", *v));
  else if (achieved) facts.push_back(fmt::format("occupancy {:.1f}% achieved", *achieved));
  if (const double* v = find(r.facts, "blocks_per_sm")) facts.push_back(fmt::format("{:g} blocks/SM", *v));
  if (const double* v = find(r.facts, "registers_per_thread")) facts.push_back(fmt::format("{:g} registers", *v));
  if (const double* v = find(r.facts, "local_bytes_per_thread"); v && *v > 0)
    facts.push_back(fmt::format("local {}/thread", bytes(*v)));
  if (!facts.empty()) row += fmt::format("  {}", fmt::join(facts, " · "));
  if (r.floor && r.floor->suspect) row += "  ⚠ SUSPECT: faster than the physical floor";
  return row;
}

std::vector<std::string> tuning_verdict(const tuning_summary& s, double near) {
  std::vector<std::string> lines;
  const record& best = *s.best;
  std::string line = fmt::format("best of {} configurations: {} at {}", s.ranked, best.variant,
                                 format_duration(best.stats->median));
  if (s.baseline == s.best) line += " (the default)";
  else if (s.baseline != nullptr)
    line += fmt::format(", {} faster than the default {}", format_factor(s.baseline->stats->median / best.stats->median),
                        s.baseline->variant);
  else line += ", the default configuration was not timed";
  if (s.runner_up != nullptr)
    line += fmt::format("; runner-up {} +{}", s.runner_up->variant,
                        format_percent(s.runner_up->stats->median / best.stats->median - 1));
  if (s.ranked < s.configurations) line += fmt::format(" ({} not timed)", s.configurations - s.ranked);
  lines.push_back(line);
  if (!s.near_best.empty()) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < s.near_best.size() && i < 8; ++i) names.push_back(s.near_best[i]->variant);
    if (s.near_best.size() > 8) names.push_back(fmt::format("and {} more", s.near_best.size() - 8));
    lines.push_back(fmt::format("within {} of it: {} (a re-run may rank these differently)", format_percent(near),
                                fmt::join(names, ", ")));
  }
  return lines;
}

}  // namespace gpubench::detail
