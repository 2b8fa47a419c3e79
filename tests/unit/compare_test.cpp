/// Unit tests for gpubench/compare.hpp: the normal quantile, classify() at its boundaries,
/// compare_profiles() on synthetic profiles, the exit-code gate, and the error rates under a noise
/// model fitted to real H200 samples (profiles/reference/h200-ch01.json).
#include "gpubench/compare.hpp"
#include "compare/noise_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gpubench/error.hpp"
#include "gpubench/stats.hpp"

#include "compare/intervals.hpp"

namespace {

using namespace gpubench;

/// A passed, timed record of pair `pair`, size n=`n`.
record make_record(const std::string& pair, const std::string& variant, std::vector<double> samples,
                   std::int64_t n = 1024) {
  record r{.chapter = 1, .pair = pair, .variant = variant, .size = size_point({{"n", axis_value{n}}})};
  if (!samples.empty()) r.stats = summarize(samples);
  r.timing.samples_s = std::move(samples);
  return r;
}

/// 30 samples spread ±0.2% about `center`, deterministic: tight intervals, noise far below 5%.
std::vector<double> steady(double center, std::size_t count = 30) {
  std::vector<double> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = center * (1 + 0.0004 * (static_cast<double>((i * 7) % 11) - 5.0));
  return v;
}

profile make_profile(std::vector<record> records, const std::string& device = "NVIDIA H200") {
  profile p{.complete = true, .records = std::move(records)};
  p.prov.device.name = device;
  return p;
}

/// Exact (tol 0) or approximate equality of all three numbers of an interval.
void expect_interval(const ratio_interval& r, const ratio_interval& want, double tol = 0) {
  EXPECT_NEAR(r.estimate, want.estimate, tol);
  EXPECT_NEAR(r.low, want.low, tol);
  EXPECT_NEAR(r.high, want.high, tol);
}

TEST(compareNormalQuantile, KnownPoints) {
  EXPECT_NEAR(detail::normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(detail::normal_quantile(0.995), 2.575829303548901, 1e-9);
  EXPECT_NEAR(detail::normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(detail::normal_quantile(0.025), -1.959963984540054, 1e-9);  // lower tail region
  EXPECT_NEAR(detail::normal_quantile(1 - 0.05 / 400), 3.662259930887615, 1e-8);  // Bonferroni, 200 records
  EXPECT_THROW(detail::normal_quantile(0.0), std::invalid_argument);
  EXPECT_THROW(detail::normal_quantile(1.0), std::invalid_argument);
}

TEST(compareClassify, Boundaries) {
  const double t = 0.05, up = 1 + t, down = 1 / (1 + t);
  EXPECT_EQ(classify({1.2, std::nextafter(up, 2.0), 1.3}, t), verdict::slower);
  EXPECT_EQ(classify({1.2, up, 1.3}, t), verdict::inconclusive);  // low == 1+t is not beyond it
  EXPECT_EQ(classify({0.8, 0.7, std::nextafter(down, 0.0)}, t), verdict::faster);
  EXPECT_EQ(classify({0.8, 0.7, down}, t), verdict::inconclusive);
  EXPECT_EQ(classify({1.0, down, up}, t), verdict::same);  // both ends inclusive
  EXPECT_EQ(classify({1.0, std::nextafter(down, 0.0), up}, t), verdict::inconclusive);
  EXPECT_EQ(classify({1.0, down, std::nextafter(up, 2.0)}, t), verdict::inconclusive);
  EXPECT_EQ(classify({1.0, 0.5, 2.0}, t), verdict::inconclusive);
  EXPECT_STREQ(to_string(verdict::faster), "faster");
  EXPECT_STREQ(to_string(verdict::same), "same");
  EXPECT_STREQ(to_string(verdict::slower), "slower");
  EXPECT_STREQ(to_string(verdict::inconclusive), "inconclusive");
}

TEST(compareProfiles, MatchesByIdAndListsTheUnmatched) {
  const profile base = make_profile({make_record("gemm", "baseline", steady(1e-3), 1),
                                     make_record("gemm", "optimized", steady(2e-4), 1),
                                     make_record("gemm", "baseline", steady(1e-3), 2)});
  const profile next = make_profile({make_record("gemm", "baseline", steady(1e-3), 1),
                                     make_record("gemm", "optimized", steady(2e-4), 1),
                                     make_record("gemm", "baseline", steady(1e-3), 4)}, "NVIDIA H100");
  const comparison c = compare_profiles(base, next, {}, "a.json", "b.json");
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[0].id, "ch01/gemm/baseline[n=1]");
  EXPECT_EQ(c.records[1].id, "ch01/gemm/optimized[n=1]");
  EXPECT_EQ(c.records[1].variant, "optimized");
  EXPECT_EQ(c.records[1].size, "n=1");
  EXPECT_EQ(c.records[0].result, verdict::same);
  EXPECT_DOUBLE_EQ(c.records[0].ratio.estimate, 1.0);
  EXPECT_EQ(c.only_in_base, std::vector<std::string>{"ch01/gemm/baseline[n=2]"});
  EXPECT_EQ(c.only_in_new, std::vector<std::string>{"ch01/gemm/baseline[n=4]"});
  EXPECT_EQ(c.base_source, "a.json");
  EXPECT_EQ(c.new_device, "NVIDIA H100");
  EXPECT_FALSE(c.same_device);
}

TEST(compareProfiles, NonPassedSideIsInconclusiveWithNote) {
  record failed = make_record("gemm", "optimized", {});
  failed.status = record_status::failed;
  record skipped = make_record("copy", "baseline", {});
  skipped.status = record_status::skipped;
  record errored = make_record("copy", "baseline", steady(1e-3));
  errored.status = record_status::error;
  const profile base = make_profile({make_record("gemm", "optimized", steady(1e-3)), errored});
  const profile next = make_profile({failed, skipped});
  const comparison c = compare_profiles(base, next, {});
  ASSERT_EQ(c.records.size(), 2u);  // never silently dropped
  EXPECT_EQ(c.records[0].result, verdict::inconclusive);
  EXPECT_EQ(c.records[0].note, "new: status failed");
  EXPECT_EQ(c.records[1].note, "base: status error; new: status skipped");
  EXPECT_EQ(c.count(verdict::inconclusive), 2u);
  EXPECT_TRUE(c.speedups.empty());
  EXPECT_DOUBLE_EQ(c.interval_confidence, 0.95);  // nothing compared: no correction
}

TEST(compareProfiles, ThrottledNoisyOrShortSidesAreInconclusive) {
  record throttled = make_record("gemm", "baseline", steady(2e-3));  // twice as slow, but throttled
  throttled.timing.throttled.assign(30, 0);
  throttled.timing.throttled[7] = 1;
  std::vector<double> noisy(30);
  for (std::size_t i = 0; i < noisy.size(); ++i) noisy[i] = 1e-3 * (i % 2 ? 1.0 : 1.6);
  ASSERT_GT(median_rel_noise(noisy), 0.05);
  const profile base = make_profile({make_record("gemm", "baseline", steady(1e-3)),
                                     make_record("noisy", "baseline", noisy),
                                     make_record("short", "baseline", {1e-3, 1e-3, 1e-3})});
  const profile next = make_profile({throttled, make_record("noisy", "baseline", steady(1e-3)),
                                     make_record("short", "baseline", steady(1e-3))});
  const comparison c = compare_profiles(base, next, {});
  ASSERT_EQ(c.records.size(), 3u);
  EXPECT_EQ(c.records[0].result, verdict::inconclusive);
  EXPECT_FALSE(c.records[0].critical);
  EXPECT_EQ(c.records[0].note, "new: 1 of 30 samples throttled");
  EXPECT_GT(c.records[0].ratio.low, 1.9);  // the interval is still reported
  EXPECT_EQ(c.records[1].result, verdict::inconclusive);
  EXPECT_NE(c.records[1].note.find("base: noise"), std::string::npos) << c.records[1].note;
  EXPECT_EQ(c.records[2].note, "base: 3 samples (fewer than 5)");
  EXPECT_EQ(gate_exit_code(c, fail_on::any), 5);
}

TEST(compareProfiles, BonferroniConfidenceAndVerdicts) {
  const std::vector<double> b = steady(1e-3);
  auto scaled = [&](double f) {
    std::vector<double> v = b;
    for (auto& x : v) x *= f;
    return v;
  };
  record failed = make_record("e", "baseline", {});
  failed.status = record_status::failed;
  auto rec = [](const char* pair, std::vector<double> v) { return make_record(pair, "baseline", std::move(v)); };
  const profile base = make_profile({rec("a", b), rec("b", b), rec("c", b), rec("d", b), rec("e", b)});
  const profile next =
      make_profile({rec("a", scaled(1.3)), rec("b", scaled(1.10)), rec("c", scaled(0.8)), rec("d", b), failed});
  const comparison c = compare_profiles(base, next, {});
  // 4 records have samples on both sides ("e" failed): per-record alpha = 0.05 / 4.
  EXPECT_DOUBLE_EQ(c.interval_confidence, 1 - 0.05 / 4);
  // One round a side: each side's variance is its samples' noise, plus the fitted device floor
  // for each side's process; the interval is symmetric in log space at the Bonferroni z.
  const double z = gpubench::detail::normal_quantile(1 - 0.05 / 4 / 2);
  const double noise = median_rel_noise(b), floor = gpubench::detail::process_noise_model::fitted().floor_device;
  const double sd = std::sqrt(2 * noise * noise + 2 * floor * floor);
  EXPECT_NEAR(c.records[1].log_sd, sd, 1e-12);
  expect_interval(c.records[1].ratio, {1.10, 1.10 * std::exp(-z * sd), 1.10 * std::exp(z * sd)}, 1e-12);
  EXPECT_NEAR(c.records[1].resolvable, 1.05 * std::exp(z * sd) - 1, 1e-12);
  EXPECT_EQ(c.records[0].result, verdict::slower);
  EXPECT_TRUE(c.records[0].critical);  // whole interval above 1.15
  EXPECT_EQ(c.records[1].result, verdict::slower);
  EXPECT_FALSE(c.records[1].critical);
  EXPECT_EQ(c.records[2].result, verdict::faster);
  EXPECT_EQ(c.records[3].result, verdict::same);
  EXPECT_EQ(c.count(verdict::slower), 2u);
  EXPECT_EQ(c.critical_count(), 1u);
  EXPECT_THROW(compare_profiles(base, next, {.alpha = 0}), gpubench::error);
}

TEST(compareProfiles, SpeedupDirection) {
  // Base: baseline 10 ms, optimized 1 ms (10x). New: the optimized variant doubled to 2 ms (5x),
  // "fast" got faster (4x → 8x), and "drift" moved both variants 20% slower (speedup kept).
  auto pairs = [](double opt, double fast, double drift) {
    return make_profile({make_record("opt", "baseline", steady(10e-3)), make_record("opt", "optimized", steady(opt)),
                         make_record("fast", "baseline", steady(8e-3)), make_record("fast", "optimized", steady(fast)),
                         make_record("drift", "baseline", steady(5e-3 * drift)),
                         make_record("drift", "optimized", steady(1e-3 * drift))});
  };
  const profile base = pairs(1e-3, 2e-3, 1.0), next = pairs(2e-3, 1e-3, 1.2);
  const comparison c = compare_profiles(base, next, {});
  ASSERT_EQ(c.speedups.size(), 3u);  // one per non-baseline variant
  EXPECT_EQ(c.speedups[0].id, "ch01/opt/optimized[n=1024]");
  EXPECT_NEAR(c.speedups[0].base_speedup, 10.0, 1e-9);
  EXPECT_NEAR(c.speedups[0].new_speedup, 5.0, 1e-9);
  EXPECT_NEAR(c.speedups[0].ratio.estimate, 0.5, 1e-9);
  EXPECT_LT(c.speedups[0].ratio.high, 1 / 1.05);
  EXPECT_EQ(c.speedups[0].result, verdict::slower);  // the speedup shrank
  EXPECT_NEAR(c.speedups[1].ratio.estimate, 2.0, 1e-9);
  EXPECT_EQ(c.speedups[1].result, verdict::faster);
  EXPECT_NEAR(c.speedups[2].ratio.estimate, 1.0, 1e-9);
  EXPECT_EQ(c.speedups[2].result, verdict::same);
  EXPECT_EQ(c.records[4].result, verdict::slower);  // drift: both records slower...
  EXPECT_EQ(c.records[5].result, verdict::slower);  // ...but the speedup held
  EXPECT_LE(c.speedups[2].ratio.low, 1.0);
  EXPECT_GE(c.speedups[2].ratio.high, 1.0);
}

TEST(compareGate, EveryPolicy) {
  comparison c;
  c.only_in_base = {"ch01/x/baseline[n=1]"};  // unmatched records never gate
  // Exit codes for {none, critical, slower, any}.
  auto codes = [&c] {
    return std::vector<int>{gate_exit_code(c, fail_on::none), gate_exit_code(c, fail_on::critical),
                            gate_exit_code(c, fail_on::slower), gate_exit_code(c, fail_on::any)};
  };
  EXPECT_EQ(codes(), (std::vector<int>{0, 0, 0, 0}));
  c.records.push_back({.result = verdict::same});
  c.records.push_back({.result = verdict::inconclusive});
  EXPECT_EQ(codes(), (std::vector<int>{0, 0, 0, 5}));
  c.records.push_back({.result = verdict::slower});
  EXPECT_EQ(codes(), (std::vector<int>{0, 0, 4, 4}));
  c.records.push_back({.result = verdict::slower, .critical = true});
  EXPECT_EQ(codes(), (std::vector<int>{0, 4, 4, 4}));
  EXPECT_EQ(c.critical_count(), 1u);
}

// --- Noise model fitted to real samples --------------------------------------------------------

/// Log residuals log(sample / median) of every record of profiles/reference/h200-ch01.json with
/// >= 20 samples, each record's standardized by its robust sigma (1.4826 * MAD) and the pool
/// rescaled to robust sigma 1, so the real shape (skew, outliers) is kept and the scale is a
/// parameter.
const std::vector<double>& h200_residuals() {
  static const std::vector<double> z = [] {
    std::vector<double> pool;
    const profile p =
        read_profile(std::filesystem::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / "h200-ch01.json");
    for (const record& r : p.records) {
      if (r.timing.samples_s.size() < 20) continue;
      std::vector<double> l;
      for (double s : r.timing.samples_s) l.push_back(std::log(s));
      const double med = median(l), sigma = 1.4826 * mad(l);
      if (sigma > 0)
        for (double v : l) pool.push_back((v - med) / sigma);
    }
    const double pooled = 1.4826 * mad(pool);
    for (auto& v : pool) v /= pooled;
    return pool;
  }();
  return z;
}

/// `count` samples about `center` whose log residuals are real ones with robust sigma `rel_noise`.
std::vector<double> draw(double center, double rel_noise, std::size_t count, std::mt19937_64& rng) {
  const std::vector<double>& z = h200_residuals();
  std::uniform_int_distribution<std::size_t> pick(0, z.size() - 1);
  std::vector<double> out(count);
  for (auto& v : out) v = center * std::exp(rel_noise * z[pick(rng)]);
  return out;
}

struct tally {
  std::size_t counts[4] = {};
  void add(verdict v) { ++counts[static_cast<int>(v)]; }
  [[nodiscard]] std::size_t operator[](verdict v) const { return counts[static_cast<int>(v)]; }
};

tally trials(std::size_t n_trials, double factor, std::size_t n_fixed, double noise_fixed, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  tally t;
  for (std::size_t i = 0; i < n_trials; ++i) {
    // n_fixed == 0: cycle through realistic sample counts and per-sample noise levels.
    const std::size_t n = n_fixed ? n_fixed : std::vector<std::size_t>{10, 20, 50, 200}[i % 4];
    const double noise = noise_fixed > 0 ? noise_fixed : std::vector<double>{0.01, 0.02, 0.04}[(i / 4) % 3];
    const profile base = make_profile({make_record("p", "baseline", draw(1e-3, noise, n, rng))});
    const profile next = make_profile({make_record("p", "baseline", draw(1e-3 * factor, noise, n, rng))});
    t.add(compare_profiles(base, next, {}).records.at(0).result);  // default options
  }
  return t;
}

void report(const char* name, const tally& t, std::size_t n) {
  const auto rate = [&](verdict v) { return static_cast<double>(t[v]) / static_cast<double>(n); };
  std::printf("[ %s ] %zu trials: slower %.4f, faster %.4f, same %.4f, inconclusive %.4f\n", name, n,
              rate(verdict::slower), rate(verdict::faster), rate(verdict::same), rate(verdict::inconclusive));
  testing::Test::RecordProperty("slower_rate", std::to_string(rate(verdict::slower)));
  testing::Test::RecordProperty("same_rate", std::to_string(rate(verdict::same)));
}

TEST(compareNoiseModel, FittedToRealSamples) {
  ASSERT_GT(h200_residuals().size(), 1000u);
  std::mt19937_64 rng(1);
  const std::vector<double> s = draw(1e-3, 0.02, 20000, rng);
  std::vector<double> l;
  for (double v : s) l.push_back(std::log(v / 1e-3));
  EXPECT_NEAR(1.4826 * mad(l), 0.02, 0.002);  // the requested robust spread
}

TEST(compareNoiseModel, IdenticalDistributionsAreNeverSlower) {
  constexpr std::size_t n = 1200;  // 100 trials for each of 4 sample counts x 3 noise levels
  const tally t = trials(n, 1.0, 0, 0, 20240601);
  report("identical", t, n);
  EXPECT_EQ(t[verdict::slower], 0u);
  EXPECT_EQ(t[verdict::faster], 0u);
}

TEST(compareNoiseModel, TenPercentSlowdownIsDetected) {
  constexpr std::size_t n = 1000;
  const tally t = trials(n, 1.10, 20, 0.01, 99);  // 20 samples per side, 1% noise
  report("10% slower", t, n);
  EXPECT_GE(t[verdict::slower], 950u);
}

TEST(compareNoiseModel, TwoHundredRecordsInUnderOneSecond) {
  std::mt19937_64 rng(3);
  std::vector<record> a, b;
  for (std::int64_t g = 0; g < 100; ++g)
    for (const char* v : {"baseline", "optimized"}) {
      const double center = (v[0] == 'b' ? 4e-3 : 1e-3) * (1 + 0.01 * static_cast<double>(g));
      a.push_back(make_record("p", v, draw(center, 0.02, 500, rng), g + 1));
      b.push_back(make_record("p", v, draw(center * (g % 10 ? 1.0 : 1.2), 0.02, 500, rng), g + 1));
    }
  const profile base = make_profile(std::move(a)), next = make_profile(std::move(b));
  const auto start = std::chrono::steady_clock::now();
  const comparison c = compare_profiles(base, next, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ timing ] 200 records x 500 samples: %.3f s (slower %zu, same %zu, inconclusive %zu)\n", seconds,
              c.count(verdict::slower), c.count(verdict::same), c.count(verdict::inconclusive));
  RecordProperty("seconds", std::to_string(seconds));
  EXPECT_EQ(c.records.size(), 200u);
  EXPECT_EQ(c.speedups.size(), 100u);
  EXPECT_EQ(c.count(verdict::slower), 20u);  // every 10th pair, both variants 20% slower
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)  // the bound is for optimized, uninstrumented builds
  EXPECT_LE(seconds, 1.0);
#endif
}

}  // namespace

// ---- run-to-run drift (history) ----

TEST(compare_drift, t_quantiles_match_tables) {
  // Two-sided critical values of Student's t (any statistics table, e.g. NIST/SEMATECH e-Handbook
  // 1.3.6.7.2): alpha = 0.05 → nu=1: 12.706, nu=2: 4.303, nu=5: 2.571, nu=30: 2.042; alpha=0.01, nu=4: 4.604.
  EXPECT_NEAR(gpubench::detail::t_quantile_two_sided(0.05, 1), 12.706, 1e-3);
  EXPECT_NEAR(gpubench::detail::t_quantile_two_sided(0.05, 2), 4.303, 1e-3);
  EXPECT_NEAR(gpubench::detail::t_quantile_two_sided(0.05, 5), 2.571, 1e-3);
  EXPECT_NEAR(gpubench::detail::t_quantile_two_sided(0.05, 30), 2.042, 1e-3);
  EXPECT_NEAR(gpubench::detail::t_quantile_two_sided(0.01, 4), 4.604, 1e-3);
}

namespace {
gpubench::profile one_record(double median, gpubench::timing_method method, double spread = 0.002) {
  gpubench::profile p;
  p.prov.device.name = "NVIDIA H200";
  gpubench::record r;
  r.chapter = 1;
  r.pair = "p";
  r.variant = "baseline";
  r.size = gpubench::size_point({{"n", std::int64_t{1}}});
  r.timing.method = method;
  for (int i = 0; i < 40; ++i) r.timing.samples_s.push_back(median * (1 + spread * ((i % 5) - 2)));
  r.stats = gpubench::summarize(r.timing.samples_s);
  p.records.push_back(r);
  return p;
}
}  // namespace

TEST(compare_drift, host_timed_records_are_judged_with_the_host_floor) {
  using gpubench::timing_method;
  // Host-driven work moves far more between processes (fitted host floor), so a 20% change is
  // within what identical code does and stays inconclusive; a 2x change is decided.
  const auto c = gpubench::compare_profiles(one_record(1e-3, timing_method::host_wall),
                                            one_record(1.2e-3, timing_method::host_wall), {});
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].result, gpubench::verdict::inconclusive);
  EXPECT_GT(c.records[0].resolvable, 0.2);
  const auto twice = gpubench::compare_profiles(one_record(1e-3, timing_method::host_wall),
                                                one_record(2e-3, timing_method::host_wall), {});
  EXPECT_EQ(twice.records[0].result, gpubench::verdict::slower);
  // The same 20% change timed on the device is decided.
  const auto d = gpubench::compare_profiles(one_record(1e-3, timing_method::cuda_events),
                                            one_record(1.2e-3, timing_method::cuda_events), {});
  EXPECT_EQ(d.records[0].result, gpubench::verdict::slower);
  EXPECT_LT(d.records[0].resolvable, 0.10);
}

TEST(compare_drift, the_largest_host_move_of_identical_code_is_no_false_alarm) {
  using gpubench::timing_method;
  // Chapter 1's 38 records, one of them 88% slower in the new process with both runs steady: what
  // training_step's eager baseline did between two processes of identical code on an H100 (77% on
  // a two-H200 host; docs/measurement.md, "The process floors"). A 95%-coverage host floor (9%)
  // called the 77% slower (exit 4), a 12% floor the 88%; the gate floor must not.
  gpubench::profile base = one_record(1e-3, timing_method::host_wall), next = base;
  for (std::int64_t i = 2; i <= 38; ++i) {
    gpubench::record r = base.records[0];
    r.size = gpubench::size_point({{"n", i}});
    base.records.push_back(r);
    next.records.push_back(r);
  }
  next.records[0] = one_record(1.88e-3, timing_method::host_wall).records[0];
  const auto c = gpubench::compare_profiles(base, next, {});
  ASSERT_EQ(c.records.size(), 38u);
  EXPECT_NE(c.records[0].result, gpubench::verdict::slower);
  EXPECT_EQ(c.count(gpubench::verdict::slower), 0u);
}

TEST(compare_drift, records_whose_bytes_cross_between_gpus_are_judged_with_the_peer_floor) {
  using gpubench::timing_method;
  const auto peer = [](double median) {
    gpubench::profile p = one_record(median, timing_method::cuda_events);
    p.records[0].declared.path = gpubench::bytes_path::peer;
    return p;
  };
  // 10% is decided for a kernel on one GPU, but chapter 8's small peer copies move up to 23%
  // between processes while their rounds agree, so there it stays inconclusive; 1.5x is decided.
  EXPECT_EQ(gpubench::compare_profiles(one_record(1e-3, timing_method::cuda_events),
                                       one_record(1.1e-3, timing_method::cuda_events), {})
                .records[0]
                .result,
            gpubench::verdict::slower);
  const auto c = gpubench::compare_profiles(peer(1e-3), peer(1.1e-3), {});
  EXPECT_EQ(c.records[0].result, gpubench::verdict::inconclusive);
  EXPECT_GT(c.records[0].resolvable, 0.10);
  EXPECT_EQ(gpubench::compare_profiles(peer(1e-3), peer(1.5e-3), {}).records[0].result, gpubench::verdict::slower);
}

TEST(compare_drift, history_spread_widens_the_interval) {
  using gpubench::timing_method;
  const auto base = one_record(1e-3, timing_method::host_wall);
  // Earlier runs wandered by about ±15%: a 20% change is then not distinguishable from drift...
  const std::vector<gpubench::profile> wild{one_record(1.15e-3, timing_method::host_wall),
                                            one_record(0.87e-3, timing_method::host_wall),
                                            one_record(1.1e-3, timing_method::host_wall)};
  const auto c = gpubench::compare_profiles(base, one_record(1.2e-3, timing_method::host_wall), {}, "b", "n", wild);
  EXPECT_EQ(c.records[0].runs, 4u);
  EXPECT_GT(c.records[0].drift, 0.1);
  EXPECT_EQ(c.records[0].result, gpubench::verdict::inconclusive);
  // ...while runs that agree within 0.5% do not narrow it below the host floor: a few calm runs
  // cannot bound a host-timed record's rare slow process. A 2x change is still decided.
  const std::vector<gpubench::profile> calm{one_record(1.004e-3, timing_method::host_wall),
                                            one_record(0.997e-3, timing_method::host_wall),
                                            one_record(1.002e-3, timing_method::host_wall)};
  const auto d = gpubench::compare_profiles(base, one_record(1.2e-3, timing_method::host_wall), {}, "b", "n", calm);
  EXPECT_EQ(d.records[0].result, gpubench::verdict::inconclusive);
  EXPECT_LT(d.records[0].drift, 0.01);
  const auto plain = gpubench::compare_profiles(base, one_record(1.2e-3, timing_method::host_wall), {});
  EXPECT_GE(d.records[0].resolvable, plain.records[0].resolvable * 0.99);
  EXPECT_EQ(d.records[0].limit, gpubench::limiting_term::floor);
  EXPECT_EQ(gpubench::compare_profiles(base, one_record(2e-3, timing_method::host_wall), {}, "b", "n", calm)
                .records[0]
                .result,
            gpubench::verdict::slower);
  // Device-timed records are narrowed by the same calm history.
  const auto dev = [](double m) { return one_record(m, timing_method::cuda_events); };
  const std::vector<gpubench::profile> calm_dev{dev(1.004e-3), dev(0.997e-3), dev(1.002e-3)};
  const auto e = gpubench::compare_profiles(dev(1e-3), dev(1.03e-3), {}, "b", "n", calm_dev);
  EXPECT_EQ(e.records[0].limit, gpubench::limiting_term::between_processes);
}

TEST(compare_drift, one_slow_process_in_seven_is_no_false_alarm_with_history) {
  using gpubench::timing_method;
  // bias_in_place's launch-bound 512x768x3072 size, host-timed, medians (us) of seven processes of
  // identical code on an H200 (docs/measurement.md, "History"): the third ran 15% slow while the
  // other six agreed within 4%. With five of the others as history, the slow one is not slower.
  const double us[] = {21.84, 21.46, 25.00, 22.21, 21.56, 21.41, 21.75};
  const auto run = [](double m) { return one_record(m * 1e-6, timing_method::host_wall); };
  const std::vector<gpubench::profile> history{run(us[1]), run(us[3]), run(us[4]), run(us[5]), run(us[6])};
  const auto c = gpubench::compare_profiles(run(us[0]), run(us[2]), {}, "b", "n", history);
  EXPECT_EQ(c.records[0].runs, 6u);
  EXPECT_NE(c.records[0].result, gpubench::verdict::slower);
}

TEST(compare_drift, repeated_history_runs_count_once) {
  using gpubench::timing_method;
  const auto base = one_record(1e-3, timing_method::host_wall);
  const auto next = one_record(1.2e-3, timing_method::host_wall);
  const std::vector<gpubench::profile> wild{one_record(1.15e-3, timing_method::host_wall),
                                            one_record(0.87e-3, timing_method::host_wall)};
  const auto once = gpubench::compare_profiles(base, next, {}, "b", "n", wild);
  // The same two runs given fifty times each, and a copy under another name with an edited host:
  // the drift, the interval and the verdict are those of the two runs.
  std::vector<gpubench::profile> repeated;
  for (int i = 0; i < 50; ++i) repeated.insert(repeated.end(), wild.begin(), wild.end());
  auto renamed = wild[0];
  renamed.prov.hostname = "another";
  repeated.push_back(renamed);
  const auto many = gpubench::compare_profiles(base, next, {}, "b", "n", repeated);
  EXPECT_EQ(many.history_runs, 2u);
  EXPECT_EQ(many.history_repeated_runs, 99u);
  EXPECT_EQ(many.records[0].runs, once.records[0].runs);
  EXPECT_EQ(many.records[0].drift, once.records[0].drift);
  EXPECT_EQ(many.records[0].ratio.low, once.records[0].ratio.low);
  EXPECT_EQ(many.records[0].result, once.records[0].result);
  EXPECT_NE(many.history_repeats_warning().find("99 --history runs repeated measurements already counted"),
            std::string::npos)
      << many.history_repeats_warning();
  EXPECT_EQ(once.history_repeats_warning(), "");
}

TEST(compare_drift, a_history_record_copied_from_the_base_is_left_out) {
  using gpubench::timing_method;
  auto base = one_record(1e-3, timing_method::host_wall);
  auto other = base.records[0];
  other.variant = "optimized";
  other.timing.samples_s = {2e-3, 2.1e-3, 1.9e-3, 2e-3, 2.05e-3, 1.95e-3};
  other.stats = gpubench::summarize(other.timing.samples_s);
  base.records.push_back(other);
  auto next = base;
  for (auto& r : next.records)
    for (double& s : r.timing.samples_s) s *= 1.01;
  // A history run whose first record is the base's own (copied in), the second a real earlier run.
  auto history = base;
  for (double& s : history.records[1].timing.samples_s) s *= 0.98;
  const auto c = gpubench::compare_profiles(base, next, {}, "b", "n", {history});
  EXPECT_EQ(c.history_repeated_runs, 0u);
  EXPECT_EQ(c.history_repeated_records, 1u);
  EXPECT_EQ(c.records[0].runs, 1u);  // the copy is not a second run of record 0
  EXPECT_EQ(c.records[1].runs, 2u);
}

TEST(compare_drift, sizes_skipped_on_both_sides_are_listed_not_judged) {
  auto a = one_record(1e-3, gpubench::timing_method::cuda_events);
  auto ran = a.records[0];
  ran.size = gpubench::size_point({{"n", std::int64_t{2}}});
  a.records[0].status = gpubench::record_status::skipped;
  a.records.push_back(ran);
  const auto c = gpubench::compare_profiles(a, a, {});
  ASSERT_EQ(c.records.size(), 1u);  // only the size that ran
  ASSERT_EQ(c.skipped_in_both.size(), 1u);
  EXPECT_EQ(gpubench::gate_exit_code(c, gpubench::fail_on::any), 0);
}

// ---- rounds (schema 2) ----

namespace {
/// A device-timed record of three rounds of 20 steady samples each, round r at `center * f[r]`.
gpubench::record rounds_record(const char* variant, double center, std::array<double, 3> f) {
  gpubench::record r = make_record("p", variant, {});
  for (int k = 0; k < 3; ++k) {
    for (double x : steady(center * f[k], 20)) r.timing.samples_s.push_back(x);
    r.timing.rounds.push_back({20, gpubench::stop_reason::converged, 0.05});
  }
  r.stats = gpubench::summarize(r.timing.samples_s);
  return r;
}
}  // namespace

TEST(compare_rounds, the_spread_of_round_medians_widens_the_interval) {
  // Same center (the mean of the log round medians), but one side's rounds spread 6%: the spread
  // of the per-round differences (here 3% sd) widens the interval within the run (/3 rounds). A
  // device-timed round is a fresh draw of what varies between processes, so the process term stays
  // the floor (noise_model.cpp, fitted(): no round factor for device-timed records).
  const auto steady_rounds = rounds_record("baseline", 1e-3, {1, 1, 1});
  const auto spread_rounds = rounds_record("baseline", 1e-3, {0.97, 1.0, 1.03});
  const auto tight = gpubench::compare_profiles(make_profile({steady_rounds}), make_profile({steady_rounds}), {});
  const auto wide = gpubench::compare_profiles(make_profile({steady_rounds}), make_profile({spread_rounds}), {});
  EXPECT_EQ(tight.records[0].result, gpubench::verdict::same);
  EXPECT_EQ(tight.records[0].rounds, (std::pair<std::size_t, std::size_t>{3, 3}));
  const double d_sd = 0.03;  // sd of log(0.97), 0, log(1.03), to 1e-4
  ASSERT_EQ(gpubench::detail::process_noise_model::fitted().round_factor_device, 0.0);
  EXPECT_NEAR(wide.records[0].log_sd * wide.records[0].log_sd,
              tight.records[0].log_sd * tight.records[0].log_sd + d_sd * d_sd / 3, 2e-6);
  EXPECT_GT(wide.records[0].resolvable, tight.records[0].resolvable);
}

TEST(compare_rounds, a_pattern_both_runs_share_by_round_position_cancels) {
  // Round 0 12% faster than rounds 1 and 2 in both runs (a power-capped GEMM's was 9-11% on an H200):
  // paired by position, the runs agree round for round, so the pattern is not noise and the
  // interval stays as tight as for steady rounds.
  const auto steady_rounds = rounds_record("baseline", 1e-3, {1, 1, 1});
  const auto patterned = rounds_record("baseline", 1e-3, {0.88, 1.0, 1.0});
  const auto steady = gpubench::compare_profiles(make_profile({steady_rounds}), make_profile({steady_rounds}), {});
  const auto same_pattern = gpubench::compare_profiles(make_profile({patterned}), make_profile({patterned}), {});
  EXPECT_EQ(same_pattern.records[0].result, gpubench::verdict::same);
  // (the samples pooled over rounds of two levels have a slightly larger median noise)
  EXPECT_NEAR(same_pattern.records[0].log_sd, steady.records[0].log_sd, 0.01 * steady.records[0].log_sd);
  EXPECT_LT(same_pattern.records[0].resolvable, 0.10);
  // Against steady rounds the same pattern is a difference between the runs, and it widens.
  const auto mixed = gpubench::compare_profiles(make_profile({steady_rounds}), make_profile({patterned}), {});
  EXPECT_GT(mixed.records[0].log_sd, 2 * steady.records[0].log_sd);
  // Host-timed records are not paired: their rounds' spread counts as before.
  auto host_patterned = patterned;
  host_patterned.timing.method = gpubench::timing_method::host_wall;
  auto host_steady = steady_rounds;
  host_steady.timing.method = gpubench::timing_method::host_wall;
  const auto host_same = gpubench::compare_profiles(make_profile({host_patterned}), make_profile({host_patterned}), {});
  const auto host_flat = gpubench::compare_profiles(make_profile({host_steady}), make_profile({host_steady}), {});
  EXPECT_GT(host_same.records[0].log_sd, host_flat.records[0].log_sd);
}

TEST(compare_rounds, speedups_pair_the_variants_round_by_round) {
  // Both variants drift together from round to round (clocks): each round's ratio is exactly 4,
  // so the speedup's own variance is tiny although each record's rounds spread 6%.
  const profile p = make_profile({rounds_record("baseline", 4e-3, {0.97, 1.0, 1.03}),
                                  rounds_record("optimized", 1e-3, {0.97, 1.0, 1.03})});
  const auto c = gpubench::compare_profiles(p, p, {});
  ASSERT_EQ(c.speedups.size(), 1u);
  EXPECT_NEAR(c.speedups[0].base_speedup, 4.0, 1e-9);
  EXPECT_NEAR(c.speedups[0].ratio.estimate, 1.0, 1e-12);
  // The interval still carries both records' between-process terms (the conservative end).
  EXPECT_GT(c.speedups[0].ratio.high, 1.0);
}

// ---- the figure both sides are judged on ----

namespace {
/// `r` as the default engine records it now: the event span less an empty span of `offset`
/// seconds measured before each round, the raw spans kept beside it.
gpubench::record net_of_empty_span(gpubench::record r, double offset) {
  r.timing.source = gpubench::time_source::cuda_events_net;
  r.timing.span_s = r.timing.samples_s;
  for (double& x : r.timing.samples_s) x -= offset;
  for (auto& round : r.timing.rounds) round.event_overhead_s = offset;
  r.stats = gpubench::summarize(r.timing.samples_s);
  return r;
}
}  // namespace

namespace {
/// Both sides of an ab session as compare reads them: `cycles` cycles over 8 pairs of workers
/// (cycle c on pair c mod 8, as gpubench ab schedules them), base at 0 and new at `diff(c)` (log).
std::pair<gpubench::detail::side_estimate, gpubench::detail::side_estimate> cycles_of(
    const std::function<double(int)>& diff, int cycles = 64) {
  gpubench::detail::side_estimate b, n;
  for (int c = 0; c < cycles; ++c) {
    for (auto* s : {&b, &n}) {
      s->round_process.push_back(c % 8);
      s->round_cycle.push_back(c);
    }
    b.round_logs.push_back(0.0);
    n.round_logs.push_back(diff(c));
  }
  return {b, n};
}
/// Small, even noise: cycle c's own share, within +-0.2%.
double jitter(int c) { return 0.001 * ((c * 7) % 5 - 2); }
}  // namespace

TEST(compare_cycles, a_wild_cycle_in_each_order_of_every_pair_barely_moves_the_center) {
  // Each pair of workers has one cycle 50% slow among its base-first cycles and one among its
  // new-first ones (a round that landed in a slow state): the plain mean of a pair's 8 cycles
  // would move by 10% and the center with it.
  const auto [b, n] = cycles_of([](int c) { return (c >= 8 && c < 24) ? 0.405 + jitter(c) : jitter(c); });
  const auto e = gpubench::detail::paired_cycles(b, n);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->groups, 8u);
  EXPECT_NEAR(e->center, 0.0, 0.002);
  EXPECT_LT(std::sqrt(e->group_var), 0.002);
}

TEST(compare_cycles, a_drift_that_favours_one_order_cancels_between_the_orders) {
  // Base-first cycles (c / 8 even) read 1% high and new-first ones 1% low, as a linear drift
  // makes them, around a true change of +2%, with one wild cycle: each pair's figure averages its
  // two orders' medians, so the drift cancels as in the plain mean.
  const auto [b, n] = cycles_of([](int c) {
    const double order = (c / 8) % 2 == 0 ? 0.01 : -0.01;
    return 0.02 + order + (c == 40 ? 0.5 : 0.0);
  });
  const auto e = gpubench::detail::paired_cycles(b, n);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->center, 0.02, 1e-12);
  EXPECT_NEAR(e->group_var, 0.0, 1e-20);
}

TEST(compare_cycles, the_spread_is_how_far_one_cycle_strays_and_a_few_wild_cycles_do_not_set_it) {
  // Cycles 2% either side of no change, and four of the 64 off by 50%: the scaled median absolute
  // deviation reads the 2%, where the standard deviation would read about 12%.
  const auto [b, n] = cycles_of([](int c) { return (c % 16 == 3 ? 0.5 : 0.0) + (c % 2 == 0 ? 0.02 : -0.02); });
  const auto e = gpubench::detail::paired_cycles(b, n);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->spread, gpubench::kMadToSigma * 0.02, 1e-12);
}

TEST(compare_cycles, a_wild_cycle_among_two_a_pair_is_reined_in_to_two_spreads) {
  // 16 cycles, two a pair: base-first cycles read +1% and new-first ones -1%, and pair 5's
  // new-first cycle read 40% slow. Its pair's figure, the mean of its two cycles, would be 17% and
  // the center 2.1%.
  const auto [b, n] = cycles_of([](int c) { return (c == 13 ? 0.336 : 0.0) + (c < 8 ? 0.01 : -0.01); }, 16);
  const auto e = gpubench::detail::paired_cycles(b, n);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->groups, 8u);
  EXPECT_EQ(e->wild, 1u);
  // Moved in to two spreads (2 x 1.48%) above its pair's other cycle: the pair's figure is 2.5%.
  EXPECT_NEAR(e->center, (0.01 + 0.01 + 2 * gpubench::kMadToSigma * 0.01) / 2 / 8, 1e-12);
  EXPECT_LT(std::sqrt(e->group_var), 0.01);
}

TEST(compare_cycles, a_pair_whose_workers_sit_at_another_level_keeps_its_offset) {
  // Pair 3 reads 9% slow in both of its cycles (its workers drew a slower placement) and every
  // pair's cycles 0.1% either side of that: the offset is between-process variance the interval
  // must carry, so nothing is reined in and the pairs' spread keeps it.
  const auto [b, n] = cycles_of([](int c) { return (c % 8 == 3 ? 0.09 : 0.0) + (c < 8 ? 0.001 : -0.001); }, 16);
  const auto e = gpubench::detail::paired_cycles(b, n);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->wild, 0u);
  EXPECT_NEAR(e->center, 0.09 / 8, 1e-12);
  // Seven figures at 0 and one at 0.09: sample variance 0.09^2 / 8.
  EXPECT_NEAR(e->group_var, 0.09 * 0.09 / 8, 1e-12);
}

TEST(compare_figures, a_profile_from_before_the_empty_span_meets_one_from_after_on_the_raw_span) {
  // A 5 us kernel whose raw span did not change: net of a 1.2 us empty span it reads 24% faster,
  // which is the definition changing, not the kernel. Judged on the raw spans it is the same.
  const auto before = rounds_record("baseline", 5e-6, {1, 1, 1});
  const auto after = net_of_empty_span(before, 1.2e-6);
  const auto c = gpubench::compare_profiles(make_profile({before}), make_profile({after}), {});
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_TRUE(c.records[0].figures_differ);
  EXPECT_EQ(c.records[0].figure, gpubench::time_source::cuda_events);
  EXPECT_EQ(c.records[0].result, gpubench::verdict::same);
  EXPECT_NEAR(c.records[0].new_median, c.records[0].base_median, 1e-12);
  // Both sides net of the empty span: judged on what they hold, and a real change still shows.
  auto slower = rounds_record("baseline", 5e-6 * 1.5, {1, 1, 1});
  const auto d = gpubench::compare_profiles(make_profile({after}), make_profile({net_of_empty_span(slower, 1.2e-6)}), {});
  EXPECT_FALSE(d.records[0].figures_differ);
  EXPECT_EQ(d.records[0].figure, gpubench::time_source::cuda_events_net);
  EXPECT_EQ(d.records[0].result, gpubench::verdict::slower);
  EXPECT_NEAR(d.records[0].ratio.estimate, (7.5 - 1.2) / (5.0 - 1.2), 1e-3);
  // Speedups of mixed profiles are ratios of raw spans on both sides too.
  const profile mixed_base = make_profile({before, rounds_record("optimized", 2.5e-6, {1, 1, 1})});
  const profile mixed_new = make_profile({after, net_of_empty_span(rounds_record("optimized", 2.5e-6, {1, 1, 1}), 1.2e-6)});
  const auto s = gpubench::compare_profiles(mixed_base, mixed_new, {});
  ASSERT_EQ(s.speedups.size(), 1u);
  EXPECT_NEAR(s.speedups[0].base_speedup, 2.0, 1e-9);
  EXPECT_NEAR(s.speedups[0].new_speedup, 2.0, 1e-9);
}

TEST(compare_figures, sides_with_no_common_figure_are_not_judged) {
  // GPU busy time without the spans beside it cannot meet the event span: say so, judge nothing.
  auto busy = rounds_record("baseline", 5e-6, {1, 1, 1});
  busy.timing.source = gpubench::time_source::gpu_busy;
  const auto c = gpubench::compare_profiles(make_profile({rounds_record("baseline", 5e-6, {1, 1, 1})}),
                                            make_profile({busy}), {});
  ASSERT_EQ(c.records.size(), 1u);
  EXPECT_EQ(c.records[0].result, gpubench::verdict::inconclusive);
  EXPECT_NE(c.records[0].note.find("measured different things (cuda_events vs gpu_busy)"), std::string::npos)
      << c.records[0].note;
}

TEST(compare_figures, history_is_read_as_the_figure_the_base_was_judged_on) {
  // Earlier runs from before the empty span was subtracted still measure the raw span: for a base
  // that is net of it they say nothing, for a raw-span comparison they count.
  using gpubench::timing_method;
  auto raw = [](double median) { return one_record(median, timing_method::cuda_events); };
  auto net = [](double median) {
    gpubench::profile p = one_record(median, timing_method::cuda_events);
    p.records[0] = net_of_empty_span(p.records[0], 1e-7);
    return p;
  };
  const std::vector<gpubench::profile> older{raw(1.0e-3), raw(1.001e-3), raw(0.999e-3)};
  const auto c = gpubench::compare_profiles(net(1.0002e-3), net(1.0003e-3), {}, "b", "n", older);
  EXPECT_EQ(c.records[0].runs, 1u);  // the older runs held another figure
  const std::vector<gpubench::profile> newer{net(1.0e-3), net(1.001e-3), net(0.999e-3)};
  EXPECT_EQ(gpubench::compare_profiles(net(1.0002e-3), net(1.0003e-3), {}, "b", "n", newer).records[0].runs, 4u);
  EXPECT_EQ(gpubench::compare_profiles(raw(1.0002e-3), net(1.0003e-3), {}, "b", "n", older).records[0].runs, 4u);
}

TEST(compare_rests, history_runs_that_rested_otherwise_are_left_out_of_the_drift_and_said_so) {
  // A base with rests, history back to back (from before rests, or --rest 0): their GEMMs ran at
  // the power cap, so their spread is not the base's drift.
  using gpubench::timing_method;
  auto run = [](double median, std::optional<double> rest) {
    gpubench::profile p = one_record(median, timing_method::cuda_events);
    if (rest) p.options["rest_ratio"] = *rest;
    return p;
  };
  const std::vector<gpubench::profile> back_to_back{run(1.0e-3, std::nullopt), run(1.001e-3, 0.0), run(0.999e-3, 0.0)};
  const auto c = gpubench::compare_profiles(run(1.0002e-3, 1.0), run(1.0003e-3, 1.0), {}, "b", "n", back_to_back);
  EXPECT_EQ(c.records[0].runs, 1u);
  EXPECT_EQ(c.history_rested_differently, 3u);
  EXPECT_NE(c.rest_differs_warning().find("3 of the 3 history runs rested differently from the base and were left out"),
            std::string::npos)
      << c.rest_differs_warning();
  const std::vector<gpubench::profile> rested{run(1.0e-3, 1.0), run(1.001e-3, 1.0), run(0.999e-3, 1.0)};
  const auto d = gpubench::compare_profiles(run(1.0002e-3, 1.0), run(1.0003e-3, 1.0), {}, "b", "n", rested);
  EXPECT_EQ(d.records[0].runs, 4u);
  EXPECT_EQ(d.history_rested_differently, 0u);
  EXPECT_EQ(d.rest_differs_warning(), "");
}

// ------------------------------------------------------------- refusing to pass on nothing

namespace {
/// Expects compare_profiles to refuse with exit code 2 and a message containing `needle`.
void expect_refused(const std::function<void()>& call, const std::string& needle) {
  try {
    call();
    ADD_FAILURE() << "compare_profiles accepted it; expected: " << needle;
  } catch (const gpubench::error& e) {
    EXPECT_EQ(e.code(), gpubench::exit_code::usage) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}
}  // namespace

TEST(compare_refuses, a_profile_without_records) {
  const auto one = one_record(1e-3, gpubench::timing_method::cuda_events);
  gpubench::profile empty = one;
  empty.records.clear();
  expect_refused([&] { (void)gpubench::compare_profiles(one, empty, {}, "b.json", "n.json"); },
                 "compare: n.json has no records, so there is nothing to compare");
  expect_refused([&] { (void)gpubench::compare_profiles(empty, one, {}, "b.json", "n.json"); },
                 "compare: b.json has no records");
}

TEST(compare_refuses, profiles_without_a_common_record) {
  auto ch2 = one_record(1e-3, gpubench::timing_method::cuda_events);
  auto ch3 = ch2;
  ch3.records[0].chapter = 3;
  expect_refused([&] { (void)gpubench::compare_profiles(ch2, ch3, {}, "ch01.json", "ch03.json"); },
                 "compare: ch01.json and ch03.json have no record in common (base: chapters 1, 1 records; new: "
                 "chapters 3, 1 records)");
  // Records that match but ran on neither side leave nothing to judge either.
  auto skipped = ch2;
  skipped.records[0].status = gpubench::record_status::skipped;
  expect_refused([&] { (void)gpubench::compare_profiles(skipped, skipped, {}); },
                 "no record in common that ran on either side");
}

TEST(compare_refuses, a_repeated_record_id) {
  auto twice = one_record(1e-3, gpubench::timing_method::cuda_events);
  twice.records.push_back(twice.records[0]);
  const auto once = one_record(1e-3, gpubench::timing_method::cuda_events);
  expect_refused([&] { (void)gpubench::compare_profiles(once, twice, {}, "b.json", "n.json"); },
                 "compare: n.json holds record ch01/p/baseline[n=1] twice");
}

TEST(compare_refuses, critical_below_threshold) {
  const auto p = one_record(1e-3, gpubench::timing_method::cuda_events);
  gpubench::compare_options o;
  o.threshold = 0.20;
  o.critical = 0.10;
  expect_refused([&] { (void)gpubench::compare_profiles(p, p, o); },
                 "compare: --critical 10% is below --threshold 20%");
  o.critical = 0.20;  // equal is fine: every slower verdict is then critical
  EXPECT_NO_THROW((void)gpubench::compare_profiles(p, p, o));
}

TEST(compare_refuses, history_that_is_the_base_or_the_new_run) {
  using gpubench::timing_method;
  const auto base = one_record(1e-3, timing_method::host_wall);
  const auto next = one_record(1.2e-3, timing_method::host_wall);
  auto copy = base;
  copy.prov.hostname = "edited";  // another file, the same measurements
  expect_refused([&] { (void)gpubench::compare_profiles(base, next, {}, "b", "n", {copy}, {"copy.json"}); },
                 "compare: --history copy.json holds the same measurements as the base profile");
  expect_refused([&] { (void)gpubench::compare_profiles(base, next, {}, "b", "n", {next}, {"n.json"}); },
                 "compare: --history n.json holds the same measurements as the new profile");
}

TEST(compare_refuses, history_from_another_gpu_or_chapter_set_unless_allowed) {
  using gpubench::timing_method;
  const auto base = one_record(1e-3, timing_method::host_wall);
  const auto next = one_record(1.2e-3, timing_method::host_wall);
  auto h100 = one_record(1.01e-3, timing_method::host_wall);
  h100.prov.device.name = "NVIDIA H100 80GB HBM3";
  auto more = one_record(0.99e-3, timing_method::host_wall);
  auto other = more.records[0];
  other.chapter = 2;
  more.records.push_back(other);
  expect_refused([&] { (void)gpubench::compare_profiles(base, next, {}, "b", "n", {h100}, {"h100.json"}); },
                 "compare: --history h100.json comes from another GPU (NVIDIA H100 80GB HBM3) than the base "
                 "(NVIDIA H200); its drift says nothing about the base's; pass --allow-mixed");
  expect_refused([&] { (void)gpubench::compare_profiles(base, next, {}, "b", "n", {more}, {"more.json"}); },
                 "compare: --history more.json holds chapters 1,2, the base chapters 1");
  gpubench::compare_options mixed;
  mixed.allow_mixed_history = true;
  const auto c = gpubench::compare_profiles(base, next, mixed, "b", "n", {h100, more}, {"h100.json", "more.json"});
  EXPECT_EQ(c.records[0].runs, 3u);
}

// ------------------------------------------------------------- every inconclusive says why

TEST(compare_notes, an_interval_across_the_threshold_says_so) {
  using gpubench::timing_method;
  // A 4% change with ±5% spread: the interval reaches past +5%.
  const auto c = gpubench::compare_profiles(one_record(1e-3, timing_method::cuda_events, 0.01),
                                            one_record(1.04e-3, timing_method::cuda_events, 0.01), {});
  ASSERT_EQ(c.records[0].result, gpubench::verdict::inconclusive);
  EXPECT_NE(c.records[0].note.find("spans the ±5% threshold"), std::string::npos) << c.records[0].note;
  EXPECT_EQ(c.records[0].note.rfind("interval +", 0), 0u) << c.records[0].note;
}

TEST(compare_notes, host_timed_inconclusive_says_what_would_decide_it) {
  using gpubench::timing_method;
  const auto c = gpubench::compare_profiles(one_record(1e-3, timing_method::host_wall),
                                            one_record(1.2e-3, timing_method::host_wall), {});
  EXPECT_EQ(c.records[0].result, gpubench::verdict::inconclusive);
  EXPECT_EQ(c.records[0].note.rfind("interval ", 0), 0u) << c.records[0].note;
  EXPECT_NE(c.records[0].note.find("host-timed"), std::string::npos) << c.records[0].note;
  EXPECT_NE(c.records[0].note.find("gpubench ab"), std::string::npos) << c.records[0].note;
}

// Chapter 1's finding: "20.5x -> 2.05x, inconclusive" with no word on why.
TEST(compare_notes, an_inconclusive_speedup_names_the_undecided_record) {
  using gpubench::timing_method;
  auto pair = [](double opt) {
    auto p = one_record(20e-3, timing_method::host_wall);
    auto v = one_record(opt, timing_method::host_wall).records[0];
    v.variant = "optimized";
    p.records.push_back(v);
    return p;
  };
  // 10x slower now reads as slower, and the lost speedup as shrunk.
  const auto slow = gpubench::compare_profiles(pair(1e-3), pair(10e-3), {});
  EXPECT_EQ(slow.records[1].result, gpubench::verdict::slower);
  EXPECT_EQ(slow.speedups[0].result, gpubench::verdict::slower);
  // 20% slower is within what host-timed work does between processes: the speedup's interval
  // spans the threshold, and its note says so.
  const auto c = gpubench::compare_profiles(pair(1e-3), pair(1.2e-3), {});
  ASSERT_EQ(c.speedups.size(), 1u);
  EXPECT_EQ(c.speedups[0].result, gpubench::verdict::inconclusive);
  EXPECT_EQ(c.speedups[0].note.rfind("speedup interval ", 0), 0u) << c.speedups[0].note;
  // A record that cannot be judged at all (too few samples) is named in the speedup's note.
  auto few = pair(1.2e-3);
  few.records[1].timing.samples_s.resize(3);
  few.records[1].stats = gpubench::summarize(few.records[1].timing.samples_s);
  const auto d = gpubench::compare_profiles(pair(1e-3), few, {});
  EXPECT_EQ(d.speedups[0].note.rfind("optimized record inconclusive; ", 0), 0u) << d.speedups[0].note;
  EXPECT_NE(d.speedups[0].note.find(d.records[1].note), std::string::npos) << d.speedups[0].note;
}

TEST(compare_rests, runs_that_rested_differently_are_named_and_unreadable_ratios_said_so) {
  // Back to back, a power-hungry GEMM runs at the cap; with rests it does not: the same code
  // reads faster. compare judges as usual but says the method differs.
  const auto rec = rounds_record("baseline", 700e-6, {1, 1, 1});
  gpubench::profile before = make_profile({rec});  // from before rests: no options.rest_ratio
  gpubench::profile rested = make_profile({rec});
  rested.options["rest_ratio"] = 1.0;
  const auto c = gpubench::compare_profiles(before, rested, {});
  EXPECT_EQ(c.base_rest, 0.0);
  EXPECT_EQ(c.new_rest, 1.0);
  EXPECT_NE(c.rest_differs_warning().find("(run --rest 0 vs 1)"), std::string::npos) << c.rest_differs_warning();
  EXPECT_EQ(gpubench::compare_profiles(rested, rested, {}).rest_differs_warning(), "");
  EXPECT_EQ(gpubench::compare_profiles(before, before, {}).rest_differs_warning(), "");
  for (const auto& bad : {nlohmann::ordered_json("1"), nlohmann::ordered_json(-1.0), nlohmann::ordered_json(1e9),
                          nlohmann::ordered_json(nullptr)}) {
    gpubench::profile odd = make_profile({rec});
    odd.options["rest_ratio"] = bad;
    const auto d = gpubench::compare_profiles(odd, rested, {});
    EXPECT_FALSE(d.base_rest.has_value()) << bad.dump();
    EXPECT_NE(d.rest_differs_warning().find("(run --rest unreadable vs 1)"), std::string::npos) << bad.dump();
  }
}

TEST(compareNoiseModel, FewMicrosecondDeviceRecordsGetTheAbsoluteFloor) {
  // 50 ns over a 4 us record is 1.25%, above the 0.8% relative floor; over 1 ms it is nothing.
  // Host-timed and peer records keep their own floors.
  using gpubench::bytes_path;
  using gpubench::time_source;
  const auto m = gpubench::detail::process_noise_model::fitted();
  gpubench::detail::side_estimate s;
  s.center = std::log(4e-6);
  EXPECT_NEAR(m.sd(time_source::cuda_events_net, bytes_path::dram, s), 50e-9 / 4e-6, 1e-12);
  EXPECT_DOUBLE_EQ(m.sd(time_source::host_wall, bytes_path::dram, s), m.floor_host);
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::peer, s), m.floor_peer);
  s.center = std::log(1e-3);
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::dram, s), m.floor_device);
  // Rounds that spread more than the floors: a device-timed record's spread is already in its
  // within-run variance (each round a fresh draw), so its process term stays the floor; a
  // host-timed or PCIe record's rounds agree while processes differ, so a spread beyond the floor
  // is taken as the process term too.
  s.round_sd = 0.2;
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::dram, s), m.floor_device);
  EXPECT_DOUBLE_EQ(m.sd(time_source::host_wall, bytes_path::dram, s), 0.2);
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::pcie, s), 0.2);
}

TEST(compare_devices, another_chip_of_the_same_model_is_named_without_its_uuid) {
  // Two H100s ran the same build 8.4% apart on a 1024^3 TF32 GEMM: the floors hold within a
  // machine, so compare says when base and new come from different chips of one model.
  const auto rec = make_record("gemm", "baseline", steady(1e-3));
  profile a = make_profile({rec}), b = make_profile({rec});
  auto c = gpubench::compare_profiles(a, b, {});
  EXPECT_FALSE(c.same_gpu().has_value());  // profiles without UUIDs cannot tell
  EXPECT_EQ(c.another_chip_warning(), "");
  a.prov.device.uuid = "GPU-27117f05-e353-6866-b8b9-25f694d16219";
  b.prov.device.uuid = a.prov.device.uuid;
  c = gpubench::compare_profiles(a, b, {});
  EXPECT_EQ(c.same_gpu(), true);
  EXPECT_EQ(c.another_chip_warning(), "");
  b.prov.device.uuid = "GPU-`touch /tmp/x`";  // untrusted text: it decides, it is not echoed
  c = gpubench::compare_profiles(a, b, {});
  EXPECT_EQ(c.same_gpu(), false);
  const std::string w = c.another_chip_warning();
  EXPECT_NE(w.find("two different GPUs of the same model"), std::string::npos) << w;
  EXPECT_EQ(w.find("touch"), std::string::npos) << w;
  EXPECT_EQ(w.find("GPU-"), std::string::npos) << w;
  // Different models: the model warning says it; this one stays quiet.
  const profile h200 = [&] { profile p = make_profile({rec}, "NVIDIA H100 80GB HBM3"); p.prov.device.uuid = "GPU-1"; return p; }();
  EXPECT_EQ(gpubench::compare_profiles(a, h200, {}).another_chip_warning(), "");
}

TEST(compareNoiseModel, DeviceTimedRecordsOverPcieGetTheirOwnFloor) {
  // overlap_pipeline's copies are device-timed, but the link moves between processes more than the
  // device floor allows (a 256 MiB pipeline: 6.3 vs 7.5 ms); peer and host records keep theirs.
  using gpubench::bytes_path;
  using gpubench::time_source;
  const auto m = gpubench::detail::process_noise_model::fitted();
  gpubench::detail::side_estimate s;
  s.center = std::log(6.5e-3);
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::pcie_duplex, s), m.floor_pcie);
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::pcie, s), m.floor_pcie);
  EXPECT_GT(m.floor_pcie, m.floor_device);
  EXPECT_DOUBLE_EQ(m.sd(time_source::host_wall, bytes_path::pcie, s), m.floor_host);
  s.round_sd = 0.05;
  EXPECT_DOUBLE_EQ(m.sd(time_source::cuda_events_net, bytes_path::pcie_duplex, s), 0.05);
}
