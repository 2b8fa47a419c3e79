// Statistical comparison of two profiles; see gpubench/compare.hpp.
//
// Method (docs/measurement.md, "Compare: the noise model"): timings are compared in log space,
// where a multiplicative slowdown is a location shift. Each side's center is the mean of its
// rounds' log medians (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013);
// its variance is what the rounds show (paired by position for device-timed records) plus a
// between-process term one run cannot show (noise_model.hpp), and the interval is Bonferroni-
// corrected over the records.
#include "gpubench/compare.hpp"
#include "compare/intervals.hpp"
#include "compare/noise_model.hpp"
#include "compare/record_interval.hpp"
#include "compare/repeated_measurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/moderated_variance.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {

using detail::estimate_side;
using detail::side_estimate;
using detail::z_for;

namespace {

struct side {
  std::span<const double> samples;
  double median = 0;
  std::size_t throttled = 0;
};

/// What a record's samples hold, for the noise model: a host-timed record is host-timed whatever
/// else it says (records built in code may leave `source` at its default).
time_source source_of(const record& r) {
  return r.timing.method == timing_method::host_wall ? time_source::host_wall : r.timing.source;
}

/// What two records can both be judged on: their samples when both hold the same figure, else
/// the raw CUDA-event span, which every device-timed record keeps, as its samples (cuda_events)
/// or beside them (span_s: cuda_events_net and gpu_busy). A profile from before the empty span
/// was subtracted thus meets one from after on the figure both measured.
time_source common_figure(const record& b, const record& n) {
  return source_of(b) == source_of(n) ? source_of(b) : time_source::cuda_events;
}

/// A record's samples as `figure`; nothing when it does not hold that figure.
std::optional<std::span<const double>> samples_as(const record& r, time_source figure) {
  const time_source own = source_of(r);
  if (own == figure) return std::span<const double>(r.timing.samples_s);
  if (figure != time_source::cuda_events || own == time_source::host_wall) return std::nullopt;
  if (r.timing.span_s.size() != r.timing.samples_s.size()) return std::nullopt;
  return std::span<const double>(r.timing.span_s);
}

side side_of(const record& r, std::span<const double> samples) {
  side s;
  s.samples = samples;
  // No samples and no summary (a failed or skipped record): no time at all, not a time of 0.
  s.median = !s.samples.empty() ? median(s.samples)
             : r.stats          ? r.stats->median
                                : std::numeric_limits<double>::quiet_NaN();
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
  else if (noise > o.noise_limit)
    notes.push_back(fmt::format("{}: noise {:.2f}% above {:.2f}%", name, 100 * noise, 100 * o.noise_limit));
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
  if (!(o.threshold >= 0) || !(o.critical >= 0) || !(o.noise_limit >= 0))
    throw usage_error("compare: threshold, critical and noise_limit must be non-negative");
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

/// A prior is fitted over a group of records only when at least this many measured their
/// between-process level; fewer cannot tell a typical variance from an unusual one.
constexpr std::size_t kMinRecordsForPrior = 3;

/// The interval's quantile at per-record level `alpha`: normal with infinite degrees of freedom,
/// else Student's t on the degrees of freedom rounded down (conservative), normal past 1000.
double quantile(double alpha, double df) {
  if (!std::isfinite(df) || df > 1000) return z_for(alpha);
  return detail::t_quantile_two_sided(alpha, std::max(1, static_cast<int>(std::floor(df))));
}

/// The class of a record for the noise model's floors and the priors: what its time depends on
/// between processes.
const char* class_of(time_source source, bytes_path path) {
  if (source == time_source::host_wall) return "host";
  if (path == bytes_path::peer || path == bytes_path::peer_duplex) return "peer";
  if (path == bytes_path::pcie || path == bytes_path::pcie_duplex) return "pcie";
  return "device";
}

/// Why an interval that passed every check is still undecided: it straddles a threshold.
std::string straddle_note(const ratio_interval& r, double threshold) {
  return fmt::format("interval {} to {} spans the ±{:g}% threshold", pct(r.low), pct(r.high), 100 * threshold);
}

}  // namespace

std::optional<std::string> ab_session_of(const profile& p) {
  const auto it = p.options.find("ab_session");
  if (it == p.options.end() || !it->is_string()) return std::nullopt;
  std::string id = it->get<std::string>();
  if (id.empty()) return std::nullopt;
  return id;
}

std::vector<double> context_levels_of(const profile& p, int chapter) {
  const auto by_chapter = p.options.find(kContextLevelsOption);
  if (by_chapter == p.options.end() || !by_chapter->is_object()) return {};
  const auto it = by_chapter->find(std::to_string(chapter));
  if (it == by_chapter->end() || !it->is_array() || it->empty() ||
      it->size() > static_cast<std::size_t>(kAbMaxWorkersPerBuild))
    return {};
  std::vector<double> levels;
  for (const auto& v : *it) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > 0)) return {};
    levels.push_back(v.get<double>());
  }
  return levels;
}

const char* to_string(verdict v) {
  switch (v) {
    case verdict::faster: return "faster";
    case verdict::same: return "same";
    case verdict::slower: return "slower";
    case verdict::inconclusive: return "inconclusive";
  }
  return "inconclusive";
}

const char* to_string(limiting_term t) {
  switch (t) {
    case limiting_term::within_round: return "within_round";
    case limiting_term::between_rounds: return "between_rounds";
    case limiting_term::between_processes: return "between_processes";
    case limiting_term::floor: return "floor";
  }
  return "floor";
}

verdict classify(const ratio_interval& r, double threshold) {
  const double up = 1 + threshold, down = 1 / (1 + threshold);
  if (r.low > up) return verdict::slower;
  if (r.high < down) return verdict::faster;
  if (r.low >= down && r.high <= up) return verdict::same;
  return verdict::inconclusive;
}

std::string comparison::family_phrase() const {
  const auto records_word = [](std::size_t n) { return fmt::format("{} record{}", n, n == 1 ? "" : "s"); };
  if (!family_per_chapter) return "Bonferroni over " + records_word(family_max);
  if (family_min == family_max) return "Bonferroni within each chapter, " + records_word(family_max);
  return fmt::format("Bonferroni within each chapter, {} to {} records", family_min, family_max);
}

std::size_t comparison::count(verdict v) const {
  return static_cast<std::size_t>(std::ranges::count(records, v, &record_comparison::result));
}
std::optional<double> comparison::median_cycle_spread() const {
  std::vector<double> spreads;
  for (const record_comparison& r : records)
    if (r.cycle_spread) spreads.push_back(*r.cycle_spread);
  if (spreads.empty()) return std::nullopt;
  return median(spreads);
}
std::size_t comparison::critical_count() const {
  return static_cast<std::size_t>(std::ranges::count(records, true, &record_comparison::critical));
}
std::size_t comparison::figures_differ_count() const {
  return static_cast<std::size_t>(std::ranges::count(records, true, &record_comparison::figures_differ));
}
std::string comparison::figures_differ_warning() const {
  const std::size_t n = figures_differ_count();
  if (n == 0) return {};
  return fmt::format("{} record{} timed differently in base and new (a profile from before gpubench subtracted the "
                     "empty event span, or --gpu-busy on one side only): judged on the raw CUDA-event spans both keep",
                     n, n == 1 ? " was" : "s were");
}

std::optional<bool> comparison::same_gpu() const {
  if (base_gpu_uuid.empty() || new_gpu_uuid.empty()) return std::nullopt;
  return base_gpu_uuid == new_gpu_uuid;
}

std::string comparison::another_chip_warning() const {
  // The UUIDs come from the profiles (untrusted): they decide, but are not printed.
  if (!same_device || same_gpu().value_or(true)) return {};
  return "base and new ran on two different GPUs of the same model (their UUIDs differ): compare's between-process "
         "floors were fitted on processes of one machine, and chips of one model differ on small kernels (up to 8.4% "
         "on a 1024^3 TF32 GEMM between two H100s), so a verdict on a record of a few microseconds may reflect the chip; "
         "gate on one machine, or pass --history runs made on the new one";
}

std::string comparison::rest_differs_warning() const {
  const auto show = [](const std::optional<double>& r) { return r ? fmt::format("{:g}", *r) : std::string("unreadable"); };
  std::string out;
  if (!(base_rest && new_rest && *base_rest == *new_rest))
    out = fmt::format("base and new rested differently between samples (run --rest {} vs {}): back to back, long "
                      "tensor-core kernels run at the power cap, up to ~19% slower on an H100, so their verdicts may "
                      "reflect the method, not the code; re-run both with the same --rest",
                      show(base_rest), show(new_rest));
  if (history_rested_differently > 0)
    out += fmt::format("{}{} of the {} history runs rested differently from the base and {} left out of the drift",
                       out.empty() ? "" : "; ", history_rested_differently, history_runs,
                       history_rested_differently == 1 ? "was" : "were");
  return out;
}

std::string comparison::history_repeats_warning() const {
  if (history_repeated_runs == 0 && history_repeated_records == 0) return {};
  std::string out;
  if (history_repeated_runs > 0)
    out = fmt::format("{} --history run{} repeated measurements already counted (the same samples: a file given "
                      "twice, a copy, or the base or new run) and {} left out",
                      history_repeated_runs, history_repeated_runs == 1 ? "" : "s",
                      history_repeated_runs == 1 ? "was" : "were");
  if (history_repeated_records > 0)
    out += fmt::format("{}{} record{} of other --history runs repeated a measurement already counted and {} left out",
                       out.empty() ? "" : "; ", history_repeated_records, history_repeated_records == 1 ? "" : "s",
                       history_repeated_records == 1 ? "was" : "were");
  return out + "; drift is estimated from distinct runs only";
}

namespace {

/// The rest ratio a profile's run used: options.rest_ratio, absent in profiles from before rests
/// (which sampled back to back: 0); a profile is untrusted input, so anything but a number in
/// [0, 100] (the range `run --rest` accepts) is "unreadable".
std::optional<double> rest_ratio_of(const profile& p) {
  const auto it = p.options.find("rest_ratio");
  if (it == p.options.end()) return 0.0;
  if (!it->is_number()) return std::nullopt;
  const double r = it->get<double>();
  if (!std::isfinite(r) || r < 0 || r > 100) return std::nullopt;
  return r;
}

/// Between-run spread of one record: sample sd of its centers over base + history (passed, timed).
struct drift_estimate {
  std::size_t runs = 0;
  double sd = 0;
};

/// Each history run's passed, timed records, by id: built once, so the drift of every record is
/// a lookup rather than a scan of every history record.
using history_index = std::vector<std::unordered_map<std::string, const record*>>;

/// Runs that rested differently from the base (`rest`) stay empty, and are counted in
/// `c.history_rested_differently`: they measured long tensor-core work at another power state, so
/// their spread is not the base's drift. A record whose samples repeat a measurement already
/// counted (the base's or the new run's record, or one of an earlier history run) is left out and
/// counted, and so is a run that adds nothing new: no run is counted twice.
history_index index_history(const profile& base, const profile& next, const std::vector<profile>& history,
                            comparison& c) {
  history_index out(history.size());
  c.history_rested_differently = c.history_repeated_runs = c.history_repeated_records = 0;
  detail::repeated_measurements counted;
  for (const profile* p : {&base, &next})
    for (const record& r : p->records) (void)counted.seen_before(r.id(), r.timing.samples_s);
  for (std::size_t i = 0; i < history.size(); ++i) {
    const auto ratio = rest_ratio_of(history[i]);
    if (!c.base_rest || !ratio || *ratio != *c.base_rest) {
      ++c.history_rested_differently;
      continue;
    }
    std::size_t repeated = 0;
    for (const record& r : history[i].records) {
      if (r.status != record_status::passed || r.timing.samples_s.empty()) continue;
      std::string id = r.id();
      if (counted.seen_before(id, r.timing.samples_s)) ++repeated;
      else out[i].emplace(std::move(id), &r);
    }
    if (out[i].empty() && repeated > 0) ++c.history_repeated_runs;
    else c.history_repeated_records += repeated;
  }
  c.history_runs = history.size() - c.history_repeated_runs;
  return out;
}

/// `figure`: what the base's center was taken over; a history run that did not measure it (an
/// older gpubench, another timing option) has nothing to say about its drift.
drift_estimate drift_of(const std::string& id, double base_center, time_source figure, const history_index& history) {
  std::vector<double> logs{base_center};
  for (const auto& run : history)
    if (const auto it = run.find(id); it != run.end())
      if (const auto samples = samples_as(*it->second, figure))
        logs.push_back(estimate_side(*samples, it->second->timing.rounds).center);
  drift_estimate d{logs.size(), 0};
  if (logs.size() >= 2) {
    double mean = 0, ss = 0;
    for (double x : logs) mean += x / static_cast<double>(logs.size());
    for (double x : logs) ss += (x - mean) * (x - mean);
    d.sd = std::sqrt(ss / static_cast<double>(logs.size() - 1));
  }
  return d;
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
  c.base_gpu_uuid = base.prov.device.uuid;
  c.new_gpu_uuid = next.prov.device.uuid;
  c.base_rest = rest_ratio_of(base);
  c.new_rest = rest_ratio_of(next);
  const history_index history_centers = index_history(base, next, history, c);
  const detail::process_noise_model model = detail::process_noise_model::fitted();
  c.model = {model.floor_device, model.round_factor_device, model.floor_host, model.round_factor_host,
             model.floor_peer,   model.round_factor_peer, model.floor_device_abs_s,
             model.floor_pcie,   model.round_factor_pcie};

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

  const bool same_ab_session = ab_session_of(base) && ab_session_of(base) == ab_session_of(next);
  if (same_ab_session) {
    c.ab_session = *ab_session_of(base);
    const auto k = base.options.find("ab_workers_per_build");
    if (k != base.options.end() && k->is_number_integer()) c.ab_workers_per_build = k->get<int>();
  }
  // Bonferroni: alpha split evenly over the records of a family that get an interval, so a
  // family's intervals hold together with probability >= 1 - alpha (a record-level false alarm
  // rate of alpha/k each). The family is every record compared, or, for one ab session, each
  // chapter's records (comparison::family_per_chapter).
  auto comparable = [](const record& r) { return r.status == record_status::passed && !r.timing.samples_s.empty(); };
  c.family_per_chapter = same_ab_session;
  std::map<int, std::size_t> family_size;  // by chapter; one family under key 0 unless per chapter
  for (const auto& m : matched)
    if (comparable(*m.first) && comparable(*m.second)) ++family_size[c.family_per_chapter ? m.first->chapter : 0];
  const auto alpha_of = [&](const record& r) {
    const auto it = family_size.find(c.family_per_chapter ? r.chapter : 0);
    return options.alpha / static_cast<double>(it == family_size.end() ? 1 : std::max<std::size_t>(1, it->second));
  };
  c.family_min = family_size.empty() ? 0 : SIZE_MAX;
  for (const auto& [chapter, n] : family_size) {
    c.family_min = std::min(c.family_min, n);
    c.family_max = std::max(c.family_max, n);
  }
  c.interval_confidence = 1 - options.alpha / static_cast<double>(std::max<std::size_t>(1, c.family_min));

  std::vector<bool> has_interval, judged;  // per c.records entry
  std::unordered_map<std::string, std::size_t> index_of;
  // First pass: each record's levels and its notes. The intervals wait for the second pass, since
  // a record's measured between-process variance is moderated by the rest of its chapter's.
  std::vector<std::optional<detail::record_levels>> levels;  // per c.records entry
  std::vector<std::vector<std::string>> notes_of;
  for (const auto& [b, n] : matched) {
    const time_source figure = common_figure(*b, *n);
    const auto fb = samples_as(*b, figure), fn = samples_as(*n, figure);
    const side sb = side_of(*b, fb ? *fb : std::span<const double>()), sn = side_of(*n, fn ? *fn : std::span<const double>());
    record_comparison rc{.id = b->id(), .chapter = b->chapter, .pair = b->pair, .variant = b->variant,
                         .size = b->size.to_string(), .base_median = sb.median, .new_median = sn.median};
    rc.figure = figure;
    rc.figures_differ = source_of(*b) != source_of(*n);
    std::vector<std::string> notes;
    if (b->status != record_status::passed) notes.push_back(fmt::format("base: status {}", to_string(b->status)));
    if (n->status != record_status::passed) notes.push_back(fmt::format("new: status {}", to_string(n->status)));
    const bool figured = fb.has_value() && fn.has_value();
    if (!figured && comparable(*b) && comparable(*n))
      notes.push_back(fmt::format("base and new measured different things ({} vs {}) and keep no event span to judge "
                                  "both on; re-run both with the same gpubench and options",
                                  to_string(source_of(*b)), to_string(source_of(*n))));
    const bool interval = figured && comparable(*b) && comparable(*n);
    std::optional<detail::record_levels> lv;
    if (interval) {
      side_problems("base", sb, options, notes);
      side_problems("new", sn, options, notes);
      detail::record_levels l;
      l.base = estimate_side(sb.samples, b->timing.rounds);
      l.next = estimate_side(sn.samples, n->timing.rounds);
      const drift_estimate d = drift_of(rc.id, l.base.center, figure, history_centers);
      rc.runs = d.runs;
      rc.drift = d.sd;
      l.history_runs = d.runs;
      l.history_var = d.sd * d.sd;
      if (same_ab_session) {
        // The workers' context levels, when both builds' workers were calibrated: a host-timed
        // record is judged on the line through them (noise_model.hpp, cycle_estimate::level_slope).
        std::vector<double> lb, ln;
        if (figure == time_source::host_wall) {
          lb = context_levels_of(base, b->chapter);
          ln = context_levels_of(next, b->chapter);
        }
        if (lb.empty() || ln.empty()) lb.clear(), ln.clear();
        l.cycles = detail::paired_cycles(l.base, l.next, lb, ln);
      }
      // The within-run variance as before processes and cycles: device-timed rounds of one process
      // on each side are paired by position (noise_model.hpp, paired_round_sd), so a pattern both
      // runs share over their rounds cancels; host-timed records keep the unpaired model.
      l.within_var = l.base.var_center + l.next.var_center;
      l.noise_var = l.base.noise_var + l.next.noise_var;
      side_estimate pb_in = l.base, pn_in = l.next;
      if (source_of(*b) != time_source::host_wall && source_of(*n) != time_source::host_wall && l.base.processes == 1 &&
          l.next.processes == 1)
        if (const std::optional<double> paired = detail::paired_round_sd(l.base, l.next)) {
          l.within_var = std::max(*paired * *paired / static_cast<double>(l.base.rounds), l.noise_var);
          pb_in.round_sd = pn_in.round_sd = *paired / std::sqrt(2.0);
        }
      l.model_base = model.sd(source_of(*b), b->declared.path, pb_in);
      l.model_next = model.sd(source_of(*n), n->declared.path, pn_in);
      l.floor_base = model.sd(source_of(*b), b->declared.path, side_estimate{.center = l.base.center});
      l.floor_next = model.sd(source_of(*n), n->declared.path, side_estimate{.center = l.next.center});
      l.keeps_model_term = source_of(*b) == time_source::host_wall || source_of(*n) == time_source::host_wall;
      detail::choose_evidence(l);
      if (l.evidence == detail::process_evidence::cycles) {
        rc.cycle_spread = l.cycles->spread;
        rc.wild_cycles = l.cycles->wild;
      }
      if (l.evidence == detail::process_evidence::cycles && l.cycles->groups >= 2) {
        rc.pairs_var = l.cycles->group_var;
        rc.pairs_df = l.cycles->group_df;
        rc.context_slope = l.cycles->level_slope;
      }
      rc.rounds = {l.base.rounds, l.next.rounds};
      lv = std::move(l);
    } else {
      if (notes.empty()) {  // passed on both sides but untimed on one
        if (sb.samples.empty()) notes.emplace_back("base: no samples");
        if (sn.samples.empty()) notes.emplace_back("new: no samples");
      }
      // Without an interval there is no ratio either (every output shows n/a, never 1.000 [1, 1]).
      rc.ratio = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(),
                  std::numeric_limits<double>::quiet_NaN()};
    }
    index_of.emplace(rc.id, c.records.size());
    has_interval.push_back(interval);
    judged.push_back(notes.empty());
    c.records.push_back(std::move(rc));
    levels.push_back(std::move(lv));
    notes_of.push_back(std::move(notes));
  }

  // The priors: per chapter, class of record and kind of evidence, fitted over every record that
  // measured its between-process level (gpubench/moderated_variance.hpp); where a chapter has too
  // few such records (a selection of one pair), over the class and evidence in every chapter.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> raw;
  const auto class_key = [&](std::size_t i) {
    const record& b = *matched[i].first;
    // Records judged about the line on the context levels pool with each other only: their spread
    // is what the levels leave.
    const bool by_level = levels[i]->cycles && levels[i]->cycles->level_slope;
    return fmt::format("{}/{}{}", class_of(source_of(b), b.declared.path), detail::to_string(levels[i]->evidence),
                       by_level ? "/context" : "");
  };
  const auto chapter_key = [&](std::size_t i) { return fmt::format("{}/{}", matched[i].first->chapter, class_key(i)); };
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (!levels[i]) continue;
    for (const auto& [v, df] : detail::raw_process_estimates(*levels[i]))
      for (const std::string& key : {chapter_key(i), class_key(i)}) {
        raw[key].first.push_back(v);
        raw[key].second.push_back(df);
      }
  }
  std::map<std::string, variance_prior> priors;
  for (const auto& [key, data] : raw) {
    variance_prior p = fit_variance_prior(data.first, data.second);
    // A prior fitted as infinitely sure would overrule every record's own estimate, the one
    // record whose processes really differ included: its weight is capped at kMaxPriorDf.
    p.df0 = std::min(p.df0, detail::kMaxPriorDf);
    priors[key] = p;
  }

  // Second pass: intervals and verdicts.
  for (std::size_t i = 0; i < c.records.size(); ++i) {
    record_comparison& rc = c.records[i];
    const record& b = *matched[i].first;
    std::vector<std::string>& notes = notes_of[i];
    if (levels[i]) {
      const detail::record_levels& l = *levels[i];
      variance_prior prior;
      if (l.evidence != detail::process_evidence::prior) {
        prior = priors[chapter_key(i)];
        if (prior.used < kMinRecordsForPrior) prior = priors[class_key(i)];
        // Too few records measured it to fit a prior: each keeps its own estimate and its own
        // degrees of freedom (Student's t on them), as compare judged history before moderation.
        if (prior.used < kMinRecordsForPrior) prior = {};
      }
      // Earlier sessions' spread of this very record: its pairs of workers were drawn afresh in
      // each, so that spread is independent of this session's, where the chapter's records share
      // their workers' offsets (docs/measurement.md, "Moderated variance").
      if (const auto h = options.pair_history.find(rc.id);
          rc.pairs_var && h != options.pair_history.end() && h->second.figure == rc.figure &&
          h->second.context_adjusted == rc.context_slope.has_value() && h->second.df > 0) {
        prior = {h->second.var, std::min(h->second.df, detail::kMaxPriorDf), h->second.sessions};
        rc.pair_history_sessions = h->second.sessions;
      }
      const detail::log_interval li = detail::interval_of(l, prior);
      const double q = quantile(alpha_of(b), li.df);
      rc.ratio = {std::exp(li.center), std::exp(li.center - q * li.sd), std::exp(li.center + q * li.sd)};
      rc.log_sd = li.sd;
      rc.resolvable = std::exp(std::log1p(options.threshold) + q * li.sd) - 1;
      rc.fixed_log_half_width = q * li.fixed_sd;
      rc.degrees_of_freedom = li.df;
      rc.limit = li.limit;
      rc.evidence = detail::to_string(l.evidence);
    }
    if (notes.empty()) {
      rc.result = classify(rc.ratio, options.threshold);
      rc.critical = rc.result == verdict::slower && rc.ratio.low > 1 + options.critical;
      if (rc.result == verdict::inconclusive) {
        rc.note = straddle_note(rc.ratio, options.threshold);
        if (source_of(b) == time_source::host_wall && levels[i] &&
            levels[i]->evidence != detail::process_evidence::cycles)
          rc.note += fmt::format("; host-timed work moves up to ~{:.0f}% between processes: `gpubench ab`'s paired "
                                 "cycles cancel what both builds share of it",
                                 100 * model.floor_host);
      }
    } else {
      rc.note = join(notes);
    }
  }

  // Speedups. Drift of the machine (clocks, power, the host) moves baseline and variant together,
  // and a run of schema 2 samples them interleaved in the same rounds, so each round's ratio of
  // medians cancels that round's drift: a side's log speedup is the mean over rounds, its variance
  // their spread / R (at least the two records' sample noise), plus both records' fitted
  // between-process terms. Records of one round (schema 1) fall back to the ratio of their centers with
  // both records' variances. The intervals use the records' Bonferroni z; speedup verdicts are
  // reported, not gated (a pair's records are gated themselves).
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
    // Both records on the figure their comparisons used (the event span when the profiles timed
    // differently), so each speedup is a ratio of like with like.
    const time_source figure = rv.figure;
    if (rb.figure != figure) continue;
    const auto as_timing = [&](const record& r) {
      timing_data t;
      t.rounds = r.timing.rounds;
      if (const auto samples = samples_as(r, figure)) t.samples_s.assign(samples->begin(), samples->end());
      return t;
    };
    const timing_data tbb = as_timing(*matched[ib].first), tvb = as_timing(vb), tbn = as_timing(*matched[ib].second),
                      tvn = as_timing(*matched[iv].second);
    if (tbb.samples_s.empty() || tvb.samples_s.empty() || tbn.samples_s.empty() || tvn.samples_s.empty()) continue;
    const auto side = [&](const record& base_rec, const timing_data& base_t, const record& var_rec,
                          const timing_data& var_t) {
      const side_estimate eb = estimate_side(base_t.samples_s, base_t.rounds);
      const side_estimate ev = estimate_side(var_t.samples_s, var_t.rounds);
      const std::vector<double> per_round = detail::round_log_speedups(base_t, var_t);
      double center = eb.center - ev.center, var = eb.var_center + ev.var_center;
      if (!per_round.empty()) {
        double m = 0, ss = 0;
        for (double x : per_round) m += x / static_cast<double>(per_round.size());
        for (double x : per_round) ss += (x - m) * (x - m);
        const double r = static_cast<double>(per_round.size());
        center = m;
        var = std::max(ss / (r - 1) / r, std::max(eb.var_center, ev.var_center));
      }
      // Between processes a speedup moves at most as both its records do (pairing in rounds
      // usually cancels more: this is the conservative end).
      const double pb = model.sd(source_of(base_rec), base_rec.declared.path, eb),
                   pv = model.sd(source_of(var_rec), var_rec.declared.path, ev);
      return std::pair{center, var + pb * pb + pv * pv};
    };
    const auto [cb, vb_] = side(*matched[ib].first, tbb, vb, tvb);
    const auto [cn, vn] = side(*matched[ib].second, tbn, *matched[iv].second, tvn);
    const double alpha = alpha_of(vb);
    double log_ratio = cn - cb, half = z_for(alpha) * std::sqrt(vb_ + vn);
    // In one ab session a round holds both records of a size, so each round has its own speedup
    // and each cycle a pair of them, one per build: judged as the records are, on the per-cycle
    // differences grouped by pair of workers (paired_cycles), with Student's t on the groups. What
    // a worker's process does to both its records cancels in its speedup; the fitted floors above
    // stand in for it only where nothing measures it.
    if (same_ab_session && levels[iv] && levels[ib] && levels[iv]->cycles && levels[ib]->cycles) {
      const auto speedup_side = [](const side_estimate& base_rec, const side_estimate& var_rec,
                                   const timing_data& base_t, const timing_data& var_t) {
        side_estimate e = var_rec;
        e.round_logs = detail::round_log_speedups(base_t, var_t);
        e.noise_var = base_rec.noise_var + var_rec.noise_var;
        return e;
      };
      const side_estimate sb_ = speedup_side(levels[ib]->base, levels[iv]->base, tbb, tvb);
      const side_estimate sn_ = speedup_side(levels[ib]->next, levels[iv]->next, tbn, tvn);
      if (sb_.round_logs.size() == sb_.round_cycle.size() && sn_.round_logs.size() == sn_.round_cycle.size())
        if (const auto cyc = detail::paired_cycles(sb_, sn_); cyc && cyc->groups >= 2) {
          const double g = static_cast<double>(cyc->groups);
          log_ratio = cyc->center;
          half = quantile(alpha, g - 1) * std::sqrt(std::max(cyc->group_var / g, cyc->noise_var));
        }
    }
    s.base_speedup = std::exp(cb);
    s.new_speedup = std::exp(cn);
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
