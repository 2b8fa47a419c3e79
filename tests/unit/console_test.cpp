/// Unit tests for gpubench::console_reporter and detect_style().
///
/// The reporter writes into tmpfile()s that are read back. Records are synthetic: one size of a
/// six-variant pair (baseline, a 13.6x faster optimized, a failed one, a skipped one, a suspect
/// one faster than the physical floor, and a 2x slower one). Derived numbers come from derive()
/// with the ceilings below; the expected strings are worked out in the comments.
#include "gpubench/console.hpp"
#include "gpubench/format.hpp"
#include "gpubench/text_width.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <pty.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpubench/metrics.hpp"
#include "gpubench/record.hpp"
#include "gpubench/speedup_interval.hpp"

namespace {

using namespace gpubench;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

void noop(pair_state&, stream_t) {}

pair_def sample_pair() {
  pair_def p;
  p.chapter = 1;
  p.name = "batched_gemm";
  p.title = "40 small GEMMs";
  for (const char* n : {"baseline", "optimized", "broken", "skipper", "cheater", "slowpoke"})
    p.variants.push_back({n, std::string("desc of ") + n, noop});
  return p;
}

ceilings sample_ceilings() {
  ceilings c;
  c.dram_bytes_per_s = 2e12;
  c.fp32_flops_per_s = 1e13;
  return c;
}

work sample_work() {
  work w;
  w.bytes = 1e9;  // floor: max(1e9 / 2e12, 2e9 / 1e13) = max(5e-4, 2e-4) = 5e-4 s, DRAM-bound
  w.flops = 2e9;
  w.items = 40;
  w.item_name = "kernel";
  return w;
}

size_point sample_size() { return size_point({{"batch", std::int64_t{40}}, {"m", std::int64_t{32}}}); }

record timed(const std::string& variant, double median) {
  record r;
  r.chapter = 1;
  r.pair = "batched_gemm";
  r.variant = variant;
  r.size = sample_size();
  r.declared = sample_work();
  summary s;
  s.count = 35;
  s.median = median;
  s.min = median * 0.99;
  s.max = median * 1.05;
  s.p95 = median * 1.02;
  s.rel_noise = 0.003;
  r.stats = s;
  return r;
}

/// Records in variant order, derived against the baseline.
std::vector<record> sample_records() {
  std::vector<record> rs;
  rs.push_back(timed("baseline", 13.6e-3));
  rs.push_back(timed("optimized", 1e-3));  // 13.6e-3 / 1e-3 = 13.6x
  record broken = timed("broken", 1e-3);
  broken.status = record_status::failed;
  broken.stats.reset();
  broken.reason = "relative L2 error 0.5 exceeds the tolerance 1e-05";
  rs.push_back(broken);
  record skipper = timed("skipper", 1e-3);
  skipper.status = record_status::skipped;
  skipper.stats.reset();
  skipper.reason = "out of device memory at this size";
  rs.push_back(skipper);
  rs.push_back(timed("cheater", 1e-4));  // 1e-4 s < floor 5e-4 s * 0.98: suspect
  record slow = timed("slowpoke", 27.2e-3);  // 13.6e-3 / 27.2e-3 = 0.5: 2x slower
  slow.timing.stopped = stop_reason::timeout;
  slow.timing.samples_s = {1, 1, 1};
  slow.timing.throttled = {1, 0, 1};
  rs.push_back(slow);
  for (auto& r : rs) derive(r, sample_ceilings(), r.variant == "baseline" ? nullptr : &rs[0]);
  return rs;
}

std::string render(console_style style, std::string* progress_text = nullptr) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, style);
  const auto pair = sample_pair();
  c.pair_begin(pair);
  c.size_begin(pair, sample_size(), sample_work(), sample_ceilings());
  c.phase("setting up");
  c.sampling(sample_records()[0], 12, 0.01, 0.3);
  c.size_end(pair, sample_records());
  if (progress_text != nullptr) *progress_text = progress.text();
  return out.text();
}

TEST(Console, PlainOutputHasEveryPart) {
  std::string progress;
  // 200 columns: no line wraps (Console.WrapsToItsWidth checks the wrapping).
  const auto text = render({.color = false, .progress = false, .quiet = false, .width = 200}, &progress);
  EXPECT_TRUE(has(text, "\nch01/batched_gemm  40 small GEMMs\n")) << text;
  // size_begin: 2e9 FLOP -> "2.00 GFLOP", 1e9 B -> "1.00 GB", 40 items named "kernel".
  EXPECT_TRUE(has(text, "  [batch=40,m=32]  work: 2.00 GFLOP, 1.00 GB over dram, 40 kernels\n")) << text;
  // Variant names padded to the longest (9, "optimized").
  EXPECT_TRUE(has(text, "    baseline  desc of baseline\n")) << text;
  EXPECT_TRUE(has(text, "Time (median ± noise):")) << text;
  // optimized: median 1 ms, 0.3% noise, 35 samples; min 0.99 ms, max 1.05 ms, p95 1.02 ms.
  EXPECT_TRUE(has(text, "      Time (median ± noise):  1.000 ms ± 0.3%   [35 samples, converged, cuda_events, cold L2]\n"))
      << text;
  EXPECT_TRUE(has(text, "      Range (min … max):      990.0 µs … 1.050 ms   p95 1.020 ms\n")) << text;
  // 2e9 / 1e-3 = 2 TFLOP/s; 1e9 / 1e-3 = 1 TB/s; 1e-3 / 40 = 25 µs per kernel; 5e-4 / 1e-3 = 50%.
  EXPECT_TRUE(has(text, "      Throughput:             2.00 TFLOP/s · 1.00 TB/s · 25.00 µs per kernel · 50.0% of floor (dram)\n"))
      << text;
  EXPECT_TRUE(has(text, "optimized ran 13.6× faster than baseline")) << text;
  EXPECT_TRUE(has(text, "✗ verification failed: relative L2 error 0.5 exceeds the tolerance 1e-05")) << text;
  EXPECT_TRUE(has(text, "skipped: out of device memory at this size")) << text;
  EXPECT_TRUE(has(text, "SUSPECT")) << text;
  EXPECT_TRUE(has(text, "⚠ SUSPECT: faster than the physical floor (500.0 µs at dram)")) << text;
  EXPECT_TRUE(has(text, "cheater ran 136.0× faster than baseline")) << text;  // 13.6e-3 / 1e-4
  EXPECT_TRUE(has(text, "slowpoke ran 2.00× slower than baseline")) << text;
  EXPECT_TRUE(has(text, "⚠ 2 of 3 samples ran during a thermal or hardware slowdown")) << text;
  // The time limit stopped a round above the round's noise target; the record's own noise (0.3%)
  // is shown as what it is, not called "above the target".
  EXPECT_TRUE(has(text, "a round stopped at the time limit before its noise met the round target (noise over all 35 "
                        "samples: 0.3%)"))
      << text;
  EXPECT_FALSE(has(text, "0.3% is above the target")) << text;
  // No speedup line for the failed and the skipped variants.
  EXPECT_FALSE(has(text, "broken ran")) << text;
  EXPECT_FALSE(has(text, "skipper ran")) << text;
  EXPECT_FALSE(has(text, "\x1b[")) << text;
  EXPECT_TRUE(progress.empty()) << "progress=false must write nothing to the progress stream";
}

// At 80 columns every line fits, colour or not, and a wrapped value continues under its text.
TEST(Console, WrapsToItsWidth) {
  for (const bool color : {false, true}) {
    const auto text = render({.color = color, .progress = false, .quiet = false, .width = 80});
    std::size_t longest = 0;
    for (std::size_t from = 0; from < text.size();) {
      const std::size_t to = std::min(text.find('\n', from), text.size());
      longest = std::max(longest, display_width(std::string_view(text).substr(from, to - from)));
      from = to + 1;
    }
    EXPECT_LE(longest, 80u) << text;
    EXPECT_GT(longest, 60u) << "the lines use the room they have\n" << text;
  }
  const auto plain = render({.color = false, .progress = false, .quiet = false, .width = 80});
  EXPECT_TRUE(has(plain, "      Throughput:             2.00 TFLOP/s · 1.00 TB/s · 25.00 µs per kernel ·\n"
                         "                              50.0% of floor (dram)\n"))
      << plain;
}

TEST(Console, ColorAddsEscapeCodes) {
  const auto text = render({.color = true, .progress = false, .quiet = false});
  EXPECT_TRUE(has(text, "\x1b[1mch01/batched_gemm\x1b[0m")) << text;
  EXPECT_TRUE(has(text, "\x1b[31m✗ verification failed:\x1b[0m")) << text;
  EXPECT_TRUE(has(text, "\x1b[32m13.6×\x1b[0m")) << text;  // faster: green
  EXPECT_TRUE(has(text, "\x1b[31m2.00×\x1b[0m")) << text;  // slower: red
}

// A speedup carries its interval (gpubench/speedup_interval.hpp, as the HTML report), and is
// coloured only when the whole interval lies outside the same band (±5%): "1.01x slower" is
// plain, a real 2x slowdown red.
TEST(Console, SpeedupsCarryTheirIntervalAndColourOnlyOutsideTheBand) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {.color = true, .progress = false, .quiet = false});
  pair_def pair = sample_pair();
  const auto with_samples = [](const std::string& variant, double median) {
    record r = timed(variant, median);
    for (int i = 0; i < 40; ++i) r.timing.samples_s.push_back(median * (1 + 0.001 * (i % 5 - 2)));
    return r;
  };
  std::vector<record> rs{with_samples("baseline", 1e-3), with_samples("optimized", 1.01e-3),
                         with_samples("broken", 2e-3)};
  rs[2].status = record_status::passed;
  pair.variants.resize(3);
  for (auto& r : rs) derive(r, sample_ceilings(), r.variant == "baseline" ? nullptr : &rs[0]);
  c.pair_begin(pair);
  c.size_end(pair, rs);
  const auto text = out.text();
  // 1.01x slower, its interval across the band: plain.
  EXPECT_TRUE(has(text, "ran 1.01× slower than baseline (95% interval ")) << text;
  EXPECT_FALSE(has(text, "m1.01×")) << "no colour inside the same band\n" << text;
  // 2x slower: the whole interval beyond the band, red.
  EXPECT_TRUE(has(text, "\x1b[31m2.00×\x1b[0m slower than baseline (95% interval")) << text;
}

// Rounds taken at different host speeds: the baseline's rounds at 1, 2 and 2 ms, the variant's at
// 0.1, 0.1 and 0.2 ms. The pooled medians' ratio is 20x, the rounds' ratios 10x, 20x and 10x:
// the line prints the interval's own center (12.6x), as the HTML report does, not 20x, which can
// lie outside an interval built from the rounds.
TEST(Console, ASpeedupsPointLiesInsideItsInterval) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {.color = false, .progress = false, .quiet = false});
  pair_def pair = sample_pair();
  pair.variants.resize(2);
  const auto in_rounds = [](const std::string& variant, std::vector<double> round_ms) {
    record r = timed(variant, round_ms[1] * 1e-3);  // the pooled median: the middle round's
    for (double ms : round_ms) {
      for (int i = 0; i < 10; ++i) r.timing.samples_s.push_back(ms * 1e-3 * (1 + 0.001 * (i % 5 - 2)));
      r.timing.rounds.push_back(round_info{10, stop_reason::converged, 0.01});
    }
    return r;
  };
  std::vector<record> rs{in_rounds("baseline", {1, 2, 2}), in_rounds("optimized", {0.1, 0.1, 0.2})};
  for (auto& r : rs) derive(r, sample_ceilings(), r.variant == "baseline" ? nullptr : &rs[0]);
  ASSERT_NEAR(*rs[1].speedup, 20.0, 1e-9);
  const std::optional<ratio_interval> want = speedup_interval(rs[0], rs[1]);
  ASSERT_TRUE(want.has_value());
  EXPECT_LT(want->estimate, 13.0);  // the rounds' geometric mean, 12.6x
  EXPECT_LE(want->low, want->estimate);
  EXPECT_GE(want->high, want->estimate);
  c.pair_begin(pair);
  c.size_end(pair, rs);
  const auto text = out.text();
  EXPECT_TRUE(
      has(text, fmt::format("optimized ran {} faster than baseline (95% interval {} to {})",
                            format_factor(want->estimate), format_factor(want->low), format_factor(want->high))))
      << text;
  EXPECT_FALSE(has(text, "ran 20.0×")) << text;
}

// A median a little under the floor (not enough to be suspect) is above its roof: marked, and
// what that means is said.
TEST(Console, AboveTheRoofIsMarkedAndExplained) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {});
  const auto pair = sample_pair();
  auto base = timed("baseline", 13.6e-3);
  auto near = timed("optimized", 4.9e-4);  // floor 5e-4 s (DRAM): 102.0%, inside the 5% slack
  derive(base, sample_ceilings(), nullptr);
  derive(near, sample_ceilings(), &base);
  ASSERT_TRUE(near.floor && near.floor->above_roof() && !near.floor->suspect);
  c.pair_begin(pair);
  c.size_end(pair, {base, near});
  const auto text = out.text();
  EXPECT_TRUE(has(text, "102.0% of floor (dram, above its roof)")) << text;
  EXPECT_TRUE(has(text, "▲ above the DRAM roof: part of the data came from L2")) << text;
  EXPECT_FALSE(has(text, "SUSPECT")) << text;
}

TEST(Console, ProgressGoesToTheProgressStreamAndIsCleared) {
  std::string progress;
  const auto text = render({.color = false, .progress = true, .quiet = false}, &progress);
  // The line names the pair and the size; render() gave no plan, so only the elapsed time leads.
  EXPECT_TRUE(has(progress, "] ch01/batched_gemm [batch=40,m=32]  setting up…")) << progress;
  // sampling(): 12 samples, noise 0.01 -> "1.0%", elapsed 0.3 s.
  EXPECT_TRUE(has(progress, "sampling baseline: 12 samples, noise 1.0%, 0.3 s")) << progress;
  EXPECT_FALSE(has(progress, "left")) << "no time-left estimate without a plan";
  EXPECT_TRUE(has(progress, "\r\x1b[2K")) << "progress line cleared";
  EXPECT_FALSE(has(text, "sampling")) << "progress never goes to the results stream";
}

TEST(Console, ProgressCountsSizesAgainstThePlan) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {.color = false, .progress = true, .quiet = false});
  c.plan(3);
  const auto pair = sample_pair();
  c.pair_begin(pair);
  c.size_begin(pair, sample_size(), sample_work(), sample_ceilings());
  c.phase("verifying");
  c.size_end(pair, sample_records());
  c.size_begin(pair, sample_size(), sample_work(), sample_ceilings());
  c.phase("verifying");
  const auto text = progress.text();
  EXPECT_TRUE(has(text, "[1/3 · 0 s] ch01/batched_gemm [batch=40,m=32]  verifying…")) << text;
  // After one finished size there is an estimate for the other two, labelled as one.
  EXPECT_TRUE(has(text, "[2/3 · 0 s · ~0 s left, est.] ch01/batched_gemm")) << text;
}

TEST(Console, ASweptSizeCountsAShareAsEachRoundEndsAndNamesItsRound) {
  // Two host-timed sizes of 3 rounds, their rounds in sweeps, against a plan of 2 sizes: each
  // later round that starts means a third of a size done; size_end adds what is left.
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {.color = false, .progress = true, .quiet = false});
  c.plan(2);
  const auto pair = sample_pair();
  const size_point other({{"batch", std::int64_t{80}}, {"m", std::int64_t{32}}});
  c.sweep_round(pair, sample_size(), 0, 3);
  c.phase("verifying");
  c.sweep_round(pair, other, 0, 3);
  c.sweep_round(pair, sample_size(), 1, 3);
  c.phase("setting up");
  c.sweep_round(pair, other, 1, 3);
  c.sweep_round(pair, sample_size(), 2, 3);
  c.sweep_round(pair, other, 2, 3);
  c.phase("setting up");
  c.pair_begin(pair);
  c.size_begin(pair, sample_size(), sample_work(), sample_ceilings());
  c.size_end(pair, sample_records());  // 4/3 (two rounds of each size ended) + the first's last 1/3
  c.size_begin(pair, other, sample_work(), sample_ceilings());
  c.phase("deriving");
  const auto text = progress.text();
  EXPECT_TRUE(has(text, "[1/2 · 0 s] ch01/batched_gemm [batch=40,m=32]  verifying…")) << text;
  EXPECT_TRUE(has(text, "ch01/batched_gemm [batch=40,m=32]  round 2/3 · setting up…")) << text;
  EXPECT_TRUE(has(text, "ch01/batched_gemm [batch=80,m=32]  round 3/3 · setting up…")) << text;
  // 5/3 done: one whole size, so the counter names the second.
  EXPECT_TRUE(has(text, "[2/2 · 0 s · ~0 s left, est.] ch01/batched_gemm [batch=80,m=32]  deriving…")) << text;
  EXPECT_FALSE(has(text, "round 2/3 · deriving")) << "size_begin clears the round";
}

TEST(Console, QuietShowsOnlyFailures) {
  const auto text = render({.color = false, .progress = false, .quiet = true});
  EXPECT_FALSE(has(text, "Time (median ± noise):")) << text;
  EXPECT_FALSE(has(text, "ran 13.6×")) << text;
  EXPECT_FALSE(has(text, "[batch=40,m=32]")) << text;
  EXPECT_TRUE(has(text, "✗ verification failed:")) << text;
  EXPECT_TRUE(has(text, "skipped:")) << text;
}

TEST(Console, ErrorAndProfiledRecords) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {});
  const auto pair = sample_pair();
  auto err = timed("baseline", 1e-3);
  err.status = record_status::error;
  err.reason = "CUDA error: an illegal memory access";
  auto prof = timed("optimized", 1e-3);
  prof.status = record_status::profiled;
  prof.check.result = disposition::passed;
  c.pair_begin(pair);
  c.size_end(pair, {err, prof});
  const auto text = out.text();
  EXPECT_TRUE(has(text, "✗ error: CUDA error: an illegal memory access")) << text;
  EXPECT_TRUE(has(text, "ran once for a profiler; verification: passed")) << text;
}

TEST(Console, CountersAboveTheModelAreANoteBelowItAWarning) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {});
  const auto pair = sample_pair();
  auto r = timed("baseline", 1e-3);  // declares 1e9 B and 2e9 FLOP
  metric_result m;
  m.status = metrics_status::collected;
  m.chip = "GH100";
  m.passes = 13;
  m.derived = {{"dram_bytes", 2.5e9}, {"flops", 1.5e9}};  // 2.5x the bytes; FLOPs 25% below
  for (const auto& ch : cross_check(r.declared, m.derived))
    if (ch.contradicts) m.warnings.push_back(ch.message);  // as the metrics pass stores them
  r.metrics = m;
  c.pair_begin(pair);
  c.size_end(pair, {r});
  const auto text = out.text();
  EXPECT_TRUE(has(text, "      work model: moves 2.5× the minimum DRAM bytes (2.5 GB vs 1 GB)\n")) << text;
  EXPECT_TRUE(has(text, "⚠ work model: FLOPs: counters saw 1.5 GFLOP, 25% below the 2 GFLOP minimum")) << text;
  EXPECT_FALSE(has(text, "⚠ work model: DRAM")) << text;
}

TEST(Console, SummaryCounts) {
  tmp_file out, progress;
  console_reporter c(out.f, progress.f, {.width = 120});
  auto all = sample_records();  // 4 passed (one suspect), 1 failed, 1 skipped
  c.summary(all);
  EXPECT_EQ(out.text(), "\n6 records: 4 passed, 1 failed verification, 1 skipped, 1 suspect (faster than the floor)\n");
  tmp_file narrow_out, narrow_progress;
  console_reporter narrow(narrow_out.f, narrow_progress.f, {.width = 80});
  narrow.summary(all);
  EXPECT_EQ(narrow_out.text(),
            "\n6 records: 4 passed, 1 failed verification, 1 skipped, 1 suspect (faster than\nthe floor)\n");

  tmp_file out2, progress2;
  console_reporter c2(out2.f, progress2.f, {});
  auto err = timed("x", 1e-3);
  err.status = record_status::error;
  auto prof = timed("y", 1e-3);
  prof.status = record_status::profiled;
  c2.summary({all[0], err, prof});
  EXPECT_EQ(out2.text(), "\n3 records: 1 passed, 1 profiled, 1 error\n");

  tmp_file out3, progress3;
  console_reporter c3(out3.f, progress3.f, {});
  c3.summary({});
  EXPECT_EQ(out3.text(), "\n0 records: 0 passed\n");
}

TEST(DetectStyle, NonTerminalHasNoColorOrProgress) {
  tmp_file f;
  // NO_COLOR can only make a difference on a terminal; on a file both are off either way.
  const char* saved = std::getenv("NO_COLOR");
  const std::string saved_value = saved ? saved : "";
  unsetenv("NO_COLOR");
  auto s = detect_style(f.f, false);
  EXPECT_FALSE(s.color);
  EXPECT_FALSE(s.progress);
  EXPECT_FALSE(s.quiet);
  setenv("NO_COLOR", "1", 1);
  s = detect_style(f.f, true);
  EXPECT_FALSE(s.color);
  EXPECT_FALSE(s.progress);
  EXPECT_TRUE(s.quiet);
  if (saved) setenv("NO_COLOR", saved_value.c_str(), 1);
  else unsetenv("NO_COLOR");
}

TEST(DetectStyle, TerminalHonoursNoColor) {
  // A pseudo-terminal stands in for a real one; skipped where ptys are unavailable.
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
    if (master >= 0) close(master);
    GTEST_SKIP() << "no pseudo-terminal available";
  }
  const int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  if (slave < 0) {
    close(master);
    GTEST_SKIP() << "cannot open the pty slave";
  }
  std::FILE* tty = fdopen(slave, "w");
  ASSERT_NE(tty, nullptr);
  const char* saved = std::getenv("NO_COLOR");
  const std::string saved_value = saved ? saved : "";
  unsetenv("NO_COLOR");
  auto s = detect_style(tty, false);
  EXPECT_TRUE(s.color);
  EXPECT_TRUE(s.progress);
  EXPECT_FALSE(detect_style(tty, true).progress);  // quiet: no progress lines
  setenv("NO_COLOR", "", 1);                       // empty NO_COLOR does not count
  EXPECT_TRUE(detect_style(tty, false).color);
  setenv("NO_COLOR", "1", 1);
  s = detect_style(tty, false);
  EXPECT_FALSE(s.color);
  EXPECT_TRUE(s.progress);  // NO_COLOR only turns colour off
  if (saved) setenv("NO_COLOR", saved_value.c_str(), 1);
  else unsetenv("NO_COLOR");
  std::fclose(tty);
  close(master);
}

TEST(DetectStyle, ProgressOnlyWhenResultsAndProgressAreTerminals) {
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  std::FILE* tty = fdopen(slave, "w");
  ASSERT_NE(tty, nullptr);
  tmp_file file;
  EXPECT_TRUE(detect_style(tty, false).progress);
  EXPECT_TRUE(detect_style(tty, false, tty).progress);
  EXPECT_FALSE(detect_style(tty, true, tty).progress) << "--quiet";
  EXPECT_FALSE(detect_style(tty, false, file.f).progress) << "progress stream redirected";
  EXPECT_FALSE(detect_style(file.f, false, tty).progress) << "`run > log`: results redirected";
  std::fclose(tty);
  close(master);
}

}  // namespace
