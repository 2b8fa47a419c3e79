// Runs across worker processes and side by side (gpubench/coordinator.hpp), with in-process fake
// workers (fake_worker.hpp), judged by compare as a user's would be.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <set>
#include <vector>

#include "fake_worker.hpp"
#include "gpubench/compare.hpp"
#include "gpubench/console.hpp"
#include "gpubench/coordinator.hpp"
#include "gpubench/export.hpp"
#include "gpubench/format.hpp"
#include "gpubench/pair_history.hpp"
#include "test_support.hpp"

namespace {

using gpubench::verdict;

struct fleet {
  std::vector<std::unique_ptr<fake::worker>> owned;
  std::vector<gpubench::worker_link*> links;
  fake::worker& add(fake::world& w, const fake::build& b, double factor, const std::string& name, double add_s = 0) {
    owned.push_back(std::make_unique<fake::worker>(w, b, factor, name, add_s));
    links.push_back(owned.back().get());
    return *owned.back();
  }
};

/// `workers` workers of build `b` on each side, at no offset of their own, kept for the tests that
/// look at what each one was asked.
struct same_build_fleets {
  fleet base, next;
  same_build_fleets(fake::world& w, const fake::build& b, int workers) {
    for (int i = 0; i < workers; ++i) {
      base.add(w, b, 1.0, "base " + std::to_string(i));
      next.add(w, b, 1.0, "new " + std::to_string(i));
    }
  }
};

gpubench::worker_timing timing() {
  gpubench::worker_timing t;
  t.seed = 7;
  return t;
}

/// `run --processes` over workers of build `b`, one per offset in `factors`, added to `f` so that a
/// test can look at what each was asked.
gpubench::profile across(fake::world& w, const fake::build& b, const std::vector<double>& factors, fleet& f,
                         gpubench::processes_plan plan = {}) {
  for (std::size_t i = 0; i < factors.size(); ++i) f.add(w, b, factors[i], "worker " + std::to_string(i));
  gpubench::profile p;
  p.records = gpubench::measure_across_processes(f.links, {.chapter = 1}, timing(), plan, {}, p);
  p.complete = true;
  return p;
}

gpubench::profile across(fake::world& w, const fake::build& b, const std::vector<double>& factors,
                         gpubench::processes_plan plan = {}) {
  fleet f;
  return across(w, b, factors, f, plan);
}

gpubench::ab_outcome ab(fake::world& w, const fake::build& base, const fake::build& next, int workers,
                        std::vector<double> base_factors = {}, std::vector<double> next_factors = {},
                        gpubench::ab_plan plan = {}) {
  fleet fb, fn;
  for (int i = 0; i < workers; ++i) {
    fb.add(w, base, base_factors.empty() ? 1.0 : base_factors[static_cast<std::size_t>(i)],
           "base " + std::to_string(i));
    fn.add(w, next, next_factors.empty() ? 1.0 : next_factors[static_cast<std::size_t>(i)], "new " + std::to_string(i));
  }
  return gpubench::measure_ab(fb.links, fn.links, {.chapter = 1}, timing(), plan, "session-1", {});
}

/// What `gpubench compare` prints for `c`, as a user's console shows it.
std::string console_text(const gpubench::comparison& c) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* f = ::open_memstream(&text, &size);
  gpubench::print_comparison(f, c, {});
  std::fclose(f);
  std::string printed(text, size);
  std::free(text);
  return printed;
}

gpubench::compare_options two_percent() {
  gpubench::compare_options o;
  o.threshold = 0.02;
  o.critical = 0.15;
  return o;
}

TEST(run_processes, rounds_spread_over_the_workers_and_are_tagged_with_them) {
  fake::world w;
  const gpubench::profile p = across(w, fake::build{}, {1.0, 1.0, 1.0});
  ASSERT_EQ(p.records.size(), 2u);
  for (const auto& r : p.records) {
    ASSERT_EQ(r.status, gpubench::record_status::passed) << r.reason;
    ASSERT_GE(r.timing.rounds.size(), 3u);
    EXPECT_EQ(r.timing.rounds.size() % 3, 0u) << "whole sweeps over the workers";
    for (std::size_t i = 0; i < r.timing.rounds.size(); ++i) EXPECT_EQ(r.timing.rounds[i].process, int(i % 3));
    ASSERT_TRUE(r.stats);
    EXPECT_NEAR(r.stats->median, r.variant == "baseline" ? 200e-6 : 100e-6, 10e-6);
  }
  ASSERT_TRUE(p.records[1].speedup);
  EXPECT_NEAR(*p.records[1].speedup, 2.0, 0.05);
}

TEST(run_processes, adds_sweeps_while_the_rounds_spread_and_no_more) {
  fake::world w;
  fake::build steady, spread;
  spread.round_sd = 0.05;
  const gpubench::profile a = across(w, steady, {1.0, 1.0}, {.rounds = 4, .max_rounds = 12, .target = 0.005});
  const gpubench::profile b = across(w, spread, {1.0, 1.0}, {.rounds = 4, .max_rounds = 12, .target = 0.005});
  EXPECT_EQ(a.records[0].timing.rounds.size(), 4u);
  EXPECT_EQ(b.records[0].timing.rounds.size(), 12u);
}

TEST(run_processes, only_the_rounds_past_the_planned_ones_are_asked_as_added) {
  // An added round has no minimum time in the worker (worker_protocol.hpp); a planned one has.
  fake::world w;
  fake::build spread;
  spread.round_sd = 0.05;
  fleet f;
  for (int i = 0; i < 2; ++i) f.add(w, spread, 1.0, "worker " + std::to_string(i));
  gpubench::profile p;
  p.records = gpubench::measure_across_processes(f.links, {.chapter = 1}, timing(),
                                                 {.rounds = 4, .max_rounds = 12, .target = 0.005}, {}, p);
  ASSERT_EQ(p.records[0].timing.rounds.size(), 12u);
  for (const auto& worker : f.owned) {
    EXPECT_EQ(worker->rounds_served, 6) << worker->name();
    EXPECT_EQ(worker->added_rounds_served, 4) << worker->name();  // its rounds 3-6 of the 12
  }
}

TEST(run_processes, a_process_offset_widens_the_interval_instead_of_raising_an_alarm) {
  // Each process of a run lands 6% apart (placement, say): one worker per run would call the
  // runs 6% apart; with three workers per run the offset shows in every run's own data.
  fake::world w;
  const fake::build b;
  const gpubench::profile base = across(w, b, {1.00, 1.06, 0.97});
  const gpubench::profile next = across(w, b, {1.06, 1.06, 1.00});
  const auto c = gpubench::compare_profiles(base, next, two_percent());
  for (const auto& r : c.records) {
    EXPECT_NE(r.result, verdict::slower) << r.id;
    EXPECT_NE(r.result, verdict::faster) << r.id;
    EXPECT_EQ(r.evidence, "processes");
    EXPECT_EQ(r.limit, gpubench::limiting_term::between_processes);
    EXPECT_GT(r.degrees_of_freedom, 2.0);  // moderated: more than each side's two
  }
  const gpubench::profile one = across(w, b, {1.00});
  const gpubench::profile other = across(w, b, {1.06});
  // Without processes the fitted device floor (0.8%) stands in, and a 6% offset reads as a slowdown.
  const auto fooled = gpubench::compare_profiles(one, other, two_percent());
  EXPECT_EQ(fooled.records[0].result, verdict::slower);
  EXPECT_EQ(fooled.records[0].evidence, "prior");
}

TEST(run_processes, host_timed_processes_of_one_run_sharing_a_slow_host_are_no_false_alarm) {
  // The four interleaved processes of one `run --processes 4` of identical code all ran
  // bias_in_place's launch-bound size 30% slow on an H200, while those of other runs agreed
  // (docs/measurement.md, "History"): processes of one run share the host's speed, so their spread
  // cannot stand for another run's. Host-timed records keep the host term; 2x is still caught.
  fake::world w;
  fake::build b;
  b.host_timed = true;
  const gpubench::profile base = across(w, b, {1.00, 1.01, 0.99, 1.00});
  const gpubench::profile next = across(w, b, {1.30, 1.31, 1.29, 1.30});
  const auto c = gpubench::compare_profiles(base, next, two_percent());
  for (const auto& r : c.records) {
    EXPECT_NE(r.result, verdict::slower) << r.id;
    EXPECT_EQ(r.limit, gpubench::limiting_term::floor) << r.id;
  }
  const gpubench::profile twice = across(w, b, {2.0, 2.02, 1.98, 2.0});
  for (const auto& r : gpubench::compare_profiles(base, twice, two_percent()).records)
    EXPECT_EQ(r.result, verdict::slower) << r.id;
}

TEST(ab, a_host_drift_shared_by_both_builds_fools_an_unpaired_comparison_but_not_the_paired_one) {
  fake::world w;
  // The host's speed (or the clocks) swing by +-30% over hundreds of rounds, under half a percent
  // from one round to the next: a base-then-new comparison reads the swing as a change of code.
  w.drift = [](double t) { return 1.0 + 0.3 * std::sin(t / 200.0 * std::numbers::pi); };
  const fake::build b;
  const gpubench::profile first = across(w, b, {1.0});
  w.tick += 50;  // a CI job's base and new run minutes apart
  const gpubench::profile second = across(w, b, {1.0});
  const auto unpaired = gpubench::compare_profiles(first, second, two_percent());
  for (const auto& r : unpaired.records)
    EXPECT_EQ(r.result, verdict::slower) << r.id << ": identical code, measured later, when the drift was up";

  for (bool host : {false, true}) {
    fake::build hb = b;
    hb.host_timed = host;
    hb.sizes = {1024, 2048, 4096, 8192};  // enough records for compare to fit its prior
    const gpubench::ab_outcome out = ab(w, hb, hb, 2);
    const auto paired = gpubench::compare_profiles(out.base, out.next, two_percent());
    for (const auto& r : paired.records) {
      EXPECT_EQ(r.result, verdict::same) << r.id << " " << r.note << " [" << r.ratio.low << ", " << r.ratio.high << "]";
      EXPECT_EQ(r.evidence, "cycles");
      EXPECT_LE(r.resolvable, 0.05) << r.id;
    }
  }
}

TEST(ab, the_cycle_spread_tells_a_noisy_machine_from_a_quiet_one_and_the_console_and_json_say_it) {
  // Rounds whose level wanders by 0.5% and by 4% about their process's (a quiet host and a noisy
  // one): a cycle's difference of two such rounds strays by sqrt(2) times as much.
  for (const double round_sd : {0.005, 0.04}) {
    fake::world w;
    fake::build b;
    b.sizes = {1024, 2048, 4096, 8192};
    b.round_sd = round_sd;
    gpubench::ab_plan plan;
    plan.max_cycles = plan.cycles = 64;
    const gpubench::ab_outcome out = ab(w, b, b, 8, {}, {}, plan);
    const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
    const std::optional<double> spread = c.median_cycle_spread();
    ASSERT_TRUE(spread);
    EXPECT_NEAR(*spread, std::sqrt(2.0) * round_sd, 0.25 * std::sqrt(2.0) * round_sd);
    for (const auto& r : c.records) EXPECT_TRUE(r.cycle_spread) << r.id;
    const std::string printed = console_text(c);
    EXPECT_NE(printed.find("cycle spread: " + gpubench::format_percent(*spread) + ", the median record's"),
              std::string::npos)
        << printed;
    const auto j = gpubench::comparison_json(c);
    EXPECT_NEAR(j.at("cycle_spread_pct").get<double>(), 100 * *spread, 1e-9);
    EXPECT_TRUE(j.at("records").at(0).at("cycle_spread_pct").is_number());
    EXPECT_TRUE(j.at("records").at(0).at("wild_cycles").is_number_unsigned());
  }
  // Two plain runs have no cycles: neither the line nor the figure.
  fake::world w;
  const fake::build b;
  const auto plain = gpubench::compare_profiles(across(w, b, {1.0}), across(w, b, {1.0}), two_percent());
  EXPECT_FALSE(plain.median_cycle_spread());
  EXPECT_TRUE(gpubench::comparison_json(plain).at("cycle_spread_pct").is_null());
  EXPECT_TRUE(gpubench::comparison_json(plain).at("records").at(0).at("wild_cycles").is_null());
}

TEST(ab, cycles_alternate_the_builds_in_abba_order_over_the_worker_pairs) {
  fake::world w;
  const gpubench::ab_outcome out = ab(w, fake::build{}, fake::build{}, 2);
  const auto& rb = out.base.records[0].timing.rounds;
  const auto& rn = out.next.records[0].timing.rounds;
  ASSERT_EQ(rb.size(), rn.size());
  ASSERT_GE(rb.size(), 8u);  // 6 planned cycles, rounded up to whole sweeps of 2 workers x 2 orders
  for (std::size_t c = 0; c < rb.size(); ++c) {
    EXPECT_EQ(rb[c].cycle, int(c));
    EXPECT_EQ(rn[c].cycle, int(c));
    EXPECT_EQ(rb[c].process, int(c % 2));
    EXPECT_EQ(rn[c].process, int(c % 2));
  }
  EXPECT_EQ(out.base.options.at("ab_session"), "session-1");
  EXPECT_EQ(out.next.options.at("ab_session"), "session-1");
  // The cost counts every round asked of either build, once per size (its variants share a round).
  std::map<std::string, std::size_t> rounds_per_size;
  for (const auto& side : {&out.base, &out.next})
    for (const auto& r : side->records)
      rounds_per_size[(side == &out.base ? "b/" : "n/") + r.pair + r.size.to_string()] = r.timing.rounds.size();
  std::size_t asked = 0;
  for (const auto& [size, n] : rounds_per_size) asked += n;
  EXPECT_EQ(out.cost.rounds, static_cast<int>(asked));
  EXPECT_EQ(out.cost.rounds_timed_inside, 0);  // the fake workers do not report round_s
  EXPECT_GE(out.cost.rounds_s, out.cost.in_worker_s);
  EXPECT_GE(out.cost.starting_s, 0.0);
}

TEST(ab, each_pair_alternates_its_order_and_the_pairs_of_a_sweep_alternate_theirs) {
  fake::world w;
  fake::build b;
  same_build_fleets f(w, b, 4);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {.cycles = 16}, "s", {});
  // The log holds each cycle's two rounds in the order taken (prepares left out).
  std::vector<std::string> rounds;
  for (const std::string& line : w.log)
    if (line.starts_with("round ")) rounds.push_back(line);
  ASSERT_GE(rounds.size(), 32u);  // at least 16 cycles over 4 pairs: four sweeps
  for (std::size_t c = 0; c < rounds.size() / 2; ++c) {
    const std::size_t pair = c % 4, sweep = c / 4;
    const bool base_first = (pair + sweep) % 2 == 0;
    EXPECT_TRUE(
        rounds[2 * c].starts_with(std::string("round ") + (base_first ? "base " : "new ") + std::to_string(pair) + " "))
        << c << ": " << rounds[2 * c];
  }
  // Both rounds of a cycle start at one variant, and so do a pair's two orders in each block of two
  // sweeps.
  for (std::size_t pair = 0; pair < 4; ++pair) {
    const std::vector<int>& tb = f.base.owned[pair]->turns;
    EXPECT_EQ(tb, f.next.owned[pair]->turns);
    for (std::size_t k = 0; k < tb.size(); ++k) EXPECT_EQ(tb[k], int(k / 2)) << pair << ", round " << k;
  }
  EXPECT_EQ(out.cost.rounds_turned, out.cost.rounds);
}

TEST(ab, what_a_rounds_first_samples_pay_falls_on_one_variant_in_both_builds_and_raises_no_alarm) {
  // As on an H200: in the first round after a cycle's states were prepared, the first three samples
  // of the round-robin read a tenth slow. Were the round-robin to start at the round's index, which
  // steps with the cycles' order, a variant would pay it in one build's rounds of one order and the
  // other variant in the other build's: an A/A session then read one variant faster.
  for (const bool knows_turn : {true, false}) {
    SCOPED_TRACE(knows_turn ? "both builds take the turn" : "neither does");
    fake::world w;
    w.slow_start = 1.10;
    w.slow_start_samples = 3;
    fake::build b;
    b.sizes = {1024, 2048, 4096};
    b.samples_per_round = 3;
    b.knows_turn = knows_turn;
    const gpubench::ab_outcome out = ab(w, b, b, 6, {}, {}, {.cycles = 12, .max_cycles = 12});
    const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
    ASSERT_EQ(c.records.size(), 6u);
    for (const auto& r : c.records) {
      EXPECT_NE(r.result, verdict::slower) << r.id;
      EXPECT_NE(r.result, verdict::faster) << r.id;
      // The pairs' orders alternate, so rounds that ignore the turn still balance across pairs (the
      // variant that pays then spreads between them, and its interval widens); taken, the turn
      // makes it cancel within each pair.
      EXPECT_NEAR(r.ratio.estimate, 1.0, knows_turn ? 0.01 : 0.02) << r.id;
      if (knows_turn) EXPECT_TRUE(r.ratio.low <= 1 && 1 <= r.ratio.high) << r.id << " " << r.ratio.low;
    }
  }
}

TEST(ab, finds_a_five_percent_slowdown_under_drift_and_leaves_its_sibling_same) {
  fake::world w;
  w.drift = [](double t) { return 1.0 + 0.3 * std::sin(t / 200.0 * std::numbers::pi); };
  fake::build base;
  base.sizes = {1024, 2048, 4096};  // enough records for compare to fit its prior
  fake::build slower = base;
  slower.seconds[1] *= 1.05;
  const gpubench::ab_outcome out = ab(w, base, slower, 2);
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  ASSERT_EQ(c.records.size(), 6u);
  for (std::size_t i = 0; i < 6; i += 2) {
    EXPECT_EQ(c.records[i].result, verdict::same) << c.records[i].id << " " << c.records[i].note;
    EXPECT_EQ(c.records[i + 1].result, verdict::slower) << c.records[i + 1].id << " " << c.records[i + 1].note;
    EXPECT_NEAR(c.records[i + 1].ratio.estimate, 1.05, 0.01);
  }
}

/// `gpubench ab` over workers whose contexts sit at the levels given, one worker per level a side.
gpubench::ab_outcome ab_in_contexts(fake::world& w, const fake::build& base, const fake::build& next,
                                    const std::vector<double>& base_levels, const std::vector<double>& next_levels) {
  fleet fb, fn;
  for (std::size_t i = 0; i < base_levels.size(); ++i) {
    fb.add(w, base, 1.0, "base " + std::to_string(i)).in_context(base_levels[i]);
    fn.add(w, next, 1.0, "new " + std::to_string(i)).in_context(next_levels[i]);
  }
  return gpubench::measure_ab(fb.links, fn.links, {.chapter = 1}, timing(), {}, "session-1", {});
}

/// A graph replay's level is its context's: on H200s two levels about 10% apart, drawn per worker
/// (docs/results/h200.md). Sixteen workers a side, drawn unevenly between the builds.
const std::vector<double> kBaseContexts{1.1, 1.0, 1.0, 1.1, 1.0, 1.1, 1.1, 1.0, 1.0, 1.0, 1.1, 1.0, 1.1, 1.0, 1.0, 1.1};
const std::vector<double> kNewContexts{1.0, 1.1, 1.1, 1.1, 1.0, 1.1, 1.0, 1.1, 1.1, 1.1, 1.0, 1.1, 1.1, 1.0, 1.1, 1.1};

/// A host-timed pair whose `optimized` variant replays a graph: its time follows the context level.
fake::build graph_pair(bool calibrated) {
  fake::build b;
  b.host_timed = true;
  b.knows_calibrate = calibrated;
  b.context_variants = {"optimized"};
  return b;
}

TEST(ab, the_context_level_a_calibration_sees_is_taken_out_of_host_timed_records) {
  // The new build's stream launches (baseline) are 10% slower; its graph replays are unchanged.
  // Each worker's graph replays run at its context's level, which an unadjusted comparison can only
  // count as between-process spread; the calibration sees the level and the line through it
  // removes it, so the unchanged replays are judged same.
  for (const bool calibrated : {false, true}) {
    fake::world w;
    const fake::build base = graph_pair(calibrated);
    fake::build slower = base;
    slower.seconds[0] *= 1.10;
    const gpubench::ab_outcome out = ab_in_contexts(w, base, slower, kBaseContexts, kNewContexts);
    EXPECT_EQ(gpubench::context_levels_of(out.base, 1).size(), calibrated ? 16u : 0u);
    EXPECT_EQ(gpubench::context_levels_of(out.next, 1).size(), calibrated ? 16u : 0u);
    const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
    ASSERT_EQ(c.records.size(), 2u);
    const auto& stream = c.records[0];
    const auto& graph = c.records[1];
    EXPECT_EQ(stream.result, verdict::slower) << calibrated << " " << stream.note;
    EXPECT_NEAR(stream.ratio.estimate, 1.10, 0.01);
    if (calibrated) {
      EXPECT_EQ(graph.result, verdict::same) << graph.note;
      ASSERT_TRUE(graph.context_slope);
      EXPECT_NEAR(*graph.context_slope, 1.0, 0.1);
      EXPECT_EQ(graph.pairs_df, 14.0);  // the slope takes a degree of freedom of the 15
      EXPECT_NEAR(graph.ratio.estimate, 1.0, 0.005);
    } else {
      EXPECT_FALSE(graph.context_slope);
      EXPECT_EQ(graph.pairs_df, 15.0);
      EXPECT_EQ(graph.result, verdict::inconclusive) << graph.ratio.low << " " << graph.ratio.high;
      EXPECT_EQ(graph.limit, gpubench::limiting_term::between_processes);
    }
  }
}

TEST(ab, with_calibrated_workers_identical_builds_raise_no_alarm) {
  // Twenty A/A sessions, each drawing its workers' contexts at random between the two levels.
  fake::world w;
  std::bernoulli_distribution slow_context(0.4);
  int alarms = 0, adjusted = 0;
  for (int session = 0; session < 20; ++session) {
    std::vector<double> lb, ln;
    for (int i = 0; i < 16; ++i) {
      lb.push_back(slow_context(w.rng) ? 1.1 : 1.0);
      ln.push_back(slow_context(w.rng) ? 1.1 : 1.0);
    }
    const fake::build b = graph_pair(true);
    const gpubench::ab_outcome out = ab_in_contexts(w, b, b, lb, ln);
    for (const auto& r : gpubench::compare_profiles(out.base, out.next, two_percent()).records) {
      alarms += r.result == verdict::slower || r.result == verdict::faster;
      adjusted += r.context_slope.has_value();
    }
  }
  EXPECT_EQ(alarms, 0);
  EXPECT_EQ(adjusted, 40);  // every record of every session, with levels that vary between pairs
}

TEST(ab, a_build_that_moves_every_contexts_level_is_not_adjusted_for_it) {
  // Most of the new build's contexts land slow, the base's fast: no chance draw does that, so the
  // new build itself moves its graph replays, and the records show it as measured.
  fake::world w;
  const std::vector<double> fast{1.0, 1.0, 1.0, 1.1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
  const std::vector<double> slow{1.1, 1.1, 1.1, 1.0, 1.1, 1.1, 1.1, 1.1, 1.1, 1.1, 1.0, 1.1, 1.1, 1.1, 1.1, 1.1};
  const gpubench::ab_outcome out = ab_in_contexts(w, graph_pair(true), graph_pair(true), fast, slow);
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_FALSE(c.records[1].context_slope);
  EXPECT_EQ(c.records[1].pairs_df, 15.0);
  EXPECT_GT(c.records[1].ratio.estimate, 1.05);
  EXPECT_EQ(c.records[1].result, verdict::slower) << c.records[1].note;
}

TEST(ab, a_build_that_cannot_calibrate_leaves_both_builds_unadjusted) {
  fake::world w;
  const gpubench::ab_outcome out = ab_in_contexts(w, graph_pair(true), graph_pair(false), kBaseContexts, kNewContexts);
  EXPECT_TRUE(gpubench::context_levels_of(out.base, 1).empty());
  EXPECT_TRUE(gpubench::context_levels_of(out.next, 1).empty());
  for (const auto& r : gpubench::compare_profiles(out.base, out.next, two_percent()).records)
    EXPECT_FALSE(r.context_slope) << r.id;
}

TEST(ab, device_timed_records_are_not_adjusted_for_the_context_level) {
  // The calibration is a host-timed graph replay: what it predicts is host-timed launches.
  fake::world w;
  fake::build b = graph_pair(true);
  b.host_timed = false;
  const gpubench::ab_outcome out = ab_in_contexts(w, b, b, kBaseContexts, kNewContexts);
  EXPECT_EQ(gpubench::context_levels_of(out.base, 1).size(), 16u);
  for (const auto& r : gpubench::compare_profiles(out.base, out.next, two_percent()).records) {
    EXPECT_FALSE(r.context_slope) << r.id;
    EXPECT_NE(r.result, verdict::slower) << r.id;
  }
}

TEST(ab, cycles_are_added_where_they_narrow_an_interval_and_not_where_the_workers_differ) {
  fake::world w;
  fake::build spread;  // rounds 3% apart: more cycles narrow the interval
  spread.round_sd = 0.03;
  spread.round_s = 0.05;  // 64 cycles of two rounds: 6.4 s, within the 20 s budget but not a quarter of it
  const gpubench::ab_outcome more = ab(w, spread, spread, 2);
  for (const auto& r : more.base.records) EXPECT_EQ(r.timing.rounds.size(), 64u) << r.id();
  // Rounds 2% apart, enough for more cycles on their own, but two workers 5-10% off: past twice
  // the planned 16, the pairs of workers disagree by far more than the cycles leave, and no
  // number of cycles changes that, so the size stops at 32.
  fake::build offset;
  offset.round_sd = 0.02;
  const gpubench::ab_outcome planned = ab(w, offset, offset, 2, {1.0, 1.10}, {1.0, 0.95});
  for (const auto& r : planned.base.records) EXPECT_EQ(r.timing.rounds.size(), 32u) << r.id();
}

TEST(ab, a_cheap_size_goes_on_past_max_cycles_up_to_twice_as_many_within_a_quarter_of_its_budget) {
  fake::world w;
  fake::build cheap;  // rounds 5% apart, each 10 ms: 128 cycles take 2.56 s, a quarter of 20 s holds them
  cheap.round_sd = 0.05;
  cheap.round_s = 0.01;
  const gpubench::ab_outcome twice = ab(w, cheap, cheap, 2);
  for (const auto& r : twice.base.records) EXPECT_EQ(r.timing.rounds.size(), 128u) << r.id();
  // 20 ms rounds: the sweep that would bring the size past 5 s (124 cycles, 4.96 s, and one more
  // sweep of two pairs in both orders) is not taken.
  fake::build dearer = cheap;
  dearer.round_s = 0.02;
  const gpubench::ab_outcome quarter = ab(w, dearer, dearer, 2);
  for (const auto& r : quarter.base.records) EXPECT_EQ(r.timing.rounds.size(), 124u) << r.id();
  // Quiet rounds reach the target long before: the cheap allowance buys nothing they need.
  fake::build quiet = cheap;
  quiet.round_sd = 0.002;
  const gpubench::ab_outcome planned = ab(w, quiet, quiet, 2);
  for (const auto& r : planned.base.records) EXPECT_LT(r.timing.rounds.size(), 64u) << r.id();
}

TEST(ab, a_sizes_prepared_states_count_toward_its_budget) {
  // Rounds that report 1 ms each: 128 cycles take 0.26 s, within a quarter of a 2 s budget. When
  // building each cycle's two states takes 8 ms more (4 ms a worker, one after the other here),
  // 64 cycles have spent about 0.6 s and the size stops at --max-cycles: the seconds a size costs
  // are its states' as well as its rounds'.
  fake::world w;
  fake::build cheap;
  cheap.round_sd = 0.05;
  cheap.round_s = 0.001;
  gpubench::ab_plan plan;
  plan.size_budget_s = 2;
  const gpubench::ab_outcome rounds_only = ab(w, cheap, cheap, 2, {}, {}, plan);
  for (const auto& r : rounds_only.base.records) EXPECT_EQ(r.timing.rounds.size(), 128u) << r.id();
  fake::build dear_states = cheap;
  dear_states.prepare_s = 0.004;
  const gpubench::ab_outcome with_states = ab(w, dear_states, dear_states, 2, {}, {}, plan);
  for (const auto& r : with_states.base.records) EXPECT_EQ(r.timing.rounds.size(), 64u) << r.id();
  EXPECT_GT(with_states.cost.preparing_s, 0.4);
  EXPECT_EQ(with_states.cost.prepares, 62);  // every cycle but the first of each pair of workers
}

TEST(ab, from_twice_the_cycles_asked_only_a_size_within_its_budget_gets_more) {
  fake::world w;
  fake::build dear;
  dear.round_sd = 0.05;
  dear.round_s = 0.5;  // 32 cycles of two rounds: 32 s, past the 20 s budget
  const gpubench::ab_outcome capped = ab(w, dear, dear, 2);
  for (const auto& r : capped.base.records) EXPECT_EQ(r.timing.rounds.size(), 32u) << r.id();
  // Sixteen pairs: the planned cycles are one sweep of 32, already twice --cycles, so a size whose
  // 32 cycles take 16 s stops there rather than spend 32 s on twice as many.
  fake::build half = dear;
  half.round_s = 0.25;
  const gpubench::ab_outcome sixteen = ab(w, half, half, 16);
  for (const auto& r : sixteen.base.records) EXPECT_EQ(r.timing.rounds.size(), 32u) << r.id();
  // --quick's six pairs, 8 cycles and 4 s: the planned one sweep of 12 cycles takes 3 s, and the
  // next sweep, up to twice --cycles in whole sweeps (24), is taken whatever it costs.
  gpubench::ab_plan quick;
  quick.cycles = 8;
  quick.max_cycles = 32;
  quick.size_budget_s = 4;
  fake::build quarter = dear;
  quarter.round_s = 0.125;
  const gpubench::ab_outcome six = ab(w, quarter, quarter, 6, {}, {}, quick);
  for (const auto& r : six.base.records) EXPECT_EQ(r.timing.rounds.size(), 24u) << r.id();
  gpubench::ab_plan generous;
  generous.size_budget_s = 1000;  // and a quarter of it, 250 s, holds 128 cycles (128 s)
  const gpubench::ab_outcome full = ab(w, dear, dear, 2, {}, {}, generous);
  for (const auto& r : full.base.records) EXPECT_EQ(r.timing.rounds.size(), 128u) << r.id();
  EXPECT_EQ(full.base.options.at("ab_size_budget_s"), 1000.0);
}

TEST(ab, a_size_whose_planned_cycles_exceed_its_budget_is_measured_on_fewer_pairs_of_workers) {
  fake::world w;
  fake::build dear;
  dear.round_s = 1.0;  // 16 planned cycles of two 1 s rounds: 32 s, past the 20 s budget
  same_build_fleets f(w, dear, 8);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  // 20 s hold five cycles of both orders: five pairs, each once base first and once new first.
  ASSERT_EQ(out.on_fewer_pairs.size(), 1u);
  EXPECT_EQ(out.on_fewer_pairs[0].size, "ch01/fake[n=1024]");
  EXPECT_EQ(out.on_fewer_pairs[0].pairs, 5);
  EXPECT_EQ(out.on_fewer_pairs[0].of, 8);
  for (const fleet* side : {&f.base, &f.next})
    for (int i = 0; i < 8; ++i) {
      const fake::worker& worker = *side->owned[static_cast<std::size_t>(i)];
      EXPECT_EQ(worker.rounds_served, i < 5 ? 2 : 0) << i;
      // Its rounds keep the share of the budget first planned (16 cycles), not one of the 10 left.
      if (i < 5) EXPECT_EQ(worker.last_planned, 16) << i;
    }
  const auto& rb = out.base.records[0].timing.rounds;
  const auto& rn = out.next.records[0].timing.rounds;
  ASSERT_EQ(rb.size(), 10u);
  ASSERT_EQ(rn.size(), 10u);
  for (int c = 0; c < 10; ++c) EXPECT_EQ(rb[static_cast<std::size_t>(c)].process, c % 5);
  // Still judged, on the pairs it had.
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  for (const auto& r : c.records) EXPECT_EQ(r.result, verdict::same) << r.id << " " << r.note;

  // However dear, at least three pairs; and a size within its budget keeps all of them.
  fake::world w2;
  fake::build dearer = dear;
  dearer.round_s = 10.0;
  const gpubench::ab_outcome three = ab(w2, dearer, dearer, 8);
  ASSERT_EQ(three.on_fewer_pairs.size(), 1u);
  EXPECT_EQ(three.on_fewer_pairs[0].pairs, 3);
  EXPECT_EQ(three.base.records[0].timing.rounds.size(), 6u);
  gpubench::ab_plan generous;
  generous.size_budget_s = 1000;
  const gpubench::ab_outcome all = ab(w2, dear, dear, 8, {}, {}, generous);
  EXPECT_TRUE(all.on_fewer_pairs.empty());
  EXPECT_EQ(all.base.records[0].timing.rounds.size(), 16u);
}

TEST(ab, more_cycles_asked_than_fit_the_budget_become_the_whole_sweeps_that_fit) {
  fake::world w;
  fake::build dear;
  dear.round_s = 0.5;  // a cycle takes 1 s: 64 asked would take 64 s, 20 fit
  gpubench::ab_plan many;
  many.cycles = 64;
  const gpubench::ab_outcome out = ab(w, dear, dear, 2, {}, {}, many);
  EXPECT_TRUE(out.on_fewer_pairs.empty());  // both pairs, five sweeps of four cycles
  for (const auto& r : out.base.records) EXPECT_EQ(r.timing.rounds.size(), 20u) << r.id();
}

/// A build of twelve variants from 4 us to 4 ms, and workers that each add a fraction of a
/// microsecond of their own to every sample (an empty event span measured a little off): between
/// pairs of workers the 4 us variant spreads a thousand times more, in log terms, than the 4 ms one.
struct offset_workers {
  fake::build b;
  fleet base, next;
  explicit offset_workers(fake::world& w) {
    b.variants.clear();
    b.seconds.clear();
    for (int v = 0; v < 12; ++v) {
      b.variants.push_back("v" + std::to_string(v));
      b.seconds.push_back(4e-6 * std::pow(10.0, v / 4.0));
    }
    b.round_sd = b.sample_sd = 0.0005;
    for (int i = 0; i < 8; ++i) {  // each session draws its workers afresh
      base.add(w, b, 1.0, "base " + std::to_string(i), w.normal(0.15e-6));
      next.add(w, b, 1.0, "new " + std::to_string(i), w.normal(0.15e-6));
    }
  }
};

TEST(ab, earlier_sessions_give_each_record_the_prior_of_its_own_spread_between_pairs) {
  // Around one value for the chapter the records' spreads scatter far more than 7 degrees of
  // freedom explain, so that prior weighs almost nothing (about 7.6 in all). Three earlier sessions
  // measured each record's own: 21 degrees of freedom, 20 of them weighed.
  fake::world w;
  temp_dir dir("gpubench_ab_history");
  std::vector<std::filesystem::path> earlier;
  for (int s = 0; s < 3; ++s) {
    offset_workers f(w);
    const auto out = gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {},
                                          "earlier-" + std::to_string(s), {});
    const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
    EXPECT_EQ(c.ab_session, "earlier-" + std::to_string(s));
    earlier.push_back(dir.path / ("s" + std::to_string(s) + ".json"));
    std::ofstream(earlier.back()) << gpubench::comparison_json(c).dump();
  }
  const gpubench::pair_history h = gpubench::read_pair_history(earlier);
  ASSERT_EQ(h.sessions, 3u);
  ASSERT_EQ(h.records.size(), 12u);

  offset_workers f(w);
  const auto out = gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "now", {});
  const auto alone = gpubench::compare_profiles(out.base, out.next, two_percent());
  gpubench::compare_options o = two_percent();
  o.pair_history = h.records;
  const auto with = gpubench::compare_profiles(out.base, out.next, o);
  ASSERT_EQ(with.records.size(), 12u);
  for (std::size_t i = 0; i < with.records.size(); ++i) {
    const auto& r = with.records[i];
    EXPECT_EQ(r.pair_history_sessions, 3u) << r.id;
    EXPECT_EQ(alone.records[i].pair_history_sessions, 0u) << r.id;
    EXPECT_DOUBLE_EQ(r.degrees_of_freedom, 27) << r.id;
    EXPECT_LT(alone.records[i].degrees_of_freedom, 9) << r.id;
    // Where the pairs' spread is most of the interval (the short half), the interval narrows.
    if (i < 6) EXPECT_LT(r.resolvable, alone.records[i].resolvable) << r.id;
    EXPECT_NE(r.result, verdict::slower) << r.id;
    EXPECT_NE(r.result, verdict::faster) << r.id;
  }
  // A record judged on another figure there keeps the chapter's prior.
  o.pair_history.begin()->second.figure = gpubench::time_source::host_wall;
  const auto other = gpubench::compare_profiles(out.base, out.next, o);
  EXPECT_EQ(other.records[0].pair_history_sessions, 0u);
  EXPECT_EQ(other.records[1].pair_history_sessions, 3u);
}

TEST(compare_cli, ab_history_judges_one_sessions_profiles_as_ab_history_would) {
  fake::world w;
  fake::build b;
  b.sizes = {1024, 2048, 4096};
  temp_dir dir("gpubench_compare_ab_history");
  const auto file = [&](const std::string& name) { return (dir.path / name).string(); };
  std::string history;
  for (int s = 0; s < 3; ++s) {
    same_build_fleets f(w, b, 4);
    const auto out =
        gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "e" + std::to_string(s), {});
    const std::string h = file("h" + std::to_string(s) + ".json");
    std::ofstream(h) << gpubench::comparison_json(gpubench::compare_profiles(out.base, out.next, two_percent())).dump();
    history += " '" + h + "'";
    if (s == 2) {  // the last session's profiles, judged against the two before it and then itself
      gpubench::write_profile(file("base.json"), out.base);
      gpubench::write_profile(file("new.json"), out.next);
    }
  }
  const std::string gb = std::string("'") + GPUBENCH_EXE + "' compare --db none --threshold 2 '" + file("base.json") +
                         "' '" + file("new.json") + "'";
  auto r = run_shell(gb + " --ab-history '" + file("h0.json") + "' '" + file("h1.json") + "' --json '" +
                     file("out.json") + "' 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  const auto judged = nlohmann::json::parse(std::ifstream(file("out.json")));
  for (const auto& rec : judged.at("records")) {
    EXPECT_EQ(rec.at("pair_history_sessions"), 2) << rec.at("id");
    EXPECT_EQ(rec.at("between_pairs").at("df"), 3) << rec.at("id");
  }
  r = run_shell(gb + " --ab-history" + history + " 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("this session's own comparison (e2)"), std::string::npos) << r.output;
  // Sessions of another GPU model say nothing about this one's workers.
  std::ofstream(file("other.json")) << R"({"ab_session": "o", "devices": {"base": "Other GPU", "new": "Other GPU"},)"
                                    << R"( "records": []})";
  r = run_shell(gb + " --ab-history '" + file("other.json") + "' 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("the sessions ran on Other GPU"), std::string::npos) << r.output;
  // Two runs that are not one session's profiles have no pairs of workers to judge that way.
  const gpubench::profile one = across(w, b, {1.0}), other = across(w, b, {1.0});
  gpubench::write_profile(file("run1.json"), one);
  gpubench::write_profile(file("run2.json"), other);
  r = run_shell(std::string("'") + GPUBENCH_EXE + "' compare --db none '" + file("run1.json") + "' '" +
                file("run2.json") + "' --ab-history '" + file("h0.json") + "' 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("not one `gpubench ab` session's profiles"), std::string::npos) << r.output;
}

TEST(ab, a_worker_far_off_its_history_still_widens_the_interval) {
  // History says the pairs agree within a few hundredths of a percent; in this session one base
  // worker runs 6% slow on everything. Its record's own spread still weighs 7 of 27, enough that
  // identical code is not called slower.
  fake::world w;
  fake::build b;
  b.sizes = {1024, 2048, 4096};
  temp_dir dir("gpubench_ab_history_far");
  std::vector<std::filesystem::path> earlier;
  for (int s = 0; s < 3; ++s) {
    same_build_fleets f(w, b, 8);
    const auto out =
        gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "e" + std::to_string(s), {});
    earlier.push_back(dir.path / ("s" + std::to_string(s) + ".json"));
    std::ofstream(earlier.back())
        << gpubench::comparison_json(gpubench::compare_profiles(out.base, out.next, two_percent())).dump();
  }
  gpubench::compare_options o = two_percent();
  o.pair_history = gpubench::read_pair_history(earlier).records;
  const gpubench::ab_outcome out = ab(w, b, b, 8, {1.0, 1.0, 1.0, 1.06, 1.0, 1.0, 1.0, 1.0});
  const auto c = gpubench::compare_profiles(out.base, out.next, o);
  ASSERT_EQ(c.records.size(), 6u);
  for (const auto& r : c.records) {
    EXPECT_EQ(r.pair_history_sessions, 3u) << r.id;
    EXPECT_NE(r.result, verdict::slower) << r.id << " [" << r.ratio.low << ", " << r.ratio.high << "]";
    EXPECT_GT(r.ratio.high - r.ratio.low, 0.01) << r.id;
  }
}

TEST(ab, a_worker_offset_is_measured_not_mistaken_for_the_code) {
  // The second base worker runs 5% slow in every round (its placement, its host share): with two
  // workers a side, the groups of cycles disagree and the interval says so.
  fake::world w;
  const gpubench::ab_outcome out = ab(w, fake::build{}, fake::build{}, 2, {1.0, 1.05}, {1.0, 1.0});
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  for (const auto& r : c.records) {
    EXPECT_NE(r.result, verdict::slower) << r.id;
    EXPECT_NE(r.result, verdict::faster) << r.id;
  }
}

TEST(ab, speedups_are_judged_on_the_cycles_so_a_slow_worker_cancels_in_its_own_speedup) {
  // Host-timed, four workers a side, each process up to 20% off in everything it times: the
  // records' intervals must allow for that, but a worker's baseline and optimized move together,
  // so its speedup does not. Without the cycles, the speedup carries two fitted host floors per
  // build (14% each) and spans tens of percent.
  fake::world w;
  fake::build b;
  b.host_timed = true;
  b.sizes = {1024, 2048, 4096};
  const gpubench::ab_outcome out = ab(w, b, b, 4, {1.0, 1.2, 0.9, 1.1}, {1.1, 0.85, 1.0, 1.2});
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  ASSERT_EQ(c.speedups.size(), 3u);
  for (const auto& s : c.speedups) {
    EXPECT_EQ(s.result, verdict::same) << s.id << " " << s.note;
    EXPECT_LT(s.ratio.high / s.ratio.low, 1.03) << s.id << " [" << s.ratio.low << ", " << s.ratio.high << "]";
  }
  // A speedup that really changed is found: the new build's optimized variant 5% slower.
  fake::build slower = b;
  slower.seconds[1] *= 1.05;
  const gpubench::ab_outcome changed = ab(w, b, slower, 4, {1.0, 1.2, 0.9, 1.1}, {1.1, 0.85, 1.0, 1.2});
  for (const auto& s : gpubench::compare_profiles(changed.base, changed.next, two_percent()).speedups) {
    EXPECT_EQ(s.result, verdict::slower) << s.id << " " << s.note;
    EXPECT_NEAR(s.ratio.estimate, 1 / 1.05, 0.01) << s.id;
  }
}

TEST(ab, a_cycle_held_on_one_core_cancels_what_the_cores_do_to_host_timing) {
  // Sixteen cores, each running host-side work at its own speed, which wanders over time by up to
  // +-30% (other tenants, frequency): a round left to the scheduler lands on any core, so rounds
  // spread by tens of percent; a cycle whose two rounds share a core sees one speed twice.
  fake::world w;
  w.cores = 16;
  w.core_speed = [](int core, double tick) { return 1.0 + 0.3 * std::sin(1.7 * core + tick / 40.0); };
  fake::build b;
  b.host_timed = true;
  b.sizes = {1024, 2048, 4096};
  gpubench::ab_plan held;
  held.cpus = {0, 1, 2, 3};
  const gpubench::ab_outcome pinned = ab(w, b, b, 4, {}, {}, held);
  EXPECT_EQ(pinned.cost.rounds_on_cpu, pinned.cost.rounds);
  for (const auto& r : gpubench::compare_profiles(pinned.base, pinned.next, two_percent()).records) {
    EXPECT_EQ(r.result, verdict::same) << r.id << " " << r.note;
    EXPECT_LE(r.resolvable, 0.05) << r.id;
  }
  const gpubench::ab_outcome loose = ab(w, b, b, 4);
  EXPECT_EQ(loose.cost.rounds_on_cpu, 0);
  for (const auto& r : gpubench::compare_profiles(loose.base, loose.next, two_percent()).records) {
    EXPECT_NE(r.result, verdict::slower) << r.id;
    EXPECT_NE(r.result, verdict::faster) << r.id;
    EXPECT_GT(r.resolvable, 0.10) << r.id << ": the cores' spread is measured, not hidden";
  }
  // A real 5% slowdown of one variant is found on held cores.
  fake::build slower = b;
  slower.seconds[1] *= 1.05;
  const gpubench::ab_outcome changed = ab(w, b, slower, 4, {}, {}, held);
  const auto c = gpubench::compare_profiles(changed.base, changed.next, two_percent());
  for (std::size_t i = 0; i < c.records.size(); ++i)
    EXPECT_EQ(c.records[i].result, i % 2 == 0 ? verdict::same : verdict::slower) << c.records[i].id;
}

TEST(ab, the_console_names_abs_own_options_for_what_limits_a_record) {
  fake::world w;
  fake::build b;
  b.sizes = {1024, 2048, 4096};
  // One pair of workers: nothing measures the between-process level, the fitted floor limits.
  const gpubench::ab_outcome out = ab(w, b, b, 1);
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  const std::string printed = console_text(c);
  EXPECT_NE(printed.find("nothing measured it (--workers 2 or more)"), std::string::npos) << printed;
  for (const char* not_ab : {"--rounds", "--max-rounds", "run --processes"})
    EXPECT_EQ(printed.find(not_ab), std::string::npos) << not_ab << " is not an option of ab:\n" << printed;
  // Eight pairs whose workers disagree by a few percent: the pairs limit, and more of them or
  // earlier sessions' spread (--history) narrow the interval.
  const gpubench::ab_outcome spread = ab(w, b, b, 8, {1.0, 1.03, 0.98, 1.01, 0.97, 1.02, 1.0, 0.99});
  const auto cs = gpubench::compare_profiles(spread.base, spread.next, two_percent());
  const std::string between = console_text(cs);
  // (wrapped to the console's width)
  EXPECT_NE(between.find("between processes, measured (more worker pairs: --workers;"), std::string::npos) << between;
  EXPECT_NE(between.find("earlier sessions: --history)"), std::string::npos) << between;
  // At ab's most workers a build, --workers can add no pair: only earlier sessions can.
  std::vector<double> sixteen;
  for (int i = 0; i < gpubench::kAbMaxWorkersPerBuild; ++i) sixteen.push_back(1.0 + 0.03 * std::sin(1.3 * i));
  const gpubench::ab_outcome most = ab(w, b, b, gpubench::kAbMaxWorkersPerBuild, sixteen);
  const auto cm = gpubench::compare_profiles(most.base, most.next, two_percent());
  EXPECT_EQ(cm.ab_workers_per_build, gpubench::kAbMaxWorkersPerBuild);
  const std::string at_most = console_text(cm);
  EXPECT_NE(at_most.find("between processes, measured (16 worker pairs, ab's most;"), std::string::npos) << at_most;
  EXPECT_EQ(at_most.find("--workers"), std::string::npos) << at_most;
}

TEST(ab, each_pair_of_workers_is_asked_for_its_own_cpu_and_both_builds_for_the_same) {
  class recording final : public gpubench::worker_link {
   public:
    explicit recording(fake::worker& inner, std::vector<int>& cpus) : inner_(inner), cpus_(cpus) {}
    void send(const nlohmann::ordered_json& r) override {
      if (r.value("op", "") == "round") cpus_.push_back(r.value("cpu", -1));
      inner_.send(r);
    }
    nlohmann::ordered_json receive() override { return inner_.receive(); }
    [[nodiscard]] const std::string& name() const override { return inner_.name(); }

   private:
    fake::worker& inner_;
    std::vector<int>& cpus_;
  };
  fake::world w;
  fleet fb, fn;
  std::vector<std::vector<int>> asked(6);
  std::vector<std::unique_ptr<recording>> rec;
  std::vector<gpubench::worker_link*> base, next;
  for (int i = 0; i < 3; ++i) {
    rec.push_back(std::make_unique<recording>(fb.add(w, fake::build{}, 1.0, "base"), asked[i]));
    base.push_back(rec.back().get());
    rec.push_back(std::make_unique<recording>(fn.add(w, fake::build{}, 1.0, "new"), asked[3 + i]));
    next.push_back(rec.back().get());
  }
  gpubench::ab_plan plan;
  plan.cpus = {5, 7};  // fewer CPUs than pairs: round robin
  const auto out = gpubench::measure_ab(base, next, {.chapter = 1}, timing(), plan, "s", {});
  const int expected[] = {5, 7, 5};
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(asked[i].empty());
    for (int cpu : asked[i]) EXPECT_EQ(cpu, expected[i]) << "base worker " << i;
    for (int cpu : asked[3 + i]) EXPECT_EQ(cpu, expected[i]) << "new worker " << i;
  }
  EXPECT_EQ(out.cost.rounds_on_cpu, out.cost.rounds);
}

TEST(ab, a_variant_that_fails_in_one_build_is_not_timed_and_compare_says_why) {
  fake::world w;
  fake::build base;
  base.sizes = {1024, 2048, 4096};
  fake::build broken = base;
  broken.fail_verification = {"optimized"};
  const gpubench::ab_outcome out = ab(w, base, broken, 2);
  ASSERT_EQ(out.base.records.size(), 6u);
  EXPECT_EQ(out.base.records[1].status, gpubench::record_status::skipped);
  EXPECT_NE(out.base.records[1].reason.find("did not pass"), std::string::npos) << out.base.records[1].reason;
  EXPECT_EQ(out.next.records[1].status, gpubench::record_status::failed);
  const auto c = gpubench::compare_profiles(out.base, out.next, two_percent());
  EXPECT_EQ(c.records[1].result, verdict::inconclusive);
  EXPECT_EQ(c.records[0].result, verdict::same);
}

TEST(ab, a_size_that_runs_out_of_memory_in_the_workers_names_the_option_that_leaves_each_more) {
  fake::world w;
  fake::build base;
  base.out_of_memory = {"optimized"};
  const gpubench::ab_outcome out = ab(w, base, base, 3);
  ASSERT_EQ(out.base.records.size(), 2u);
  EXPECT_EQ(out.base.records[1].status, gpubench::record_status::skipped);
  EXPECT_NE(out.base.records[1].reason.find("6 worker processes share the GPU's memory"), std::string::npos)
      << out.base.records[1].reason;
  EXPECT_NE(out.next.records[1].reason.find("fewer --workers"), std::string::npos) << out.next.records[1].reason;
  EXPECT_EQ(out.base.records[0].status, gpubench::record_status::passed);
  // The console names the size once, though both builds and both of its records skipped it.
  EXPECT_EQ(gpubench::sizes_out_of_memory(out), std::vector<std::string>{"ch01/fake[n=1024]"});
}

TEST(ab, a_size_only_some_workers_can_hold_at_once_is_opened_again_one_at_a_time_and_measured) {
  fake::world w;
  w.state_capacity = 4;  // six workers, room for four states
  fake::build b;
  b.sizes = {1024, 2048};
  same_build_fleets f(w, b, 3);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  ASSERT_EQ(out.base.records.size(), 4u);
  for (const auto* p : {&out.base, &out.next})
    for (const gpubench::record& r : p->records) {
      EXPECT_EQ(r.status, gpubench::record_status::passed) << r.id() << ": " << r.reason;
      EXPECT_FALSE(r.timing.rounds.empty()) << r.id();
    }
  // Each size: one open all at once, which ran out, and one more, one worker at a time; each
  // build's first worker verifies both times.
  for (const fleet* side : {&f.base, &f.next})
    for (std::size_t i = 0; i < side->owned.size(); ++i) {
      EXPECT_EQ(side->owned[i]->opens_served, 4);
      EXPECT_EQ(side->owned[i]->verifications, i == 0 ? 4 : 0);
    }
  EXPECT_EQ(w.states_held, 0);
  EXPECT_TRUE(gpubench::sizes_out_of_memory(out).empty());
}

TEST(ab, a_size_every_worker_can_hold_at_once_is_opened_once) {
  fake::world w;
  w.state_capacity = 6;
  fake::build b;
  same_build_fleets f(w, b, 3);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  EXPECT_EQ(out.base.records[0].status, gpubench::record_status::passed);
  for (const fleet* side : {&f.base, &f.next})
    for (const auto& worker : side->owned) EXPECT_EQ(worker->opens_served, 1);
}

TEST(ab, each_size_is_verified_in_one_worker_of_each_build_and_only_set_up_in_the_others) {
  fake::world w;
  fake::build b;
  b.sizes = {1024, 2048};
  same_build_fleets f(w, b, 3);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  for (const fleet* side : {&f.base, &f.next})
    for (std::size_t i = 0; i < side->owned.size(); ++i) {
      EXPECT_EQ(side->owned[i]->opens_served, 2);
      EXPECT_EQ(side->owned[i]->verifications, i == 0 ? 2 : 0) << side->owned[i]->name();
      EXPECT_GT(side->owned[i]->rounds_served, 0) << side->owned[i]->name();
    }
  // The records carry the verifying worker's check.
  ASSERT_EQ(out.next.records.size(), 4u);
  for (const auto* p : {&out.base, &out.next})
    for (const gpubench::record& r : p->records) {
      EXPECT_EQ(r.status, gpubench::record_status::passed) << r.id() << ": " << r.reason;
      EXPECT_NE(r.check.result, gpubench::disposition::not_verified) << r.id();
    }
}

TEST(ab, the_other_workers_warm_what_their_verifier_found_cheap_before_their_first_round) {
  fake::world w;
  fake::build b, n;
  b.sizes = n.sizes = {1024, 2048};
  b.cheap_to_warm = {"optimized", "not-a-variant"};  // a name the records lack is not passed on
  n.cheap_to_warm = {"baseline", "optimized"};
  fleet fb, fn;
  for (int i = 0; i < 3; ++i) {
    fb.add(w, b, 1.0, "base " + std::to_string(i));
    fn.add(w, n, 1.0, "new " + std::to_string(i));
  }
  const gpubench::ab_outcome out = gpubench::measure_ab(fb.links, fn.links, {.chapter = 1}, timing(), {}, "s", {});
  for (const auto& [side, list] : {std::pair{&fb, std::vector<std::string>{"optimized"}},
                                   std::pair{&fn, std::vector<std::string>{"baseline", "optimized"}}})
    for (std::size_t i = 0; i < side->owned.size(); ++i) {
      const fake::worker& worker = *side->owned[i];
      SCOPED_TRACE(worker.name());
      // The verifier ran every variant already; each other worker warms once a size, before its
      // first round of it.
      using warms = std::vector<std::vector<std::string>>;
      EXPECT_EQ(worker.warms, i == 0 ? warms{} : warms({list, list}));
      EXPECT_EQ(worker.warms_after_a_round, 0);
    }
  EXPECT_GE(out.cost.warming_s, 0.0);
  for (const auto* p : {&out.base, &out.next})
    for (const gpubench::record& r : p->records)
      EXPECT_EQ(r.status, gpubench::record_status::passed) << r.id() << ": " << r.reason;
}

TEST(ab, a_worker_that_cannot_warm_takes_its_rounds_as_before) {
  fake::world w;
  fake::build b;
  b.cheap_to_warm = {"optimized"};
  b.knows_warm = false;  // every warm request fails, as an unknown request does
  same_build_fleets f(w, b, 3);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  for (const auto* p : {&out.base, &out.next})
    for (const gpubench::record& r : p->records) {
      EXPECT_EQ(r.status, gpubench::record_status::passed) << r.id() << ": " << r.reason;
      EXPECT_FALSE(r.timing.rounds.empty()) << r.id();
    }
  // Every worker but the verifiers still took rounds (each answered its failed warm first).
  for (const fleet* side : {&f.base, &f.next})
    for (const auto& worker : side->owned) EXPECT_GT(worker->rounds_served, 0) << worker->name();
}

TEST(ab, a_size_opened_again_without_holding_it_is_not_warmed) {
  fake::world w;
  w.state_capacity = 4;  // six workers, room for four states: each holds the size only in its rounds
  fake::build b;
  b.cheap_to_warm = {"optimized"};
  same_build_fleets f(w, b, 3);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  EXPECT_EQ(out.base.records[1].status, gpubench::record_status::passed) << out.base.records[1].reason;
  for (const fleet* side : {&f.base, &f.next})
    for (const auto& worker : side->owned) {
      EXPECT_TRUE(worker->warms.empty()) << worker->name();
      // Nor are two states built at once where only four fit.
      EXPECT_EQ(worker->prepares_asked, 0) << worker->name();
    }
}

TEST(ab, a_cycles_two_workers_build_their_fresh_states_at_once_and_then_take_their_rounds_back_to_back) {
  fake::world w;
  fake::build b;
  same_build_fleets f(w, b, 2);
  const gpubench::ab_outcome out =
      gpubench::measure_ab(f.base.links, f.next.links, {.chapter = 1}, timing(), {}, "s", {});
  // Cycle c on pair c mod 2: its workers' first cycle runs on the states they set up when the size
  // opened; every later one asks both for the round that follows, before either round.
  std::map<std::string, int> next_round;
  std::size_t at = 0, cycles = 0;
  while (at < w.log.size()) {
    SCOPED_TRACE(at);
    const bool prepared = w.log[at].starts_with("prepare");
    if (prepared) {
      ASSERT_LT(at + 3, w.log.size());
      EXPECT_TRUE(w.log[at + 1].starts_with("prepare"));
      // The two rounds that follow are the ones just prepared, in either order.
      const std::set<std::string> asked{w.log[at].substr(8), w.log[at + 1].substr(8)};
      const std::set<std::string> taken{w.log[at + 2].substr(6), w.log[at + 3].substr(6)};
      EXPECT_EQ(asked, taken);
      EXPECT_TRUE(w.log[at + 2].starts_with("round") && w.log[at + 3].starts_with("round"));
      at += 2;
    }
    for (int turn = 0; turn < 2; ++turn, ++at) {
      const std::string name = w.log[at].substr(6, w.log[at].rfind(' ') - 6);
      EXPECT_EQ(w.log[at], "round " + name + " " + std::to_string(next_round[name]));
      EXPECT_EQ(prepared, next_round[name] > 0) << w.log[at];
      ++next_round[name];
    }
    ++cycles;
  }
  EXPECT_EQ(static_cast<int>(cycles) - 2, out.cost.prepares);  // all but each pair's first
  EXPECT_GE(out.cost.preparing_s, 0.0);
  for (const auto* p : {&out.base, &out.next})
    for (const gpubench::record& r : p->records) EXPECT_EQ(r.status, gpubench::record_status::passed) << r.reason;
}

TEST(ab, once_a_build_does_not_know_prepare_neither_build_is_asked_again) {
  fake::world w;
  fake::build b, n;
  n.knows_prepare = false;
  fleet fb, fn;
  for (int i = 0; i < 2; ++i) {
    fb.add(w, b, 1.0, "base " + std::to_string(i));
    fn.add(w, n, 1.0, "new " + std::to_string(i));
  }
  const gpubench::ab_outcome out = gpubench::measure_ab(fb.links, fn.links, {.chapter = 1}, timing(), {}, "s", {});
  int asked_new = 0;
  for (const auto& worker : fn.owned) asked_new += worker->prepares_asked;
  EXPECT_EQ(asked_new, 1);
  // The base build was asked in that same cycle, and no more: both build their states alike.
  int asked_base = 0;
  for (const auto& worker : fb.owned) asked_base += worker->prepares_asked;
  EXPECT_EQ(asked_base, 1);
  EXPECT_GT(out.base.records[0].timing.rounds.size(), 4u);
  EXPECT_EQ(out.cost.prepares, 1);
  for (const auto* p : {&out.base, &out.next})
    for (const gpubench::record& r : p->records) EXPECT_EQ(r.status, gpubench::record_status::passed) << r.reason;
}

TEST(ab, several_chapters_are_measured_in_turn_by_workers_started_once) {
  fake::world w;
  fake::build b;
  same_build_fleets f(w, b, 2);
  const std::vector<gpubench::worker_selection> chapters{{.chapter = 2}, {.chapter = 3}};
  const gpubench::ab_outcome out = gpubench::measure_ab(f.base.links, f.next.links, chapters, timing(), {}, "s", {});
  // Each worker greeted once, then asked to plan each chapter in turn.
  for (const fleet* side : {&f.base, &f.next})
    for (const auto& worker : side->owned) {
      EXPECT_EQ(worker->hellos_served, 1) << worker->name();
      EXPECT_EQ(worker->chapters_planned, (std::vector<int>{2, 3})) << worker->name();
    }
  for (const auto* p : {&out.base, &out.next}) {
    ASSERT_EQ(p->records.size(), 4u);
    EXPECT_EQ(p->records[0].chapter, 2);
    EXPECT_EQ(p->records[3].chapter, 3);
    for (const gpubench::record& r : p->records) EXPECT_FALSE(r.timing.rounds.empty()) << r.id();
  }
  // One session: compare pairs the cycles of both chapters' records.
  const gpubench::comparison c = gpubench::compare_profiles(out.base, out.next, two_percent());
  ASSERT_EQ(c.records.size(), 4u);
  for (const auto& r : c.records) EXPECT_EQ(r.evidence, "cycles") << r.id;
}

TEST(ab, each_chapter_of_a_session_is_its_own_family_so_sharing_a_command_does_not_blunt_it) {
  fake::world w;
  fake::build b;
  b.sizes = {1024, 2048};  // four records a chapter: enough for a chapter's own prior
  same_build_fleets f(w, b, 3);
  const std::vector<gpubench::worker_selection> chapters{{.chapter = 2}, {.chapter = 3}};
  const gpubench::ab_outcome out = gpubench::measure_ab(f.base.links, f.next.links, chapters, timing(), {}, "s", {});
  // Chapter 3 alone, as `ab --chapter 3` would have it: the same measurements.
  gpubench::profile b3 = out.base, n3 = out.next;
  std::erase_if(b3.records, [](const gpubench::record& r) { return r.chapter != 3; });
  std::erase_if(n3.records, [](const gpubench::record& r) { return r.chapter != 3; });
  const gpubench::comparison both = gpubench::compare_profiles(out.base, out.next, two_percent());
  const gpubench::comparison alone = gpubench::compare_profiles(b3, n3, two_percent());
  EXPECT_TRUE(both.family_per_chapter);
  EXPECT_EQ(both.family_phrase(), "Bonferroni within each chapter, 4 records");
  ASSERT_EQ(alone.records.size(), 4u);
  for (const auto& r : alone.records) {
    const auto it = std::find_if(both.records.begin(), both.records.end(), [&](const auto& x) { return x.id == r.id; });
    ASSERT_NE(it, both.records.end()) << r.id;
    EXPECT_DOUBLE_EQ(it->ratio.low, r.ratio.low) << r.id;
    EXPECT_DOUBLE_EQ(it->ratio.high, r.ratio.high) << r.id;
  }
  // Two runs that are not one session's are one family: every record's interval is wider.
  gpubench::profile pb = out.base, pn = out.next;
  pn.options["ab_session"] = "another";
  const gpubench::comparison runs = gpubench::compare_profiles(pb, pn, two_percent());
  EXPECT_FALSE(runs.family_per_chapter);
  EXPECT_EQ(runs.family_phrase(), "Bonferroni over 8 records");
  EXPECT_GT(runs.interval_confidence, both.interval_confidence);
}

TEST(run_processes, several_chapters_are_measured_in_turn_by_workers_started_once) {
  fake::world w;
  fake::build b;
  fleet f;
  for (int i = 0; i < 2; ++i) f.add(w, b, 1.0, "worker " + std::to_string(i));
  const std::vector<gpubench::worker_selection> chapters{{.chapter = 4}, {.chapter = 6}};
  gpubench::profile p;
  p.records = gpubench::measure_across_processes(f.links, chapters, timing(), {}, {}, p);
  for (const auto& worker : f.owned) {
    EXPECT_EQ(worker->hellos_served, 1);
    EXPECT_EQ(worker->chapters_planned, (std::vector<int>{4, 6}));
  }
  ASSERT_EQ(p.records.size(), 4u);
  EXPECT_EQ(p.records[0].chapter, 4);
  EXPECT_EQ(p.records[2].chapter, 6);
}

TEST(run_processes, each_size_is_verified_in_the_first_worker_and_only_set_up_in_the_others) {
  fake::world w;
  fake::build b;
  b.fail_verification = {"optimized"};
  fleet f;
  const gpubench::profile p = across(w, b, {1.0, 1.0, 1.0}, f);
  EXPECT_EQ(f.owned[0]->verifications, 1);
  EXPECT_EQ(f.owned[1]->verifications + f.owned[2]->verifications, 0);
  ASSERT_EQ(p.records.size(), 2u);
  // The first worker's check stands: the wrong variant is not timed, though the others, which only
  // set it up, would have let it pass.
  EXPECT_EQ(p.records[1].status, gpubench::record_status::failed);
  EXPECT_TRUE(p.records[1].timing.samples_s.empty());
  EXPECT_EQ(p.records[0].status, gpubench::record_status::passed);
}

TEST(run_processes, every_worker_but_the_verifier_warms_before_its_first_round) {
  fake::world w;
  fake::build b;
  b.cheap_to_warm = {"baseline"};
  fleet f;
  const gpubench::profile p = across(w, b, {1.0, 1.0, 1.0}, f);
  EXPECT_TRUE(f.owned[0]->warms.empty());
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(f.owned[static_cast<std::size_t>(i)]->warms, (std::vector<std::vector<std::string>>{{"baseline"}}));
    EXPECT_EQ(f.owned[static_cast<std::size_t>(i)]->warms_after_a_round, 0);
  }
  for (const gpubench::record& r : p.records) EXPECT_EQ(r.status, gpubench::record_status::passed) << r.reason;
}

TEST(run_processes, a_size_only_some_workers_can_hold_at_once_is_measured_in_all_of_them) {
  fake::world w;
  w.state_capacity = 1;
  fake::build b;
  const gpubench::profile p = across(w, b, {1.0, 1.0, 1.0, 1.0});
  ASSERT_EQ(p.records.size(), 2u);
  for (const gpubench::record& r : p.records) {
    EXPECT_EQ(r.status, gpubench::record_status::passed) << r.reason;
    std::set<int> processes;
    for (const auto& round : r.timing.rounds) processes.insert(round.process);
    EXPECT_EQ(processes.size(), 4u);
  }
}

TEST(run_processes, a_size_that_runs_out_of_memory_in_the_workers_names_fewer_processes) {
  fake::world w;
  fake::build b;
  b.out_of_memory = {"optimized"};
  const gpubench::profile p = across(w, b, {1.0, 1.0, 1.0, 1.0});
  ASSERT_EQ(p.records.size(), 2u);
  EXPECT_NE(p.records[1].reason.find("4 worker processes share the GPU's memory: fewer --processes"), std::string::npos)
      << p.records[1].reason;
}

TEST(ab, a_worker_of_another_protocol_is_refused_with_what_to_do) {
  class old_worker final : public gpubench::worker_link {
   public:
    void send(const nlohmann::ordered_json&) override {}
    nlohmann::ordered_json receive() override {
      return {{"ok", true}, {"protocol", 0}, {"profile", gpubench::to_json(gpubench::profile{})}};
    }
    [[nodiscard]] const std::string& name() const override { return name_; }
    std::string name_ = "base worker 0 (old/gpubench)";
  } old;
  gpubench::worker_link* links[] = {&old};
  const std::string m = usage_message([&] { gpubench::hello_workers(links); });
  EXPECT_NE(m.find("speaks worker protocol 0"), std::string::npos) << m;
  EXPECT_NE(m.find("build both sides"), std::string::npos) << m;
}

TEST(ab, profiles_of_different_sessions_are_not_paired) {
  fake::world w;
  gpubench::ab_outcome one = ab(w, fake::build{}, fake::build{}, 1);
  one.next.options["ab_session"] = "another";
  const auto c = gpubench::compare_profiles(one.base, one.next, two_percent());
  for (const auto& r : c.records) EXPECT_NE(r.evidence, "cycles");
}

}  // namespace
