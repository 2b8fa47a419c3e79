// Statistical comparison of two profiles; see gpubench/compare.hpp and README.md ("compare").
//
// Method (Hollander & Wolfe, Nonparametric Statistical Methods, 3rd ed., §4.3): timings are
// compared in log space, where a multiplicative slowdown is a location shift. The shift is
// estimated by the Hodges–Lehmann estimator (median of all m·n pairwise differences) and bounded
// by the Moses distribution-free interval (order statistics of the same differences, with ranks
// from the normal approximation to the Mann–Whitney distribution). Neither assumes normal noise,
// and both shrug off the odd preempted sample that wrecks a t-interval.
#include "gpubench/compare.hpp"
#include "compare/intervals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {

using detail::hl_moses;
using detail::thin;
using detail::z_for;

namespace {

struct side {
  std::span<const double> samples;
  double median = 0;
  std::size_t throttled = 0;
};

side side_of(const record& r) {
  side s;
  s.samples = r.timing.samples_s;
  s.median = !s.samples.empty() ? median(s.samples) : r.stats ? r.stats->median : 0.0;
  s.throttled = static_cast<std::size_t>(std::count_if(r.timing.throttled.begin(), r.timing.throttled.end(),
                                                       [](std::uint8_t t) { return t != 0; }));
  return s;
}

/// Appends why one side cannot be judged (nothing when it can), from its full sample set.
void side_problems(const char* name, const side& s, const compare_options& o, std::vector<std::string>& notes) {
  if (s.samples.size() < o.min_samples) {
    notes.push_back(fmt::format("{}: {} samples (fewer than {})", name, s.samples.size(), o.min_samples));
    return;
  }
  if (s.throttled > 0)
    notes.push_back(fmt::format("{}: {} of {} samples throttled", name, s.throttled, s.samples.size()));
  const double noise = median_rel_noise(s.samples);
  if (!std::isfinite(noise)) notes.push_back(fmt::format("{}: too few samples to estimate noise", name));
  else if (noise > o.max_noise)
    notes.push_back(fmt::format("{}: noise {:.2f}% above {:.2f}%", name, 100 * noise, 100 * o.max_noise));
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

/// The pair-and-size a record belongs to; its first record in profile order is the baseline
/// (docs/profile-schema.md: "the pair's first variant is its baseline"; the runner writes the
/// variants of a size in declaration order).
std::string group_key(const record& r) { return fmt::format("{}/{}[{}]", r.chapter, r.pair, r.size.to_string()); }

void validate(const compare_options& o) {
  if (!(o.alpha > 0 && o.alpha < 1))
    throw usage_error(fmt::format("compare: alpha must be in (0, 1), got {}", o.alpha));
  if (!(o.threshold >= 0) || !(o.critical >= 0) || !(o.max_noise >= 0))
    throw usage_error("compare: threshold, critical and max_noise must be non-negative");
  if (o.critical < o.threshold)
    throw usage_error(fmt::format("compare: --critical {:g}% is below --threshold {:g}%: a critical change must be at "
                                  "least a reportable one; raise --critical or lower --threshold",
                                  100 * o.critical, 100 * o.threshold));
}

/// A profile with nothing in it, or the same record twice, cannot back a verdict.
void validate(const profile& p, const std::string& source) {
  if (p.records.empty())
    throw usage_error(fmt::format("compare: {} has no records, so there is nothing to compare (an interrupted or "
                                  "empty run?); re-run it with `gpubench run`",
                                  source));
  std::unordered_set<std::string> ids;
  for (const record& r : p.records)
    if (std::string id = r.id(); !ids.insert(id).second)
      throw usage_error(fmt::format("compare: {} holds record {} twice; each (pair, variant, size) must appear once",
                                    source, id));
}

std::set<int> chapters_of(const profile& p) {
  std::set<int> out;
  for (const record& r : p.records) out.insert(r.chapter);
  return out;
}

std::string chapter_list(const std::set<int>& chapters) {
  std::string out;
  for (int c : chapters) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

/// Same measurements: the same records with the same samples (a copy of the file, whatever its
/// name or its edited provenance).
bool same_measurements(const profile& a, const profile& b) {
  if (a.records.size() != b.records.size()) return false;
  for (std::size_t i = 0; i < a.records.size(); ++i)
    if (a.records[i].id() != b.records[i].id() || a.records[i].timing.samples_s != b.records[i].timing.samples_s)
      return false;
  return true;
}

/// History must be earlier runs of the base configuration: not base or new themselves (their
/// drift against themselves is zero and would read as certainty), and from the base's GPU model
/// and chapters unless the caller allows a mix.
void validate_history(const profile& base, const profile& next, const std::vector<profile>& history,
                      const std::vector<std::string>& sources, const compare_options& o) {
  const std::set<int> base_chapters = chapters_of(base);
  for (std::size_t i = 0; i < history.size(); ++i) {
    const std::string name = i < sources.size() ? sources[i] : fmt::format("history run {}", i + 1);
    validate(history[i], name);
    if (same_measurements(history[i], base))
      throw usage_error(fmt::format("compare: --history {} holds the same measurements as the base profile; history "
                                    "is earlier runs of the base configuration, not the base itself",
                                    name));
    if (same_measurements(history[i], next))
      throw usage_error(fmt::format("compare: --history {} holds the same measurements as the new profile; history "
                                    "is earlier runs of the base configuration, not the run being judged",
                                    name));
    if (o.allow_mixed_history) continue;
    if (history[i].prov.device.name != base.prov.device.name)
      throw usage_error(fmt::format("compare: --history {} comes from another GPU ({}) than the base ({}); its "
                                    "drift says nothing about the base's; pass --allow-mixed to use it anyway",
                                    name, history[i].prov.device.name, base.prov.device.name));
    if (const std::set<int> chapters = chapters_of(history[i]); chapters != base_chapters)
      throw usage_error(fmt::format("compare: --history {} holds chapters {}, the base chapters {}; pass runs of the "
                                    "same selection, or --allow-mixed to use it anyway",
                                    name, chapter_list(chapters), chapter_list(base_chapters)));
  }
}

std::string pct(double ratio) { return fmt::format("{:+.1f}%", (ratio - 1) * 100); }

/// Why an interval that passed every check is still undecided: it straddles a threshold.
std::string straddle_note(const ratio_interval& r, double threshold) {
  return fmt::format("interval {} to {} spans the ±{:g}% threshold", pct(r.low), pct(r.high), 100 * threshold);
}

}  // namespace

const char* to_string(verdict v) {
  switch (v) {
    case verdict::faster: return "faster";
    case verdict::same: return "same";
    case verdict::slower: return "slower";
    case verdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

verdict classify(const ratio_interval& r, double threshold) {
  const double up = 1 + threshold, down = 1 / (1 + threshold);
  if (r.low > up) return verdict::slower;
  if (r.high < down) return verdict::faster;
  if (r.low >= down && r.high <= up) return verdict::same;
  return verdict::inconclusive;
}

std::size_t comparison::count(verdict v) const {
  return static_cast<std::size_t>(std::ranges::count(records, v, &record_comparison::result));
}
std::size_t comparison::critical_count() const {
  return static_cast<std::size_t>(std::ranges::count(records, true, &record_comparison::critical));
}

namespace {

/// Between-run spread of one record: sample sd of log medians over base + history (passed, timed).
struct drift_estimate {
  std::size_t runs = 0;
  double sd = 0;
};

/// Log medians of each history run's passed, timed records, by id: built once, so the drift of
/// every record is a lookup rather than a scan (and id formatting) of every history record.
using history_index = std::vector<std::unordered_map<std::string, double>>;

history_index index_history(const std::vector<profile>& history) {
  history_index out(history.size());
  for (std::size_t i = 0; i < history.size(); ++i)
    for (const record& r : history[i].records)
      if (r.status == record_status::passed && !r.timing.samples_s.empty())
        out[i].emplace(r.id(), std::log(median(r.timing.samples_s)));
  return out;
}

drift_estimate drift_of(const std::string& id, const record& base, const history_index& history) {
  std::vector<double> logs{std::log(median(base.timing.samples_s))};
  for (const auto& run : history)
    if (const auto it = run.find(id); it != run.end()) logs.push_back(it->second);
  drift_estimate d{logs.size(), 0};
  if (logs.size() >= 2) {
    double mean = 0, ss = 0;
    for (double x : logs) mean += x / static_cast<double>(logs.size());
    for (double x : logs) ss += (x - mean) * (x - mean);
    d.sd = std::sqrt(ss / static_cast<double>(logs.size() - 1));
  }
  return d;
}

/// Widens a log-space interval by an independent error of half-width `extra` (log units).
ratio_interval widen(const ratio_interval& r, double extra) {
  const double e = std::log(r.estimate);
  const double down = std::hypot(e - std::log(r.low), extra), up = std::hypot(std::log(r.high) - e, extra);
  return {r.estimate, std::exp(e - down), std::exp(e + up)};
}

}  // namespace

comparison compare_profiles(const profile& base, const profile& next, const compare_options& options,
                            const std::string& base_source, const std::string& new_source,
                            const std::vector<profile>& history, const std::vector<std::string>& history_sources) {
  validate(options);
  validate(base, base_source);
  validate(next, new_source);
  validate_history(base, next, history, history_sources, options);
  comparison c{.base_source = base_source, .new_source = new_source, .base_device = base.prov.device.name,
               .new_device = next.prov.device.name, .options = options};
  c.same_device = c.base_device == c.new_device;
  c.history_runs = history.size();
  const history_index history_medians = index_history(history);

  // Match by id; the first occurrence wins should a (damaged) profile repeat an id.
  std::unordered_map<std::string, const record*> next_by_id;
  std::vector<std::string> next_ids;
  for (const record& r : next.records) {
    std::string id = r.id();
    if (next_by_id.emplace(id, &r).second) next_ids.push_back(std::move(id));
  }
  std::unordered_set<std::string> base_ids;
  std::vector<std::pair<const record*, const record*>> matched;
  for (const record& r : base.records) {
    std::string id = r.id();
    if (!base_ids.insert(id).second) continue;
    auto found = next_by_id.find(id);
    if (found == next_by_id.end()) c.only_in_base.push_back(std::move(id));
    else if (r.status == record_status::skipped && found->second->status == record_status::skipped)
      c.skipped_in_both.push_back(std::move(id));  // nothing ran on either side: nothing to judge or gate
    else matched.emplace_back(&r, found->second);
  }
  for (auto& id : next_ids)
    if (!base_ids.contains(id)) c.only_in_new.push_back(std::move(id));
  if (matched.empty())
    throw usage_error(fmt::format(
        "compare: {} and {} have no record in common{} (base: chapters {}, {} records; new: chapters {}, {} records); "
        "compare runs of the same chapters and sizes",
        base_source, new_source, c.skipped_in_both.empty() ? "" : " that ran on either side",
        chapter_list(chapters_of(base)), base.records.size(), chapter_list(chapters_of(next)), next.records.size()));

  // Bonferroni: alpha split evenly over the records that get an interval, so all intervals hold
  // together with probability >= 1 - alpha (a record-level false alarm rate of alpha/k each).
  auto comparable = [](const record& r) { return r.status == record_status::passed && !r.timing.samples_s.empty(); };
  const auto n_compared = static_cast<std::size_t>(std::count_if(
      matched.begin(), matched.end(), [&](const auto& m) { return comparable(*m.first) && comparable(*m.second); }));
  const double alpha = options.alpha / static_cast<double>(std::max<std::size_t>(1, n_compared));
  const double z = z_for(alpha);
  c.interval_confidence = 1 - alpha;

  std::vector<double> scratch;
  std::vector<bool> has_interval, judged;  // per c.records entry
  std::unordered_map<std::string, std::size_t> index_of;
  for (const auto& [b, n] : matched) {
    const side sb = side_of(*b), sn = side_of(*n);
    record_comparison rc{.id = b->id(), .chapter = b->chapter, .pair = b->pair, .variant = b->variant,
                         .size = b->size.to_string(), .base_median = sb.median, .new_median = sn.median};
    std::vector<std::string> notes;
    if (b->status != record_status::passed) notes.push_back(fmt::format("base: status {}", to_string(b->status)));
    if (n->status != record_status::passed) notes.push_back(fmt::format("new: status {}", to_string(n->status)));
    const bool interval = comparable(*b) && comparable(*n);
    if (interval) {
      const std::size_t keep = options.max_samples_per_side;
      rc.ratio = hl_moses(thin(sb.samples, keep), thin(sn.samples, keep), z, scratch);
      side_problems("base", sb, options, notes);
      side_problems("new", sn, options, notes);
      const drift_estimate d = drift_of(rc.id, *b, history_medians);
      rc.runs = d.runs;
      rc.drift = d.sd;
      if (d.runs >= 2) {
        // base and new are one run each, so their difference carries the drift twice.
        rc.ratio = widen(rc.ratio, detail::t_quantile_two_sided(alpha, static_cast<int>(d.runs) - 1) *
                                       std::numbers::sqrt2 * d.sd);
      } else if (b->timing.method == timing_method::host_wall || n->timing.method == timing_method::host_wall) {
        notes.emplace_back("host-timed, no history: its run-to-run drift is unknown (pass earlier runs with --history)");
      }
    } else if (notes.empty()) {  // passed on both sides but untimed on one
      if (sb.samples.empty()) notes.emplace_back("base: no samples");
      if (sn.samples.empty()) notes.emplace_back("new: no samples");
    }
    if (notes.empty()) {
      rc.result = classify(rc.ratio, options.threshold);
      rc.critical = rc.result == verdict::slower && rc.ratio.low > 1 + options.critical;
      if (rc.result == verdict::inconclusive) rc.note = straddle_note(rc.ratio, options.threshold);
    } else {
      rc.note = join(notes);
    }
    index_of.emplace(rc.id, c.records.size());
    has_interval.push_back(interval);
    judged.push_back(notes.empty());
    c.records.push_back(std::move(rc));
  }

  // Speedups. Machine drift (clocks, a different host) moves baseline and variant together, so
  // their ratio is a steadier signal than either time. The interval is an APPROXIMATION: each
  // record's Moses interval is read as a normal interval in log space, se = (log high - log low)
  // / (2z) with the same z it was built with; the two records are independent runs, so variances
  // add, and the log speedup ratio (from the medians) gets ± z·sqrt(se_b² + se_v²). The Moses
  // interval need not be symmetric about the estimate, and these intervals are not counted in the
  // Bonferroni family, so treat speedup verdicts as advisory: they do not gate.
  std::unordered_map<std::string, const record*> base_first, next_first;
  for (const record& r : base.records) base_first.emplace(group_key(r), &r);
  for (const record& r : next.records) next_first.emplace(group_key(r), &r);
  for (std::size_t iv = 0; iv < c.records.size(); ++iv) {
    const record& vb = *matched[iv].first;
    const std::string key = group_key(vb);
    const record* bb = base_first.at(key);
    const record* nb = next_first.count(key) ? next_first.at(key) : nullptr;
    if (bb == &vb || nb == nullptr || nb->variant != bb->variant) continue;  // a baseline, or no common one
    auto ib_it = index_of.find(bb->id());
    if (ib_it == index_of.end()) continue;
    const std::size_t ib = ib_it->second;
    if (!has_interval[iv] || !has_interval[ib]) continue;  // passed and timed on both sides, both records
    const record_comparison &rb = c.records[ib], &rv = c.records[iv];
    speedup_comparison s;
    s.id = rv.id;
    s.base_speedup = rb.base_median / rv.base_median;
    s.new_speedup = rb.new_median / rv.new_median;
    const double se_b = (std::log(rb.ratio.high) - std::log(rb.ratio.low)) / (2 * z);
    const double se_v = (std::log(rv.ratio.high) - std::log(rv.ratio.low)) / (2 * z);
    const double log_ratio = std::log(s.new_speedup / s.base_speedup), half = z * std::hypot(se_b, se_v);
    s.ratio = {std::exp(log_ratio), std::exp(log_ratio - half), std::exp(log_ratio + half)};
    // classify() reads ratios as times (> 1 slower); a speedup ratio < 1 is the loss, so invert.
    // Throttled, noisy or short records leave their speedup inconclusive too.
    if (judged[iv] && judged[ib]) {
      s.result = classify({1 / s.ratio.estimate, 1 / s.ratio.high, 1 / s.ratio.low}, options.threshold);
      if (s.result == verdict::inconclusive) s.note = "speedup " + straddle_note(s.ratio, options.threshold);
    } else {
      // Say which record left it undecided, and why, so "20.5x -> 2.05x, inconclusive" is not a riddle.
      // The records' own reasons, each once, so a reader (and the console's footnotes) sees the
      // same words as on the records.
      std::vector<std::string> why{!judged[ib] && !judged[iv]
                                       ? fmt::format("{} and {} records inconclusive", rb.variant, rv.variant)
                                       : fmt::format("{} record inconclusive", judged[ib] ? rv.variant : rb.variant)};
      for (const record_comparison* r : {&rb, &rv}) {
        if (r->note.empty()) continue;
        for (std::size_t from = 0; from <= r->note.size();) {
          const std::size_t to = std::min(r->note.find("; ", from), r->note.size());
          std::string part = r->note.substr(from, to - from);
          if (std::find(why.begin(), why.end(), part) == why.end()) why.push_back(std::move(part));
          from = to + 2;
        }
      }
      s.note = join(why);
    }
    c.speedups.push_back(std::move(s));
  }
  return c;
}

int gate_exit_code(const comparison& c, fail_on policy) {
  constexpr int regression = static_cast<int>(exit_code::regression);
  constexpr int inconclusive = static_cast<int>(exit_code::inconclusive);
  switch (policy) {
    case fail_on::none: return 0;
    case fail_on::critical: return c.critical_count() > 0 ? regression : 0;
    case fail_on::slower: return c.count(verdict::slower) > 0 ? regression : 0;
    case fail_on::any:
      if (c.count(verdict::slower) > 0) return regression;
      return c.count(verdict::inconclusive) > 0 ? inconclusive : 0;
  }
  return 0;
}

}  // namespace gpubench
