// `run --confirm`: which records are re-measured, and how a confirmation process's rounds join the
// record (the process itself needs a GPU; tests/gpu covers nothing of it yet, the CLI checks run here).
#include <cmath>

#include <gtest/gtest.h>

#include "gpubench/confirm.hpp"
#include "gpubench/profile.hpp"
#include "test_support.hpp"

using namespace gpubench;

namespace {

record_comparison judged(const std::string& id, verdict v, double low, double est, double high) {
  record_comparison r;
  r.id = id;
  r.result = v;
  r.ratio = {est, low, high};
  r.base_median = 1e-3;
  r.new_median = 1e-3 * est;
  return r;
}

record timed(const std::vector<double>& samples, std::vector<round_info> rounds) {
  record r;
  r.chapter = 3;
  r.pair = "softmax_fusion";
  r.variant = "fused";
  r.size = size_point({{"rows", 4096}});
  r.status = record_status::passed;
  r.timing.samples_s = samples;
  r.timing.sm_clock_mhz.assign(samples.size(), 1980);
  r.timing.throttled.assign(samples.size(), 0);
  r.timing.rounds = std::move(rounds);
  r.timing.wall_s = 0.5;
  if (!samples.empty()) r.stats = summarize(r.timing.samples_s);
  return r;
}

}  // namespace

TEST(ConfirmTargets, SlowerAndIntervalsReachingPastTheThreshold) {
  comparison c;
  c.options.threshold = 0.05;
  c.records = {judged("a", verdict::slower, 1.061, 1.072, 1.084), judged("b", verdict::same, 0.98, 1.0, 1.02),
               judged("c", verdict::inconclusive, 1.01, 1.04, 1.09), judged("d", verdict::inconclusive, 0.9, 0.96, 1.03),
               judged("e", verdict::faster, 0.7, 0.75, 0.8)};
  c.records.push_back(judged("f", verdict::inconclusive, 0.5, 1.0, 2.0));
  c.records.back().new_median = 0;  // not timed on the new side: more samples of it cannot help
  const auto t = confirm_targets(c);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].id, "a");
  EXPECT_EQ(t[0].why, "slower, +7.2% [+6.1%, +8.4%]");
  EXPECT_EQ(t[1].id, "c");
  EXPECT_EQ(t[1].why, "inconclusive, interval reaches +9.0%");
}

TEST(ConfirmTargets, NotRecordsWhoseVerdictNoNumberOfRoundsCouldChange) {
  comparison c;
  c.options.threshold = 0.05;
  // Host-timed within the host floor (fixed half-width 0.59 in log units: 13% per side at z 3.2):
  // it could be neither slower nor same, however many rounds joined it.
  c.records = {judged("host", verdict::inconclusive, 0.57, 1.02, 1.83)};
  c.records.back().fixed_log_half_width = 0.59;
  // The same floor, but a change large enough to come out slower once rounds join it.
  c.records.push_back(judged("big", verdict::inconclusive, 1.08, 1.95, 3.5));
  c.records.back().fixed_log_half_width = 0.59;
  // Device-timed near no change: more rounds could make it same.
  c.records.push_back(judged("device", verdict::inconclusive, 0.95, 1.0, 1.06));
  c.records.back().fixed_log_half_width = 0.035;
  const auto t = confirm_targets(c);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].id, "big");
  EXPECT_EQ(t[1].id, "device");
}

TEST(ConfirmTargets, ChapterOneIdenticalCodeNeedsNoConfirmation) {
  // Host-timed records of identical code, 2% apart: compare leaves them inconclusive (host floor)
  // and no confirmation process could change that, so none is started. Device-timed, the same 2%
  // is a record more rounds could settle (its floors leave +0.9% to +4.1% at most), so it is confirmed.
  const auto side = [](double center, timing_method m) {
    std::vector<double> s;
    for (int i = 0; i < 30; ++i) s.push_back(center * (1 + 0.002 * ((i % 5) - 2)));
    record r = timed(s, {{10, stop_reason::converged, 0.1, 0}, {10, stop_reason::converged, 0.1, 0},
                         {10, stop_reason::converged, 0.1, 0}});
    r.timing.method = m;
    r.timing.source = m == timing_method::host_wall ? time_source::host_wall : time_source::cuda_events_net;
    profile p;
    p.records.push_back(r);
    return p;
  };
  const comparison host = compare_profiles(side(1e-3, timing_method::host_wall), side(1.02e-3, timing_method::host_wall), {});
  ASSERT_EQ(host.records.size(), 1u);
  EXPECT_EQ(host.records[0].result, verdict::inconclusive);
  EXPECT_GT(host.records[0].ratio.high, 1.05);
  EXPECT_TRUE(confirm_targets(host).empty());
  auto noisy = side(1.02e-3, timing_method::cuda_events);
  // rounds 4% apart: inconclusive now, but its interval is not held open by a floor
  for (std::size_t i = 0; i < 10; ++i) noisy.records[0].timing.samples_s[i] *= 0.96;
  for (std::size_t i = 20; i < 30; ++i) noisy.records[0].timing.samples_s[i] *= 1.04;
  noisy.records[0].stats = summarize(noisy.records[0].timing.samples_s);
  const comparison device = compare_profiles(side(1e-3, timing_method::cuda_events), noisy, {});
  ASSERT_EQ(device.records[0].result, verdict::inconclusive);
  EXPECT_EQ(confirm_targets(device).size(), 1u);
}

TEST(MergeConfirmation, AppendsSamplesAndRoundsTaggedWithTheirProcess) {
  record run = timed({1.0e-3, 1.1e-3, 1.2e-3, 1.3e-3}, {{2, stop_reason::converged, 0.2, 0}, {2, stop_reason::converged, 0.3, 0}});
  const record again = timed({0.9e-3, 0.95e-3, 1.0e-3}, {{3, stop_reason::timeout, 0.4, 0}});
  merge_confirmation(run, again, 1);
  ASSERT_EQ(run.timing.samples_s.size(), 7u);
  EXPECT_EQ(run.timing.sm_clock_mhz.size(), 7u);
  EXPECT_EQ(run.timing.throttled.size(), 7u);
  ASSERT_EQ(run.timing.rounds.size(), 3u);
  EXPECT_EQ(run.timing.rounds[2].process, 1);
  EXPECT_EQ(run.timing.rounds[2].samples, 3u);
  EXPECT_EQ(run.timing.rounds[0].process, 0);
  EXPECT_DOUBLE_EQ(run.timing.wall_s, 1.0);
  ASSERT_TRUE(run.stats);
  EXPECT_EQ(run.stats->count, 7u);
  EXPECT_DOUBLE_EQ(run.stats->median, 1.0e-3);

  // The merged record goes through the strict reader: counts, summary and rounds agree, and the
  // process survives the round trip.
  profile p;
  p.prov.device.name = "Test GPU";
  p.complete = true;
  p.records.push_back(run);
  const profile back = profile_from_json(to_json(p), "merged.json");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.records[0].timing.rounds[2].process, 1);
  EXPECT_EQ(back.records[0].timing.rounds[1].process, 0);
}

TEST(MergeConfirmation, GoodputFollowsTheMergedMedian) {
  // training_step's goodput is its kernel time over the record's timed median. A merge that kept
  // the unconfirmed median there would make gpubench refuse its own profile ("goodput.wall_s: does
  // not equal the record's median").
  record run = timed({1.0e-3, 1.0e-3, 1.0e-3, 1.0e-3}, {{2, stop_reason::converged, 0.2, 0}, {2, stop_reason::converged, 0.3, 0}});
  run.goodput = goodput_info{.fraction = 0.5, .kernel_s = 0.5e-3, .wall_s = 1.0e-3, .runs = 5, .reason = {},
                             .wall_traced_s = 1.2e-3};
  merge_confirmation(run, timed({2e-3, 2e-3, 2e-3, 2e-3, 2e-3}, {{5, stop_reason::converged, 0.4, 0}}), 1);
  ASSERT_TRUE(run.goodput);
  EXPECT_DOUBLE_EQ(run.goodput->wall_s, run.stats->median);
  EXPECT_DOUBLE_EQ(run.goodput->fraction, 0.5e-3 / 2e-3);
  EXPECT_DOUBLE_EQ(run.goodput->wall_traced_s, 1.2e-3);  // what the traced runs took does not change
  profile p;
  p.prov.device.name = "Test GPU";
  p.complete = true;
  p.records.push_back(run);
  EXPECT_NO_THROW((void)profile_from_json(to_json(p), "merged.json"));
}

TEST(MergeConfirmation, RefusesAnotherMeasurement) {
  record run = timed({1e-3, 1e-3, 1e-3}, {});
  record other = timed({1e-3, 1e-3, 1e-3}, {});
  other.variant = "baseline";
  EXPECT_NE(usage_message([&] { merge_confirmation(run, other, 1); }).find("instead"), std::string::npos);
  record host = timed({1e-3, 1e-3, 1e-3}, {});
  host.timing.source = time_source::host_wall;
  EXPECT_NE(usage_message([&] { merge_confirmation(run, host, 1); }).find("differently"), std::string::npos);
  record skipped = timed({}, {});
  skipped.status = record_status::skipped;
  skipped.stats.reset();
  EXPECT_NE(usage_message([&] { merge_confirmation(run, skipped, 1); }).find("did not time it"), std::string::npos);
  // A record without a round list (schema 1) is one round, then the confirmation's.
  merge_confirmation(run, timed({2e-3, 2e-3, 2e-3}, {}), 1);
  ASSERT_EQ(run.timing.rounds.size(), 2u);
  EXPECT_EQ(run.timing.rounds[0].samples, 3u);
  EXPECT_EQ(run.timing.rounds[1].process, 1);
}

TEST(RunCli, VariantAndConfirmAreCheckedBeforeTheGpu) {
  const std::string gb = GPUBENCH_EXE;
  const shell_result v = run_shell(gb + " run --chapter 2 --variant nope 2>&1");
  EXPECT_EQ(v.status, 2) << v.output;
  EXPECT_NE(v.output.find("float4"), std::string::npos) << v.output;  // the names it could have been
  const shell_result c = run_shell(gb + " run --chapter 2 --confirm /nonexistent/base.json 2>&1");
  EXPECT_EQ(c.status, 2) << c.output;
  const shell_result pc = run_shell(gb + " run --chapter 2 --profile --confirm '" + std::string(GPUBENCH_SOURCE_DIR) +
                                    "/profiles/reference/h100-ch02.json' 2>&1");
  EXPECT_EQ(pc.status, 2) << pc.output;
}

namespace {
bool has_pair(const std::vector<std::string>& a, const std::string& flag, const std::string& value) {
  for (std::size_t i = 0; i + 1 < a.size(); ++i)
    if (a[i] == flag && a[i + 1] == value) return true;
  return false;
}
}  // namespace

TEST(ConfirmChildArgs, SpellOutTheRunsTimingOptionsAndParse) {
  // The child measures exactly what the run measured: its pair, size, variant, seed and every
  // timing option, the added rounds' cap included (a --quick run's 1 stays 1).
  record r = timed({1e-3}, {});
  run_options o;
  o.seed = 42;
  o.rest_ratio = 0.5;
  auto a = confirm_child_args(r, 0, o, "/tmp/x.json");
  EXPECT_TRUE(has_pair(a, "--pair", "ch03/softmax_fusion"));
  EXPECT_TRUE(has_pair(a, "--axis", "rows=4096"));
  EXPECT_TRUE(has_pair(a, "--variant", "fused"));
  EXPECT_TRUE(has_pair(a, "--seed", "42"));
  EXPECT_TRUE(has_pair(a, "--rounds", "3"));
  EXPECT_TRUE(has_pair(a, "--max-rounds", "8"));
  EXPECT_TRUE(has_pair(a, "--rest", "0.5"));
  EXPECT_TRUE(has_pair(a, "--max-noise", "0.5"));
  const run_options q = run_options::quick();
  EXPECT_TRUE(has_pair(confirm_child_args(r, 0, q, "/tmp/x.json"), "--max-rounds", "1"));
  // The stopping criteria travel as the run's own options would (percent for the noise target).
  run_options stop;
  stop.stopping.max_noise = 0.01;
  stop.stopping.min_samples = 7;
  stop.stopping.min_time_s = 0.25;
  stop.stopping.timeout_s = 3;
  const auto stop_args = confirm_child_args(r, 0, stop, "/tmp/x.json");
  EXPECT_TRUE(has_pair(stop_args, "--max-noise", "1"));
  EXPECT_TRUE(has_pair(stop_args, "--min-samples", "7"));
  EXPECT_TRUE(has_pair(stop_args, "--min-time", "0.25"));
  EXPECT_TRUE(has_pair(stop_args, "--timeout", "3"));
  // The real parser takes it: without a GPU the child fails for want of one (exit 1), not over
  // its arguments (exit 2).
  std::string cmd = std::string("'") + GPUBENCH_EXE + "'";
  for (const auto& s : a) cmd += " '" + s + "'";
  const auto res = run_shell(cmd + " 2>&1");
  EXPECT_NE(res.status, 2) << res.output;
}
