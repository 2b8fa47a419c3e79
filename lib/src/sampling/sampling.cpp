// The measurement schedule: rounds, round-robin interleaving and the stopping rule
// (gpubench/sampling.hpp). CUDA-free; the executor does the GPU work.
#include "gpubench/sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "gpubench/cpu_affinity.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {

stopping_criteria stopping_criteria::per_round(int rounds) const {
  if (rounds <= 1) return *this;
  const double r = rounds;
  stopping_criteria c = *this;
  c.max_noise = max_noise * std::sqrt(r);
  c.min_samples = std::max(3, static_cast<int>(std::ceil(min_samples / r)));
  c.min_time_s = min_time_s / r;
  c.timeout_s = timeout_s / r;
  c.max_samples = std::max(3, static_cast<int>(std::ceil(max_samples / r)));
  c.min_samples_timeout = std::max(1, static_cast<int>(std::ceil(min_samples_timeout / r)));
  return c;
}

stopping_criteria stopping_criteria::added_round(int rounds) const {
  stopping_criteria c = per_round(rounds);
  c.min_time_s = 0;
  return c;
}

std::optional<stop_reason> stopping_rule::after_sample(std::span<const double> samples, double elapsed_s) {
  const std::size_t n = samples.size();
  // The estimate sorts the samples: every sample early on, every 16th once there are many.
  if (n >= 3 && (n < 256 || n % 16 == 0)) noise_ = median_rel_noise(samples);
  if (n >= static_cast<std::size_t>(c_.min_samples) && elapsed_s >= c_.min_time_s && noise_ <= c_.max_noise)
    return stop_reason::converged;
  if (n >= static_cast<std::size_t>(c_.max_samples)) return stop_reason::max_samples;
  if (elapsed_s >= c_.timeout_s && n >= static_cast<std::size_t>(std::max(1, c_.min_samples_timeout)))
    return stop_reason::timeout;
  return std::nullopt;
}

namespace {

/// A record's overall reason: a round that ran out of time says the most about the record (its
/// noise target was not met), then one that hit the sample cap.
stop_reason worst(stop_reason a, stop_reason b) {
  auto rank = [](stop_reason r) { return r == stop_reason::timeout ? 2 : r == stop_reason::max_samples ? 1 : 0; };
  return rank(b) > rank(a) ? b : a;
}

struct slot_round {
  stopping_rule rule;
  std::vector<double> samples;  // this round's, for the rule
  double elapsed = 0;           // this round's sampling time of this variant
  bool done = false;
};

}  // namespace

bool rounds_redraw_process_noise(bool host_timed, bytes_path path) { return !host_timed && path == bytes_path::dram; }

std::uint64_t placement_spacer_bytes(std::uint64_t draw) {
  const std::uint64_t granules = draw % 64, pieces = (draw >> 6) % 32;
  return granules * (2ull << 20) + pieces * (64ull << 10);
}

double round_center_error(std::span<const double> round_log_medians) {
  const std::size_t n = round_log_medians.size();
  if (n < 2) return 0.0;
  return summarize(round_log_medians).stdev / std::sqrt(static_cast<double>(n));
}

std::optional<std::string> measure_round(sample_executor& ex, std::span<measure_slot> slots,
                                         const schedule_options& options, int round, const stopping_criteria& criteria,
                                         const sampling_progress& progress) {
  auto alive = [](const measure_slot& s) { return s.error.empty(); };
  try {
    ex.begin_round(round);
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  const thread_on_cpu on_cpu(options.sampling_cpu);
  const double offset = ex.round_offset_s();
  const std::uint64_t placement = ex.round_placement_bytes();
  std::vector<slot_round> state(slots.size(), slot_round{stopping_rule(criteria), {}, 0, false});
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (!alive(slots[i])) {
      state[i].done = true;
      continue;
    }
    const double t0 = ex.now_s();
    // A fresh state gets one warm-up (its first run pays first-touch and TLB misses), unless
    // the variant's samples are long enough that a warm-up would cost a sample's time.
    const timing_data& t = *slots[i].timing;
    const double last_s = t.samples_s.empty() ? slots[i].earlier_sample_s : t.samples_s.back();
    const bool long_samples = last_s >= options.long_sample_s;
    const int runs = round == 0 ? options.warmup_runs : long_samples ? 0 : std::max(1, options.warmup_runs);
    try {
      if (runs > 0) ex.warm_up(slots[i].variant, runs);
    } catch (const std::exception& e) {
      slots[i].error = fmt::format("failed while warming up: {}", e.what());
      state[i].done = true;
    }
    slots[i].timing->wall_s += ex.now_s() - t0;
  }
  // Round-robin: one sample of each unfinished variant in turn, starting the turn at a different
  // variant each round (schedule_options::turn) so that no variant always follows the same neighbour.
  const auto start = static_cast<std::size_t>(options.turn.value_or(round));
  double previous_s = 0;                     // the last sample's time, whichever variant took it: the next rest
  std::size_t previous_slot = slots.size();  // the slot that took it
  while (true) {
    bool any = false;
    for (std::size_t k = 0; k < slots.size(); ++k) {
      const std::size_t i = (k + start) % slots.size();
      slot_round& st = state[i];
      if (st.done) continue;
      any = true;
      measure_slot& slot = slots[i];
      timing_data& t = *slot.timing;
      sample_reading r;
      double t0 = 0;
      try {
        if (options.rest_ratio > 0 && previous_s >= options.rest_after_s && previous_slot < slots.size()) {
          // The rest is the cost of the sample before it, so it goes on that variant's clock: a
          // 472 ms atomic reduction's rests had left the next variant 4 samples instead of 24.
          const double r0 = ex.now_s();
          ex.rest(options.rest_ratio * previous_s);
          const double rested = ex.now_s() - r0;
          state[previous_slot].elapsed += rested;
          slots[previous_slot].timing->wall_s += rested;
        }
        t0 = ex.now_s();
        r = ex.sample(slot.variant);
      } catch (const std::exception& e) {
        slot.error = fmt::format("failed while sampling: {}", e.what());
        st.done = true;
        continue;
      }
      const double dt = ex.now_s() - t0;
      st.elapsed += dt;
      t.wall_s += dt;
      previous_s = r.time_s;
      previous_slot = i;
      st.samples.push_back(r.time_s);
      t.samples_s.push_back(r.time_s);
      if (r.span_s) t.span_s.push_back(*r.span_s);
      t.sm_clock_mhz.push_back(r.sm_clock_mhz);
      t.throttled.push_back(r.throttled ? 1 : 0);
      if (const auto stop = st.rule.after_sample(st.samples, st.elapsed)) {
        st.done = true;
        t.rounds.push_back({.samples = st.samples.size(),
                            .stopped = *stop,
                            .wall_s = st.elapsed,
                            .event_overhead_s = offset,
                            .placement_bytes = placement});
        t.stopped = worst(t.stopped, *stop);
      } else if (progress) {
        progress(i, st.samples.size(), round, st.rule.noise(), st.elapsed);
      }
    }
    if (!any) break;
  }
  return std::nullopt;
}

void drop_failed_slots(std::span<measure_slot> slots) {
  // A variant that failed is not timed at all: a partial sample set would read as a measurement.
  for (auto& s : slots)
    if (!s.error.empty()) {
      s.timing->samples_s.clear();
      s.timing->span_s.clear();
      s.timing->sm_clock_mhz.clear();
      s.timing->throttled.clear();
      s.timing->rounds.clear();
    }
}

round_sequence::round_sequence(std::span<measure_slot> slots, const schedule_options& options)
    : slots_(slots),
      options_(options),
      rounds_(std::max(1, options.rounds)),
      max_rounds_(std::max(rounds_, options.max_rounds)),
      per_round_(options.total.per_round(rounds_)),
      added_(options.total.added_round(rounds_)) {
  for (auto& s : slots_) {
    s.timing->stopped = stop_reason::converged;
    s.timing->wall_s = 0;
  }
}

bool round_sequence::wants(int round) const {
  auto alive = [](const measure_slot& s) { return s.error.empty(); };
  if (stopped_ || round >= max_rounds_ || std::none_of(slots_.begin(), slots_.end(), alive)) return false;
  if (round < rounds_) return true;
  for (const measure_slot& s : slots_)  // an added round: while some center is not known to the target
    if (alive(s) && round_center_error(round_log_medians_of(*s.timing)) > options_.total.max_noise) return true;
  return false;
}

bool round_sequence::take(sample_executor& ex, int round, const sampling_progress& progress) {
  const std::optional<std::string> failed =
      measure_round(ex, slots_, options_, round, round < rounds_ ? per_round_ : added_, progress);
  if (!failed) return true;
  // A fresh state could not be built (out of memory, ...): keep what earlier rounds measured.
  stopped_ = true;
  if (round == 0) {
    for (auto& s : slots_)
      if (s.error.empty()) s.error = fmt::format("failed to prepare the first round: {}", *failed);
  } else if (round >= rounds_) {
    note_ = fmt::format("stopped after {} rounds (up to {} while the center was unsettled): a fresh state for "
                        "round {} failed: {}",
                        round, max_rounds_, round + 1, *failed);
  } else {
    note_ = fmt::format("stopped after {} of {} rounds: a fresh state for round {} failed: {}", round, rounds_,
                        round + 1, *failed);
  }
  drop_failed_slots(slots_);
  return false;
}

std::string round_sequence::finish() {
  drop_failed_slots(slots_);
  return note_;
}

std::string measure_rounds(sample_executor& ex, std::span<measure_slot> slots, const schedule_options& options,
                           const sampling_progress& progress) {
  round_sequence sequence(slots, options);
  for (int round = 0; sequence.wants(round); ++round) sequence.take(ex, round, progress);
  return sequence.finish();
}

void sweep_rounds(std::span<round_sequence* const> sizes, int first_round,
                  const std::function<void(std::size_t size, int round)>& visit) {
  for (int round = first_round;; ++round) {
    bool any = false;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] != nullptr && sizes[i]->wants(round)) {
        any = true;
        visit(i, round);
      }
    if (!any) return;
  }
}

std::vector<double> round_log_medians_of(const timing_data& t) {
  std::vector<double> out;
  std::size_t first = 0;
  for (const round_info& r : t.rounds) {
    if (first + r.samples > t.samples_s.size()) break;
    const double m = median(std::span<const double>(t.samples_s).subspan(first, r.samples));
    if (m > 0) out.push_back(std::log(m));
    first += r.samples;
  }
  return out;
}

namespace {

/// Runs timed_candidate callables for measure_rounds. The first exception a candidate throws is
/// kept whole (a cuda_error stays a cuda_error) and rethrown by measure_candidates.
class candidate_executor final : public sample_executor {
 public:
  candidate_executor(std::span<const timed_candidate> c, std::function<double()> clock)
      : candidates_(c), clock_(std::move(clock)) {}
  void begin_round(int) override {}
  void warm_up(std::size_t i, int) override {
    guarded([&] {
      for (int k = 0; k < candidates_[i].warmup_runs; ++k) candidates_[i].time_once();
    });
  }
  sample_reading sample(std::size_t i) override {
    sample_reading r;
    guarded([&] { r.time_s = candidates_[i].time_once(); });
    return r;
  }
  double now_s() override {
    if (clock_) return clock_();
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void rethrow_first() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  template <class F>
  void guarded(F&& f) {
    try {
      f();
    } catch (...) {
      if (!first_) first_ = std::current_exception();
      throw;
    }
  }
  std::span<const timed_candidate> candidates_;
  std::function<double()> clock_;
  std::exception_ptr first_;
};

}  // namespace

std::vector<std::vector<double>> measure_candidates(std::span<const timed_candidate> candidates, int repetitions,
                                                    const std::function<double()>& clock) {
  candidate_executor ex(candidates, clock);
  std::vector<timing_data> timings(candidates.size());
  std::vector<measure_slot> slots;
  for (std::size_t i = 0; i < candidates.size(); ++i) slots.push_back({i, &timings[i], {}});
  // A fixed count: the noise rule is satisfied by anything (a ceiling is a best-of, not a median)
  // and there is no time limit, so every candidate gets exactly `repetitions` samples.
  schedule_options o;
  o.rounds = 1;
  o.warmup_runs = 1;  // asks the executor to warm up; each candidate's own count applies
  o.total.max_noise = std::numeric_limits<double>::infinity();
  o.total.min_samples = o.total.max_samples = o.total.min_samples_timeout = std::max(1, repetitions);
  o.total.min_time_s = 0;
  o.total.timeout_s = std::numeric_limits<double>::infinity();
  measure_rounds(ex, slots, o);
  ex.rethrow_first();
  std::vector<std::vector<double>> out;
  for (auto& t : timings) out.push_back(std::move(t.samples_s));
  return out;
}

}  // namespace gpubench
