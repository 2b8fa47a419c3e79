// The measurement schedule without a GPU: a scripted executor replays sample sequences (drift,
// outliers, throttling, between-round shifts, failures) and the tests check every stop, the
// interleaving, the rounds and the timing fields the profile stores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "gpubench/cpu_affinity.hpp"
#include "gpubench/sampling.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {
namespace {

/// A fake GPU: each sample of variant v in round r takes time_of(v, r, k) seconds (k counts the
/// variant's samples in that round) and advances a fake clock by that much plus `overhead_s`.
class scripted_executor final : public sample_executor {
 public:
  std::function<double(std::size_t v, int round, std::size_t k)> time_of = [](std::size_t, int, std::size_t) {
    return 1e-3;
  };
  double overhead_s = 0;
  std::function<bool(std::size_t v, int round, std::size_t k)> throttled_at = [](std::size_t, int, std::size_t) {
    return false;
  };
  double* shared_clock = nullptr;    ///< several executors on one clock (sizes taken in sweeps)
  int fail_round_at = -1;            ///< begin_round(this) throws
  long fail_variant = -1;            ///< sample() of this variant throws ...
  std::size_t fail_after = 0;        ///< ... after this many of its samples
  bool spans = false;

  std::vector<int> rounds_begun;
  std::vector<std::size_t> order;    ///< variants in the order they were sampled
  std::vector<std::pair<std::size_t, int>> warmups;

  std::vector<int> cpus_at_begin, cpus_at_sample;  ///< how many CPUs the thread may use then

  static int cpus_now() {
    cpu_set_t set;
    CPU_ZERO(&set);
    return ::sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
  }

  void begin_round(int round) override {
    if (round == fail_round_at) throw std::runtime_error("out of memory");
    cpus_at_begin.push_back(cpus_now());
    rounds_begun.push_back(round);
    round_ = round;
    per_round_.assign(8, 0);
  }
  void warm_up(std::size_t v, int runs) override { warmups.emplace_back(v, runs); }
  sample_reading sample(std::size_t v) override {
    if (static_cast<long>(v) == fail_variant && taken_[v] >= fail_after) throw std::runtime_error("illegal address");
    const std::size_t k = per_round_[v]++;
    ++taken_[v];
    cpus_at_sample.push_back(cpus_now());
    order.push_back(v);
    sample_reading r;
    r.time_s = time_of(v, round_, k);
    if (spans) r.span_s = r.time_s + 1.5e-6;
    r.sm_clock_mhz = 1980;
    r.throttled = throttled_at(v, round_, k);
    clock() += r.time_s + overhead_s;
    return r;
  }
  double now_s() override { return clock(); }
  /// Each rest as (samples taken before it, seconds); a rest takes its time on the fake clock.
  std::vector<std::pair<std::size_t, double>> rests;
  void rest(double seconds) override {
    rests.emplace_back(order.size(), seconds);
    clock() += seconds;
  }
  /// The offset a round reports: offsets[round], or 0.
  std::vector<double> offsets;
  [[nodiscard]] double round_offset_s() const override {
    return static_cast<std::size_t>(round_) < offsets.size() ? offsets[static_cast<std::size_t>(round_)] : 0.0;
  }

 private:
  double& clock() { return shared_clock != nullptr ? *shared_clock : now_; }
  int round_ = 0;
  double now_ = 0;
  std::vector<std::size_t> per_round_ = std::vector<std::size_t>(8, 0);
  std::vector<std::size_t> taken_ = std::vector<std::size_t>(8, 0);
};

struct two_slots {
  timing_data a, b;
  std::vector<measure_slot> slots{{0, &a, {}}, {1, &b, {}}};
};

schedule_options opts(int rounds, double noise = 0.005, int min_samples = 10, double min_time = 0, double timeout = 1.0) {
  schedule_options o;
  o.rounds = rounds;
  o.warmup_runs = 1;
  o.total = {noise, min_samples, min_time, timeout, 10000};
  return o;
}

TEST(StoppingCriteria, PerRoundSplitsTheBudgetAndWidensTheNoiseTarget) {
  const stopping_criteria total{0.005, 10, 0.05, 1.0, 10000};
  const stopping_criteria r = total.per_round(4);
  EXPECT_DOUBLE_EQ(r.max_noise, 0.01);  // sqrt(4) = 2
  EXPECT_EQ(r.min_samples, 3);          // ceil(10/4) = 3
  EXPECT_DOUBLE_EQ(r.min_time_s, 0.0125);
  EXPECT_DOUBLE_EQ(r.timeout_s, 0.25);
  EXPECT_EQ(r.max_samples, 2500);
  EXPECT_EQ(r.min_samples_timeout, 1);  // ceil(3/4): a round of one very long sample may time out
  EXPECT_EQ(total.per_round(1).min_samples, 10);
  EXPECT_EQ((stopping_criteria{0.005, 2, 0, 1, 4}).per_round(2).min_samples, 3);  // never fewer than 3
}

TEST(StoppingCriteria, AnAddedRoundIsAPlannedOneWithoutTheMinimumTime) {
  const stopping_criteria total{0.005, 10, 0.05, 1.0, 10000};
  const stopping_criteria planned = total.per_round(4), added = total.added_round(4);
  EXPECT_DOUBLE_EQ(added.min_time_s, 0.0);
  EXPECT_DOUBLE_EQ(added.max_noise, planned.max_noise);
  EXPECT_EQ(added.min_samples, planned.min_samples);
  EXPECT_DOUBLE_EQ(added.timeout_s, planned.timeout_s);
  EXPECT_EQ(added.max_samples, planned.max_samples);
  EXPECT_EQ(added.min_samples_timeout, planned.min_samples_timeout);
}

TEST(StoppingRule, ConvergesOnlyOnceCountTimeAndNoiseAreAllMet) {
  stopping_rule rule({0.01, 5, 0.5, 10.0, 1000});
  std::vector<double> s;
  for (int i = 0; i < 4; ++i) {
    s.push_back(1.0);
    EXPECT_FALSE(rule.after_sample(s, 1.0)) << "only " << s.size() << " samples";
  }
  s.push_back(1.0);
  EXPECT_FALSE(rule.after_sample(s, 0.4)) << "min time not reached";
  s.push_back(1.0);
  EXPECT_EQ(rule.after_sample(s, 0.6), stop_reason::converged);
  EXPECT_DOUBLE_EQ(rule.noise(), 0.0);
}

TEST(StoppingRule, TimesOutWithAtLeastThreeSamplesAndStopsAtTheCap) {
  stopping_rule slow({0.001, 10, 0, 1.0, 1000});
  std::vector<double> s{1.0, 2.0};
  EXPECT_FALSE(slow.after_sample(s, 5.0)) << "two samples never stop on time";
  s.push_back(3.0);
  EXPECT_EQ(slow.after_sample(s, 5.0), stop_reason::timeout);

  stopping_rule capped({0.0, 1, 0, 100.0, 4});
  std::vector<double> t{1.0, 1.1, 1.2, 1.3};
  EXPECT_EQ(capped.after_sample(t, 0.1), stop_reason::max_samples);
}

TEST(MeasureRounds, InterleavesVariantsRoundRobinAndRotatesTheFirst) {
  scripted_executor ex;
  two_slots s;
  // Converge at the minimum: 3 rounds x ceil(9/3) = 3 identical samples each.
  EXPECT_EQ(measure_rounds(ex, s.slots, opts(3, 0.005, 9)), "");
  ASSERT_EQ(ex.order.size(), 18u);
  const std::vector<std::size_t> expected{0, 1, 0, 1, 0, 1,   // round 0 starts with variant 0
                                          1, 0, 1, 0, 1, 0,   // round 1 with variant 1
                                          0, 1, 0, 1, 0, 1};  // round 2 with variant 0 again
  EXPECT_EQ(ex.order, expected);
  EXPECT_EQ(ex.rounds_begun, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(s.a.rounds.size(), 3u);
  for (const round_info& r : s.a.rounds) {
    EXPECT_EQ(r.samples, 3u);
    EXPECT_EQ(r.stopped, stop_reason::converged);
  }
  EXPECT_EQ(s.a.samples_s.size(), 9u);
  EXPECT_EQ(s.a.sm_clock_mhz.size(), 9u);
  EXPECT_EQ(s.a.throttled.size(), 9u);
  EXPECT_TRUE(s.a.span_s.empty());
  EXPECT_EQ(s.a.stopped, stop_reason::converged);
}

TEST(MeasureRounds, FreshStatesGetAWarmUpEvenWhenNoneIsAsked) {
  scripted_executor ex;
  two_slots s;
  schedule_options o = opts(2, 0.005, 6);
  o.warmup_runs = 0;
  measure_rounds(ex, s.slots, o);
  // Round 0 (the verified state) none; round 1 (fresh buffers) one per variant.
  EXPECT_EQ(ex.warmups, (std::vector<std::pair<std::size_t, int>>{{0, 1}, {1, 1}}));
}

TEST(MeasureRounds, SamplesAreHeldOnTheCpuAskedAndFreshStatesAreNot) {
  const std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  scripted_executor ex;
  two_slots s;
  schedule_options o = opts(3, 0.005, 6);
  o.sampling_cpu = allowed.back();
  measure_rounds(ex, s.slots, o);
  const int all = static_cast<int>(allowed.size());
  EXPECT_EQ(ex.cpus_at_begin, std::vector<int>(ex.rounds_begun.size(), all)) << "a fresh state may fill in parallel";
  EXPECT_EQ(ex.cpus_at_sample, std::vector<int>(ex.order.size(), 1));
  EXPECT_EQ(allowed_cpus(), allowed) << "the thread gets its mask back";
  scripted_executor free_ex;
  two_slots f;
  measure_rounds(free_ex, f.slots, opts(3, 0.005, 6));
  EXPECT_EQ(free_ex.cpus_at_sample, std::vector<int>(free_ex.order.size(), all));
}

TEST(MeasureRounds, LongSamplesGetNoWarmUpAfterTheFirstRound) {
  scripted_executor ex;
  ex.time_of = [](std::size_t v, int, std::size_t) { return v == 0 ? 0.1 : 1e-3; };  // 100 ms vs 1 ms
  two_slots s;
  measure_rounds(ex, s.slots, opts(3, 0.005, 9, 0, 100.0));
  EXPECT_EQ(ex.warmups, (std::vector<std::pair<std::size_t, int>>{{0, 1}, {1, 1}, {1, 1}, {1, 1}}));
}

TEST(MeasureRound, AWorkersFreshRoundSkipsTheWarmUpOfLongSamplesFromAnEarlierRound) {
  // A worker answers each round with that round's samples alone, so the timing is empty; the
  // slot carries the last sample of the round before. 100 ms then: no warm-up in a fresh round,
  // one in the round on the verified state; 1 ms, or none measured yet: a warm-up.
  for (const auto& [earlier, round, runs] :
       std::vector<std::tuple<double, int, int>>{{0.1, 1, 0}, {0.1, 0, 1}, {1e-3, 1, 1}, {0.0, 1, 1}}) {
    scripted_executor ex;
    timing_data t;
    std::vector<measure_slot> one{{0, &t, {}, earlier}};
    const schedule_options o = opts(1, 0.005, 3, 0, 100.0);
    EXPECT_EQ(measure_round(ex, one, o, round, o.total), std::nullopt);
    const std::vector<std::pair<std::size_t, int>> expected =
        runs ? std::vector<std::pair<std::size_t, int>>{{0, runs}} : std::vector<std::pair<std::size_t, int>>{};
    EXPECT_EQ(ex.warmups, expected) << "earlier " << earlier << " s, round " << round;
    EXPECT_EQ(t.samples_s.size(), 3u);
  }
}

TEST(MeasureRounds, SamplesLongerThanARoundsBudgetTakeOneEachRound) {
  // 0.5 s samples against a 1 s budget (a third of a second a round): one sample a round, three
  // in all, as the single-round engine took three before its timeout.
  scripted_executor ex;
  ex.time_of = [](std::size_t, int round, std::size_t) { return 0.5 * (1 + 0.01 * round); };
  timing_data t;
  std::vector<measure_slot> slots{{0, &t, {}}};
  measure_rounds(ex, slots, opts(3, 1e-6, 10, 0, 1.0));
  ASSERT_EQ(t.rounds.size(), 3u);
  for (const round_info& r : t.rounds) {
    EXPECT_EQ(r.samples, 1u);
    EXPECT_EQ(r.stopped, stop_reason::timeout);
  }
  EXPECT_EQ(t.stopped, stop_reason::timeout);
}

TEST(MeasureRounds, KeepsSpansBesideGpuBusyTime) {
  scripted_executor ex;
  ex.spans = true;
  two_slots s;
  measure_rounds(ex, s.slots, opts(2, 0.005, 6));
  ASSERT_EQ(s.a.span_s.size(), s.a.samples_s.size());
  for (std::size_t i = 0; i < s.a.span_s.size(); ++i) EXPECT_NEAR(s.a.span_s[i] - s.a.samples_s[i], 1.5e-6, 1e-15);
}

TEST(MeasureRounds, EachRoundKeepsTheOffsetItsSamplesHadSubtracted) {
  // The CUDA executor subtracts the empty event span it measured before each round; the round
  // remembers it, so a sample's raw span is its time plus its round's offset.
  scripted_executor ex;
  ex.offsets = {1.25e-6, 0.0, 1.5e-6};
  two_slots s;
  measure_rounds(ex, s.slots, opts(3, 0.005, 10));
  for (const timing_data* t : {&s.a, &s.b}) {
    ASSERT_EQ(t->rounds.size(), 3u);
    EXPECT_EQ(t->rounds[0].event_overhead_s, 1.25e-6);
    EXPECT_EQ(t->rounds[1].event_overhead_s, 0.0);
    EXPECT_EQ(t->rounds[2].event_overhead_s, 1.5e-6);
  }
}

TEST(MeasureRounds, EachSampleRestsInProportionToThePreviousWhicheverVariantTookIt) {
  // A GEMM's power state is the GPU's, not the variant's: the rest before a sample follows the
  // sample just taken. The first sample of a round follows the warm-ups and rests not at all.
  scripted_executor ex;
  ex.time_of = [](std::size_t v, int, std::size_t) { return v == 0 ? 1e-3 : 3e-3; };
  two_slots s;
  schedule_options o = opts(2, 0.005, 4);
  o.rest_ratio = 0.5;
  measure_rounds(ex, s.slots, o);
  const std::size_t samples = s.a.samples_s.size() + s.b.samples_s.size();
  ASSERT_EQ(ex.rests.size(), samples - 2);  // every sample but each round's first
  for (const auto& [before, seconds] : ex.rests) {
    ASSERT_GT(before, 0u);
    EXPECT_DOUBLE_EQ(seconds, 0.5 * (ex.order[before - 1] == 0 ? 1e-3 : 3e-3)) << "rest after sample " << before;
  }
  EXPECT_EQ(ex.rests.front().first, 1u);
}

TEST(MeasureRounds, NoRestFollowsASampleShorterThanRestAfter) {
  // 20 us samples already sit between ~50 us of flush and host turnaround: only the 1 ms
  // variant's samples are followed by a rest.
  scripted_executor ex;
  ex.time_of = [](std::size_t v, int, std::size_t) { return v == 0 ? 20e-6 : 1e-3; };
  two_slots s;
  schedule_options o = opts(1, 0.005, 4);
  o.rest_ratio = 1;
  measure_rounds(ex, s.slots, o);
  ASSERT_FALSE(ex.rests.empty());
  for (const auto& [before, seconds] : ex.rests) {
    EXPECT_EQ(ex.order[before - 1], 1u) << "rest after sample " << before;
    EXPECT_DOUBLE_EQ(seconds, 1e-3);
  }
  EXPECT_EQ(ex.rests.size(), s.b.samples_s.size() - (ex.order.back() == 1 ? 1 : 0));
}

TEST(MeasureRounds, ARestIsChargedToTheVariantWhoseSampleItFollows) {
  // A 0.4 s variant beside one of 20-36 us (too short to rest after), rounds of 0.2 s at most: the
  // rests after the long samples must not use up the short variant's time (they did: a 472 ms
  // atomic reduction's rests left the next variant 4 samples instead of 24). The long variant
  // takes its 3 samples, each followed by a 0.4 s rest on its own wall; the short one samples as
  // if nothing rested.
  const auto short_samples = [](double ratio, double* long_wall) {
    scripted_executor ex;
    ex.time_of = [](std::size_t v, int, std::size_t k) { return v == 0 ? 0.4 : 20e-6 * (1 + 0.2 * double(k % 5)); };
    two_slots s;
    schedule_options o = opts(1, 1e-6, 1000, 0, 0.2);  // a noise target no sample set meets: timeouts decide
    o.rest_ratio = ratio;
    measure_rounds(ex, s.slots, o);
    EXPECT_EQ(s.a.samples_s.size(), 3u);
    *long_wall = s.a.wall_s;
    return s.b.samples_s.size();
  };
  double back_to_back_wall = 0, rested_wall = 0;
  const std::size_t back_to_back = short_samples(0, &back_to_back_wall);
  EXPECT_EQ(short_samples(1, &rested_wall), back_to_back);
  EXPECT_GT(back_to_back, 1000u);
  EXPECT_NEAR(rested_wall - back_to_back_wall, 3 * 0.4, 1e-9);
}

TEST(MeasureRounds, BackToBackWithoutARestRatio) {
  scripted_executor ex;
  two_slots s;
  measure_rounds(ex, s.slots, opts(2, 0.005, 4));  // rest_ratio 0, the schedule's own default
  EXPECT_TRUE(ex.rests.empty());
}

TEST(MeasureRounds, RestsCountTowardTheRoundsTimeLimit) {
  // 10 ms samples, a 95 ms round, a sample count the timeout reaches first: back to back, 10
  // samples; resting as long again, the round's clock reads 10 + 20 (n - 1) ms after n, so 6.
  const auto taken = [](double ratio) {
    scripted_executor ex;
    ex.time_of = [](std::size_t, int, std::size_t) { return 0.01; };
    timing_data t;
    std::vector<measure_slot> one{{0, &t, {}}};
    schedule_options o = opts(1, 0.005, 100, 0, 0.095);
    o.rest_ratio = ratio;
    measure_rounds(ex, one, o);
    EXPECT_EQ(t.stopped, stop_reason::timeout);
    return t.samples_s.size();
  };
  EXPECT_EQ(taken(0), 10u);
  EXPECT_EQ(taken(1), 6u);
}

TEST(MeasureRounds, ABetweenRoundShiftShowsInTheRoundMediansNotInTheSampleNoise) {
  // Round r runs 2% slower than round r-1 (fresh buffers landing elsewhere); inside a round the
  // samples are steady, so each round converges at once: only the rounds reveal the shift.
  scripted_executor ex;
  ex.time_of = [](std::size_t, int round, std::size_t k) { return 1e-3 * std::pow(1.02, round) * (1 + 1e-4 * (k % 3)); };
  two_slots s;
  measure_rounds(ex, s.slots, opts(3, 0.005, 9));
  ASSERT_EQ(s.a.rounds.size(), 3u);
  std::size_t first = 0;
  std::vector<double> medians;
  for (const round_info& r : s.a.rounds) {
    medians.push_back(median(std::span<const double>(s.a.samples_s).subspan(first, r.samples)));
    first += r.samples;
  }
  EXPECT_NEAR(medians[1] / medians[0], 1.02, 1e-3);
  EXPECT_NEAR(medians[2] / medians[1], 1.02, 1e-3);
  EXPECT_LT(median_rel_noise(std::span<const double>(s.a.samples_s).first(3)), 0.001);
}

TEST(RoundCenterError, IsTheSdOfTheRoundLogMediansOverTheRootOfTheirCount) {
  EXPECT_EQ(round_center_error(std::vector<double>{}), 0.0);
  EXPECT_EQ(round_center_error(std::vector<double>{0.3}), 0.0);  // one round tells nothing
  // sd of {0, 0.03, 0.06} is 0.03; over sqrt(3)
  EXPECT_NEAR(round_center_error(std::vector<double>{0.0, 0.03, 0.06}), 0.03 / std::sqrt(3.0), 1e-12);
}

TEST(RoundsRedrawProcessNoise, OnlyForDeviceTimedWorkInOneGpusMemory) {
  EXPECT_TRUE(rounds_redraw_process_noise(false, bytes_path::dram));
  EXPECT_FALSE(rounds_redraw_process_noise(true, bytes_path::dram));  // the host's speed drifts per process
  for (bytes_path p : {bytes_path::pcie, bytes_path::pcie_duplex, bytes_path::peer, bytes_path::peer_duplex})
    EXPECT_FALSE(rounds_redraw_process_noise(false, p));
}

namespace {
/// Round r of every variant at 1 ms x factor(r), steady inside the round; opts(rounds) with max_rounds.
schedule_options adaptive(int rounds, int max_rounds) {
  schedule_options o = opts(rounds, 0.005, 3 * rounds);
  o.max_rounds = max_rounds;
  return o;
}
}  // namespace

TEST(MeasureRounds, RoundsThatLandOnDifferentPlacementsGetMoreRoundsUpToTheCap) {
  // Rounds alternate between two placements 10% apart: the center stays unsettled (sd/sqrt(R)
  // about 2.7% at 6 rounds), so the schedule adds rounds up to max_rounds, for every variant alike
  // (the pair's speedup keeps one ratio per round).
  scripted_executor ex;
  ex.time_of = [](std::size_t, int round, std::size_t) { return round % 2 ? 1.1e-3 : 1e-3; };
  two_slots s;
  EXPECT_EQ(measure_rounds(ex, s.slots, adaptive(3, 6)), "");
  EXPECT_EQ(ex.rounds_begun, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(s.a.rounds.size(), 6u);
  EXPECT_EQ(s.b.rounds.size(), 6u);
  for (const round_info& r : s.a.rounds) EXPECT_EQ(r.samples, 3u);  // no minimum time: the counts alone
}

TEST(MeasureRounds, AnAddedRoundKeepsThePlannedCountsButNotTheMinimumTime) {
  // 1 ms samples, steady inside a round, rounds alternating 10% apart; 24 ms of minimum time and
  // 9 samples over 3 rounds: a planned round samples its 8 ms share of the time, an added one (of
  // up to 8) stops at a planned round's count, 3.
  scripted_executor ex;
  ex.time_of = [](std::size_t, int round, std::size_t) { return round % 2 ? 1.1e-3 : 1e-3; };
  two_slots s;
  schedule_options o = opts(3, 0.005, 9, 0.024);
  o.max_rounds = 8;
  measure_rounds(ex, s.slots, o);
  ASSERT_EQ(s.a.rounds.size(), 8u);
  for (std::size_t r = 0; r < 3; ++r) EXPECT_EQ(s.a.rounds[r].samples, 8u) << "round " << r;
  for (std::size_t r = 3; r < 8; ++r) EXPECT_EQ(s.a.rounds[r].samples, 3u) << "round " << r;
}

TEST(MeasureRounds, SteadyRoundsStopAtTheRoundsAsked) {
  scripted_executor ex;  // every sample 1 ms
  two_slots s;
  measure_rounds(ex, s.slots, adaptive(3, 8));
  EXPECT_EQ(ex.rounds_begun, (std::vector<int>{0, 1, 2}));
}

TEST(MeasureRounds, AddedRoundsStopOnceTheCenterIsKnownToTheNoiseTarget) {
  // One variant's second round lands 3% slower, every other round alike: after 3 rounds the
  // center's error is 0.99%, after 4 0.74%, 5 0.59%, 6 0.49% (<= 0.5%): six rounds, not eight.
  scripted_executor ex;
  ex.time_of = [](std::size_t v, int round, std::size_t) { return v == 1 && round == 1 ? 1.03e-3 : 1e-3; };
  two_slots s;
  measure_rounds(ex, s.slots, adaptive(3, 8));
  EXPECT_EQ(ex.rounds_begun.size(), 6u);
  EXPECT_EQ(s.a.rounds.size(), 6u);  // the steady variant keeps step with the unsettled one
}

TEST(MeasureRounds, AMaxRoundsBelowTheRoundsAskedMeansExactlyThoseRounds) {
  scripted_executor ex;
  ex.time_of = [](std::size_t, int round, std::size_t) { return round % 2 ? 1.1e-3 : 1e-3; };
  two_slots s;
  measure_rounds(ex, s.slots, adaptive(3, 2));
  EXPECT_EQ(ex.rounds_begun.size(), 3u);
  schedule_options o = adaptive(3, 0);  // the default: no added rounds
  two_slots t;
  scripted_executor ex2;
  ex2.time_of = ex.time_of;
  measure_rounds(ex2, t.slots, o);
  EXPECT_EQ(ex2.rounds_begun.size(), 3u);
}

TEST(MeasureRounds, AnAddedRoundThatCannotStartKeepsEveryRoundBeforeIt) {
  scripted_executor ex;
  ex.time_of = [](std::size_t, int round, std::size_t) { return round % 2 ? 1.1e-3 : 1e-3; };
  ex.fail_round_at = 4;
  two_slots s;
  const std::string note = measure_rounds(ex, s.slots, adaptive(3, 8));
  EXPECT_NE(note.find("stopped after 4 rounds (up to 8"), std::string::npos) << note;
  EXPECT_EQ(s.a.rounds.size(), 4u);
  EXPECT_EQ(s.slots[0].error, "");
}

TEST(MeasureRounds, AFailedVariantDoesNotKeepAddingRounds) {
  // The unsettled variant fails in round 1; the steady one has nothing left to settle.
  scripted_executor ex;
  ex.time_of = [](std::size_t v, int round, std::size_t) { return v == 1 && round % 2 ? 1.1e-3 : 1e-3; };
  ex.fail_variant = 1;
  ex.fail_after = 4;
  two_slots s;
  measure_rounds(ex, s.slots, adaptive(3, 8));
  EXPECT_EQ(ex.rounds_begun.size(), 3u);
  EXPECT_TRUE(s.b.samples_s.empty());
}

TEST(MeasureRounds, DriftIsSharedByInterleavedVariants) {
  // The clock falls steadily (power cap): every sample is 0.1% slower than the one before it,
  // whichever variant it belongs to. Interleaved, baseline and optimized see the same drift, so
  // their median ratio stays at the true 2x; run back to back, the later one would absorb it.
  scripted_executor ex;
  int n = 0;
  ex.time_of = [&n](std::size_t v, int, std::size_t) { return (v == 0 ? 2e-3 : 1e-3) * (1 + 1e-3 * n++); };
  two_slots s;
  measure_rounds(ex, s.slots, opts(1, 0.0, 200, 0, 1e9));  // noise 0, no time limit: both sample to the cap
  EXPECT_NEAR(median(s.a.samples_s) / median(s.b.samples_s), 2.0, 2.0 * 2e-3);
}

TEST(MeasureRounds, OutliersDoNotKeepARoundSampling) {
  // One sample in ten is preempted (10x): the MAD-based noise ignores them and the round converges.
  scripted_executor ex;
  ex.time_of = [](std::size_t, int, std::size_t k) { return k % 10 == 7 ? 1e-2 : 1e-3 * (1 + 1e-4 * (k % 5)); };
  two_slots s;
  measure_rounds(ex, s.slots, opts(1, 0.005, 20));
  EXPECT_EQ(s.a.stopped, stop_reason::converged);
  EXPECT_LT(s.a.samples_s.size(), 40u);
}

TEST(MeasureRounds, NoisyVariantTimesOutPerRoundAndTheRecordSaysSo) {
  scripted_executor ex;
  ex.time_of = [](std::size_t v, int, std::size_t k) { return v == 0 ? 1e-3 : 1e-3 * (1 + 0.5 * ((k * 7919) % 13) / 13.0); };
  ex.overhead_s = 1e-3;
  two_slots s;
  measure_rounds(ex, s.slots, opts(2, 0.0005, 5, 0, 0.2));  // 0.1 s per round
  EXPECT_EQ(s.a.stopped, stop_reason::converged);
  EXPECT_EQ(s.b.stopped, stop_reason::timeout);
  for (const round_info& r : s.b.rounds) {
    EXPECT_EQ(r.stopped, stop_reason::timeout);
    EXPECT_GE(r.wall_s, 0.1);
    EXPECT_LT(r.wall_s, 0.11);
  }
}

TEST(MeasureRounds, ThrottledSamplesAreFlaggedWhereTheyHappen) {
  scripted_executor ex;
  ex.throttled_at = [](std::size_t v, int round, std::size_t k) { return v == 1 && round == 1 && k == 0; };
  two_slots s;
  measure_rounds(ex, s.slots, opts(2, 0.005, 6));
  EXPECT_EQ(std::count(s.a.throttled.begin(), s.a.throttled.end(), 1), 0);
  ASSERT_EQ(s.b.rounds.size(), 2u);
  EXPECT_EQ(s.b.throttled[s.b.rounds[0].samples], 1);  // the first sample of round 1
}

TEST(MeasureRounds, AFailingVariantIsNotTimedAndTheOthersGoOn) {
  scripted_executor ex;
  ex.fail_variant = 1;
  ex.fail_after = 4;  // fails in round 1
  two_slots s;
  measure_rounds(ex, s.slots, opts(3, 0.005, 9));
  EXPECT_EQ(s.slots[0].error, "");
  EXPECT_EQ(s.a.rounds.size(), 3u);
  EXPECT_NE(s.slots[1].error.find("illegal address"), std::string::npos);
  EXPECT_TRUE(s.b.samples_s.empty()) << "a partial sample set would read as a measurement";
  EXPECT_TRUE(s.b.rounds.empty());
}

TEST(MeasureRounds, AFreshStateThatFailsKeepsTheRoundsAlreadyMeasured) {
  scripted_executor ex;
  ex.fail_round_at = 2;
  two_slots s;
  const std::string note = measure_rounds(ex, s.slots, opts(3, 0.005, 9));
  EXPECT_NE(note.find("stopped after 2 of 3 rounds"), std::string::npos) << note;
  EXPECT_NE(note.find("out of memory"), std::string::npos) << note;
  EXPECT_EQ(s.a.rounds.size(), 2u);
  EXPECT_EQ(s.slots[0].error, "");
}

TEST(MeasureRounds, AFirstRoundThatCannotStartFailsEveryVariant) {
  scripted_executor ex;
  ex.fail_round_at = 0;
  two_slots s;
  measure_rounds(ex, s.slots, opts(3));
  EXPECT_NE(s.slots[0].error.find("first round"), std::string::npos);
  EXPECT_NE(s.slots[1].error.find("first round"), std::string::npos);
}

namespace {
/// Sizes of two variants each, on one shared clock, for the sweep tests.
struct swept_sizes {
  explicit swept_sizes(std::size_t n, const schedule_options& o) : sizes(n), executors(n) {
    for (auto& ex : executors) ex.shared_clock = &clock;
    for (auto& s : sizes) sequences.emplace_back(s.slots, o);
    for (auto& q : sequences) pointers.push_back(&q);
  }
  /// Takes every round of every size in sweeps from round 0; returns (size, round) in the order taken.
  std::vector<std::pair<std::size_t, int>> sweep() {
    std::vector<std::pair<std::size_t, int>> visits;
    sweep_rounds(pointers, 0, [&](std::size_t i, int round) {
      visits.emplace_back(i, round);
      sequences[i].take(executors[i], round);
    });
    return visits;
  }
  double clock = 0;
  std::vector<two_slots> sizes;
  std::vector<scripted_executor> executors;
  std::vector<round_sequence> sequences;
  std::vector<round_sequence*> pointers;
};

/// How many of a variant's rounds have a median above `threshold_s`.
std::size_t rounds_above(const timing_data& t, double threshold_s) {
  const std::vector<double> m = round_log_medians_of(t);
  return static_cast<std::size_t>(
      std::count_if(m.begin(), m.end(), [&](double x) { return x > std::log(threshold_s); }));
}
}  // namespace

TEST(SweepRounds, TakesRoundROfEverySizeBeforeRoundRPlusOneOfAny) {
  swept_sizes w(3, opts(3, 0.005, 9));
  w.pointers[1] = nullptr;  // a size taken elsewhere is skipped
  const std::vector<std::pair<std::size_t, int>> expected = {{0, 0}, {2, 0}, {0, 1}, {2, 1}, {0, 2}, {2, 2}};
  EXPECT_EQ(w.sweep(), expected);
  EXPECT_EQ(w.sequences[0].finish(), "");
  EXPECT_EQ(w.sizes[0].a.rounds.size(), 3u);
  EXPECT_TRUE(w.sizes[1].a.rounds.empty());
}

TEST(SweepRounds, AnUnsettledSizeKeepsSweepingAfterTheSteadyOnesStop) {
  schedule_options o = adaptive(3, 6);
  swept_sizes w(2, o);
  w.executors[1].time_of = [](std::size_t, int round, std::size_t) { return round % 2 ? 1.1e-3 : 1e-3; };
  const std::vector<std::pair<std::size_t, int>> expected = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2},
                                                             {1, 2}, {1, 3}, {1, 4}, {1, 5}};
  EXPECT_EQ(w.sweep(), expected);
  EXPECT_EQ(w.sizes[0].a.rounds.size(), 3u);
  EXPECT_EQ(w.sizes[1].b.rounds.size(), 6u);
}

TEST(SweepRounds, ASizeWhoseLaterRoundCannotStartKeepsItsEarlierRoundsAndTheOthersGoOn) {
  swept_sizes w(2, opts(3, 0.005, 9));
  w.executors[0].fail_round_at = 1;
  const std::vector<std::pair<std::size_t, int>> expected = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {1, 2}};
  EXPECT_EQ(w.sweep(), expected);
  const std::string note = w.sequences[0].finish();
  EXPECT_NE(note.find("stopped after 1 of 3 rounds"), std::string::npos) << note;
  EXPECT_EQ(w.sizes[0].a.rounds.size(), 1u);
  EXPECT_EQ(w.sizes[0].slots[0].error, "");
  EXPECT_EQ(w.sequences[1].finish(), "");
  EXPECT_EQ(w.sizes[1].a.rounds.size(), 3u);
}

TEST(SweepRounds, AFirstRoundThatCannotStartFailsThatSizeAlone) {
  swept_sizes w(2, opts(3, 0.005, 9));
  w.executors[1].fail_round_at = 0;
  w.sweep();
  EXPECT_NE(w.sizes[1].slots[0].error.find("first round"), std::string::npos);
  EXPECT_TRUE(w.sizes[1].a.samples_s.empty());
  EXPECT_EQ(w.sizes[0].slots[0].error, "");
  EXPECT_EQ(w.sizes[0].a.rounds.size(), 3u);
}

// The reason for sweeps: the host slows 4x for a spell as long as one size's three rounds taken
// back to back (each sample 1 ms, 3 per variant per round, so 6 ms a round and 18 ms a size when
// the host is fast). Back to back, the spell covers every round of one size: its rounds agree on
// a time 4x too slow and nothing shows it. In sweeps, the same spell covers one round of each size,
// so every size's rounds disagree and the record's spread shows the spell.
TEST(SweepRounds, AHostSlowSpellReachesOneRoundOfEachSizeInsteadOfEveryRoundOfOne) {
  const double spell_begin = 0.0175, spell_end = 0.0895;  // size 1's rounds, back to back, at 4x
  const auto slowed_by_spell = [&](double* clock) {
    return [=](std::size_t, int, std::size_t) { return *clock >= spell_begin && *clock < spell_end ? 4e-3 : 1e-3; };
  };
  const schedule_options o = opts(3, 0.005, 9);

  swept_sizes back_to_back(3, o);
  for (std::size_t i = 0; i < 3; ++i) {
    back_to_back.executors[i].time_of = slowed_by_spell(&back_to_back.clock);
    EXPECT_EQ(measure_rounds(back_to_back.executors[i], back_to_back.sizes[i].slots, o), "");
  }
  EXPECT_EQ(rounds_above(back_to_back.sizes[0].a, 2e-3), 0u);
  EXPECT_EQ(rounds_above(back_to_back.sizes[1].a, 2e-3), 3u);                         // all three rounds slow ...
  EXPECT_EQ(round_center_error(round_log_medians_of(back_to_back.sizes[1].a)), 0.0);  // ... and in agreement
  EXPECT_EQ(rounds_above(back_to_back.sizes[2].a, 2e-3), 0u);

  swept_sizes swept(3, o);
  for (auto& ex : swept.executors) ex.time_of = slowed_by_spell(&swept.clock);
  swept.sweep();
  for (std::size_t i = 0; i < 3; ++i) {
    for (const timing_data* t : {&swept.sizes[i].a, &swept.sizes[i].b}) {
      EXPECT_EQ(t->rounds.size(), 3u);
      EXPECT_EQ(rounds_above(*t, 2e-3), 1u) << "size " << i;
      // one round of three at 4x: sd of {0, ln 4, 0} over sqrt(3)
      EXPECT_NEAR(round_center_error(round_log_medians_of(*t)), std::log(4.0) / std::sqrt(3.0) / std::sqrt(3.0), 1e-9)
          << "size " << i;
    }
  }
}

TEST(MeasureRounds, ReportsProgressWhileARoundSamples) {
  scripted_executor ex;
  two_slots s;
  std::size_t calls = 0;
  measure_rounds(ex, s.slots, opts(1, 0.005, 10), [&](std::size_t slot, std::size_t n, int round, double, double) {
    EXPECT_LT(slot, 2u);
    EXPECT_LT(n, 10u);  // the stopping sample reports a stop, not progress
    EXPECT_EQ(round, 0);
    ++calls;
  });
  EXPECT_EQ(calls, 18u);  // 9 non-final samples of each of 2 variants
}

// The ceilings' schedule (`device --ceilings`): warm-ups first, then exactly N samples of each
// candidate, interleaved, whatever their noise and however long they take.
TEST(MeasureCandidates, WarmsUpThenInterleavesAFixedCount) {
  std::vector<std::string> calls;
  double now = 0;
  const auto candidate = [&](std::string name, double seconds, int warmups) {
    return timed_candidate{[&calls, &now, name, seconds] {
                             calls.push_back(name);
                             now += seconds;
                             return seconds * (1 + 0.3 * static_cast<double>(calls.size() % 3));  // noisy on purpose
                           },
                           warmups};
  };
  const std::vector<timed_candidate> c = {candidate("kernel", 2.0, 1), candidate("memcpy", 5.0, 3)};
  const auto samples = measure_candidates(c, 4, [&] { return now; });
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].size(), 4u);
  EXPECT_EQ(samples[1].size(), 4u);
  const std::vector<std::string> expected = {"kernel", "memcpy", "memcpy", "memcpy",  // warm-ups, each its own count
                                             "kernel", "memcpy", "kernel", "memcpy", "kernel", "memcpy", "kernel", "memcpy"};
  EXPECT_EQ(calls, expected);
  EXPECT_DOUBLE_EQ(*std::min_element(samples[0].begin(), samples[0].end()), 2.0);  // the best of them: 2.0 × 1.0
}

TEST(MeasureCandidates, RethrowsTheFirstFailureAsItWas) {
  struct gpu_fault : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  int runs = 0;
  const std::vector<timed_candidate> c = {
      {[&] { return 1.0; }, 0},
      {[&]() -> double {
         if (++runs == 2) throw gpu_fault("illegal address");
         return 1.0;
       },
       1}};
  EXPECT_THROW(measure_candidates(c, 3, [] { return 0.0; }), gpu_fault);
}

}  // namespace
}  // namespace gpubench
