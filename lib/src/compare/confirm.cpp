// `run --confirm`: which records to re-measure, and how their rounds join (gpubench/confirm.hpp).
#include "gpubench/confirm.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {

namespace {
std::string percent(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }
}  // namespace

std::vector<confirm_target> confirm_targets(const comparison& c) {
  std::vector<confirm_target> out;
  const double limit = 1 + c.options.threshold;
  for (const record_comparison& r : c.records) {
    if (r.result == verdict::slower) {
      out.push_back({r.id, fmt::format("slower, {} [{}, {}]", percent(r.ratio.estimate), percent(r.ratio.low),
                                       percent(r.ratio.high))});
    } else if (r.result == verdict::inconclusive && r.base_median > 0 && r.new_median > 0 && r.ratio.high > limit &&
               std::isfinite(r.ratio.high)) {
      // More rounds shrink the interval at most to the between-process floors around the
      // estimate: a record that could be neither slower nor same then (chapter 1's host-timed
      // records within the host floor) would cost a process and change nothing.
      const double est = std::log(r.ratio.estimate), fixed = r.fixed_log_half_width, t = std::log(limit);
      if (est - fixed <= t && std::abs(est) + fixed >= t) continue;
      out.push_back({r.id, fmt::format("inconclusive, interval reaches {}", percent(r.ratio.high))});
    }
  }
  return out;
}

void merge_confirmation(record& into, const record& from, int process) {
  const std::string id = into.id();
  if (from.id() != id) throw usage_error(fmt::format("confirmation of {} measured {} instead", id, from.id()));
  if (into.status != record_status::passed || !into.stats)
    throw usage_error(fmt::format("{}: not timed in the run (status {}), so there is nothing to confirm", id, to_string(into.status)));
  if (from.status != record_status::passed || !from.stats || from.timing.samples_s.empty())
    throw usage_error(fmt::format("{}: the confirmation process did not time it (status {}{})", id, to_string(from.status),
                                  from.reason.empty() ? "" : ": " + from.reason));
  if (from.timing.source != into.timing.source || from.timing.method != into.timing.method)
    throw usage_error(fmt::format("{}: the confirmation timed it differently ({} vs {}); not merged", id,
                                  to_string(from.timing.source), to_string(into.timing.source)));
  timing_data& t = into.timing;
  const timing_data& f = from.timing;
  // A schema-1 style record (no round list) is one round of all its samples.
  if (t.rounds.empty()) t.rounds.push_back({t.samples_s.size(), t.stopped, t.wall_s, 0});
  t.samples_s.insert(t.samples_s.end(), f.samples_s.begin(), f.samples_s.end());
  if (!t.span_s.empty() && f.span_s.size() == f.samples_s.size()) t.span_s.insert(t.span_s.end(), f.span_s.begin(), f.span_s.end());
  else t.span_s.clear();  // spans only where every sample has one
  const auto append_per_sample = [&](auto& mine, const auto& theirs, std::size_t before) {
    if (mine.size() == before && theirs.size() == f.samples_s.size()) mine.insert(mine.end(), theirs.begin(), theirs.end());
    else mine.clear();  // per-sample lists stay aligned with samples_s or are dropped
  };
  const std::size_t before = t.samples_s.size() - f.samples_s.size();
  append_per_sample(t.sm_clock_mhz, f.sm_clock_mhz, before);
  append_per_sample(t.throttled, f.throttled, before);
  if (f.rounds.empty()) {
    t.rounds.push_back({f.samples_s.size(), f.stopped, f.wall_s, process});
  } else {
    for (round_info ri : f.rounds) {
      ri.process = process;
      t.rounds.push_back(ri);
    }
  }
  t.wall_s += f.wall_s;
  into.stats = summarize(t.samples_s);
  // Goodput is the kernel time over the record's timed median (record.hpp, goodput_info): the
  // median has just moved, so the fraction follows it, or the profile would contradict itself
  // (and be refused when read back).
  if (into.goodput && into.goodput->reason.empty() && into.stats->median > 0) {
    into.goodput->wall_s = into.stats->median;
    into.goodput->fraction = into.goodput->kernel_s / into.goodput->wall_s;
  }
}

}  // namespace gpubench
