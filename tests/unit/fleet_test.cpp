/// Unit tests for the fleet report (gpubench/fleet.hpp) on synthetic fleets with known faults: 64
/// GPUs of one model, one 7% slower on its memory-bound records and one whose host↔device copies
/// take 40% longer (a bad PCIe link), must be flagged exactly there; 20 flat fleets must flag
/// nothing; a GPU of another model is kept apart; failed and missing tasks are named.
#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "gpubench/fleet.hpp"
#include "gpubench/fleet_report.hpp"
#include "gpubench/stats.hpp"
#include "test_support.hpp"

namespace {

using namespace gpubench;

/// One record of the synthetic fleet: what bounds it, its time, and how much it moves between
/// GPUs and processes (log sd) beyond its samples' own noise.
struct synthetic_record {
  std::string pair;
  std::int64_t n;
  std::string bound;
  double time_s;
  double between_sd;
  bool host_timed = false;
};

// Device-timed records move 0.4% between GPUs: two H100s' device-timed records differed by a
// median 0.34% (docs/measurement.md, "Across machines"); copies over PCIe 1%, a host-timed launch
// loop 8%.
const std::vector<synthetic_record> kRecords = {
    {"copy", 1 << 24, "dram", 2.1e-5, 0.004},
    {"copy", 1 << 26, "dram", 8.2e-5, 0.004},
    {"copy", 1 << 28, "dram", 3.2e-4, 0.004},
    {"transpose", 1 << 24, "dram", 4.0e-5, 0.004},
    {"reduce", 1 << 28, "dram", 1.7e-4, 0.004},
    {"fma_chain", 1 << 20, "fp32", 5.0e-5, 0.004},
    {"gemm", 4096, "fp32", 1.4e-3, 0.004},
    {"gemm", 8192, "bf16", 1.6e-3, 0.004},
    {"h2d_pinned", 1 << 24, "pcie", 1.3e-3, 0.01},
    {"d2h_pinned", 1 << 24, "pcie", 1.3e-3, 0.01},
    {"launch_loop", 100, "launch", 2.0e-4, 0.08, true},
};

struct fault {
  std::size_t gpu;
  std::string bound;  ///< the records it slows: those whose floor is bound by this
  double factor;      ///< their time × this
};

record make(const synthetic_record& s, double center, std::mt19937_64& rng) {
  record r{.chapter = 2, .pair = s.pair, .variant = "baseline", .size = size_point({{"n", axis_value{s.n}}})};
  r.timing.method = s.host_timed ? timing_method::host_wall : timing_method::cuda_events;
  std::normal_distribution<double> round_shift(0, 0.002), sample_noise(0, s.host_timed ? 0.02 : 0.005);
  for (int k = 0; k < 3; ++k) {  // three rounds of 20 samples, as a run's default rounds
    const double round_center = center * std::exp(round_shift(rng));
    for (int i = 0; i < 20; ++i) r.timing.samples_s.push_back(round_center * std::exp(sample_noise(rng)));
    r.timing.rounds.push_back({.samples = 20});
  }
  r.stats = summarize(r.timing.samples_s);
  r.floor = floor_info{.time_s = s.time_s * 0.8, .bound = s.bound, .fraction = 0.8};
  return r;
}

fleet_result gpu(std::size_t index, const std::string& model, const std::vector<fault>& faults, std::mt19937_64& rng) {
  fleet_result g;
  g.tags.job_id = "4242";
  g.tags.task = int(index);
  g.tags.tasks = 64;
  g.tags.node = "node" + std::to_string(index / 8);
  g.tags.gpu_uuid = "GPU-" + std::to_string(10000000 + index) + "-0000-0000-0000-000000000000";
  g.tags.gpu_name = model;
  g.source = "task-" + std::to_string(index);
  g.prof.prov.device.name = model;
  g.prof.complete = true;
  for (const auto& s : kRecords) {
    std::normal_distribution<double> between(0, s.between_sd);
    double t = s.time_s * std::exp(between(rng));
    for (const auto& f : faults)
      if (f.gpu == index && f.bound == s.bound) t *= f.factor;
    g.prof.records.push_back(make(s, t, rng));
  }
  return g;
}

fleet_job fleet(std::uint64_t seed, const std::vector<fault>& faults, std::size_t gpus = 64) {
  std::mt19937_64 rng(seed);
  fleet_job job;
  job.job_id = "4242";
  for (std::size_t i = 0; i < gpus; ++i) job.results.push_back(gpu(i, "NVIDIA H100 80GB HBM3", faults, rng));
  return job;
}

/// (gpu, record id) of every flagged cell, with its flag.
std::set<std::tuple<std::size_t, std::string, fleet_flag>> flags_of(const fleet_group& g) {
  std::set<std::tuple<std::size_t, std::string, fleet_flag>> out;
  for (std::size_t i = 0; i < g.gpus.size(); ++i)
    for (std::size_t k = 0; k < g.records.size(); ++k)
      if (g.cells[i][k].flag != fleet_flag::none)
        out.emplace(std::size_t(g.gpus[i].tags.task), g.records[k].id, g.cells[i][k].flag);
  return out;
}

std::string id_of(const synthetic_record& s) { return "ch02/" + s.pair + "/baseline[n=" + std::to_string(s.n) + "]"; }

TEST(fleetRank, FindsTheSlowMemoryAndTheBadPcieLinkOnTheirRecordsOnly) {
  // GPU 17: 7% slower on every memory-bound record; GPU 42: host↔device copies 40% slower.
  const fleet_ranking r = rank_fleet(fleet(1, {{17, "dram", 1.07}, {42, "pcie", 1.40}}));
  ASSERT_EQ(r.groups.size(), 1u);
  const fleet_group& g = r.groups[0];
  EXPECT_EQ(g.gpus.size(), 64u);
  std::set<std::tuple<std::size_t, std::string, fleet_flag>> want;
  for (const auto& s : kRecords) {
    if (s.bound == "dram") want.emplace(17, id_of(s), fleet_flag::slow);
    if (s.bound == "pcie") want.emplace(42, id_of(s), fleet_flag::slow);
  }
  EXPECT_EQ(flags_of(g), want);
  EXPECT_EQ(g.flagged_gpus().size(), 2u);
  // The two faulty GPUs rank slowest overall.
  EXPECT_GT(g.overall_ratio(17), 1.02);
  EXPECT_GT(g.overall_ratio(42), 1.05);
}

TEST(fleetRank, TwentyFlatFleetsFlagNothing) {
  std::size_t flagged = 0, cells = 0;
  for (std::uint64_t seed = 100; seed < 120; ++seed) {
    const fleet_ranking r = rank_fleet(fleet(seed, {}));
    ASSERT_EQ(r.groups.size(), 1u);
    flagged += r.groups[0].flagged_cells();
    for (const auto& row : r.groups[0].cells)
      for (const auto& c : row) cells += c.ranked ? 1 : 0;
  }
  EXPECT_EQ(flagged, 0u);
  EXPECT_EQ(cells, 20u * 64u * kRecords.size());  // every cell was ranked, none skipped
}

TEST(fleetRank, ASevenPercentSlowGpuIsFlaggedInEveryOneOfTwentyFleets) {
  for (std::uint64_t seed = 200; seed < 220; ++seed) {
    const fleet_ranking r = rank_fleet(fleet(seed, {{3, "dram", 1.07}}));
    std::set<std::tuple<std::size_t, std::string, fleet_flag>> want;
    for (const auto& s : kRecords)
      if (s.bound == "dram") want.emplace(3, id_of(s), fleet_flag::slow);
    EXPECT_EQ(flags_of(r.groups[0]), want) << "seed " << seed;
  }
}

TEST(fleetRank, AFastGpuIsFlaggedFast) {
  const fleet_ranking r = rank_fleet(fleet(7, {{5, "fp32", 0.85}}));
  for (const auto& [gpu, id, flag] : flags_of(r.groups[0])) {
    EXPECT_EQ(gpu, 5u);
    EXPECT_EQ(flag, fleet_flag::fast);
  }
  EXPECT_EQ(flags_of(r.groups[0]).size(), 2u);  // the two fp32-bound records
}

TEST(fleetRank, AGpuOfAnotherModelIsKeptApart) {
  fleet_job job = fleet(3, {});
  std::mt19937_64 rng(99);
  // An A100 is much slower on everything: averaged in, it would be flagged on every record.
  fleet_result other = gpu(64, "NVIDIA A100-SXM4-80GB", {{64, "dram", 1.6}, {64, "fp32", 2.5}}, rng);
  job.results.push_back(other);
  const fleet_ranking r = rank_fleet(job);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.groups[0].gpus.size(), 64u);
  EXPECT_EQ(r.groups[0].flagged_cells(), 0u);
  EXPECT_EQ(r.groups[1].model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r.groups[1].gpus.size(), 1u);
  EXPECT_NE(r.groups[1].not_ranked.find("ranking needs at least 5"), std::string::npos);
  const std::string text = fleet_console(r);
  EXPECT_NE(text.find("Kept apart, another model than the fleet's NVIDIA H100 80GB HBM3:"), std::string::npos) << text;
}

TEST(fleetRank, TwoGpusAreNotRankedButTheSlowerIsNamedFirst) {
  // One host's two GPUs, the second 30% slower on its memory-bound records: too few for a spread
  // to rank against, so nothing is flagged, but each GPU's ratio to their median orders them.
  const fleet_ranking r = rank_fleet(fleet(5, {{1, "dram", 1.30}}, 2));
  ASSERT_EQ(r.groups.size(), 1u);
  const fleet_group& g = r.groups[0];
  EXPECT_NE(g.not_ranked.find("2 GPUs of this model; ranking needs at least 5"), std::string::npos);
  EXPECT_EQ(g.flagged_cells(), 0u);
  EXPECT_GT(g.overall_ratio(1), 1.05);
  EXPECT_LT(g.overall_ratio(0), 1 / 1.05);
  for (std::size_t k = 0; k < g.records.size(); ++k) {
    EXPECT_TRUE(g.cells[1][k].relative);
    EXPECT_FALSE(g.cells[1][k].ranked);
    // Two GPUs' median is their geometric mean: their ratios are reciprocal.
    EXPECT_NEAR(g.cells[0][k].ratio * g.cells[1][k].ratio, 1.0, 1e-12);
  }
  const std::string text = fleet_console(r);
  const std::size_t slow = text.find("node0 GPU-10000001 (task 1)");
  const std::size_t fast = text.find("node0 GPU-10000000 (task 0)");
  ASSERT_NE(slow, std::string::npos) << text;
  ASSERT_NE(fast, std::string::npos) << text;
  EXPECT_LT(slow, fast) << text;                            // the slower first
  EXPECT_NE(text.find("+14."), std::string::npos) << text;  // sqrt(1.3) = 1.140: +14.x% on a dram record
  // One GPU alone has nothing to be compared with.
  const fleet_ranking one = rank_fleet(fleet(6, {}, 1));
  for (const auto& c : one.groups[0].cells[0]) EXPECT_FALSE(c.relative);
}

TEST(fleetHtml, TwoGpusAreListedSlowestFirstAsTheConsoleListsThem) {
  const fleet_ranking r = rank_fleet(fleet(5, {{1, "dram", 1.30}}, 2));
  const std::string page = html_fleet_page(r, "gpubench test");
  const std::size_t slow = page.find("node0 GPU-10000001");
  const std::size_t fast = page.find("node0 GPU-10000000");
  ASSERT_NE(slow, std::string::npos) << page;
  ASSERT_NE(fast, std::string::npos) << page;
  EXPECT_LT(slow, fast);                                        // the slower first
  EXPECT_NE(page.find("+14."), std::string::npos);              // sqrt(1.3) = 1.140 on a dram record
  EXPECT_EQ(page.find("<h3>Flagged</h3>"), std::string::npos);  // listed, never flagged
}

TEST(fleetRank, NamesFailedAndMissingTasksAndSilentNodes) {
  fleet_job job = fleet(4, {}, 6);
  job.manifest =
      fleet_manifest{.job_id = "4242", .tasks = 12, .nodes = {"a01", "a02", "a03"}, .tasks_per_node = {4, 4, 4}};
  for (std::size_t i = 0; i < 6; ++i) job.results[i].tags.node = i < 4 ? "a01" : "a02";
  fleet_failure f;
  f.tags.job_id = "4242";
  f.tags.task = 6;
  f.tags.node = "a02";
  f.reason = "gpubench run exited 1 without a profile: no CUDA device";
  job.failures.push_back(f);
  const fleet_ranking r = rank_fleet(job);
  EXPECT_EQ(r.expected_tasks, 12);
  ASSERT_EQ(r.missing.size(), 5u);  // task 7 on a02, tasks 8..11 on a03
  EXPECT_EQ(r.missing[0].task, 7);
  EXPECT_EQ(r.missing[0].node, "a02");
  EXPECT_EQ(r.missing[1].node, "a03");
  EXPECT_EQ(r.silent_nodes, std::vector<std::string>{"a03"});
  const std::string text = fleet_console(r);
  EXPECT_NE(text.find("  task 6 on a02:\n    gpubench run exited 1 without a profile: no CUDA device\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("task 7 on a02"), std::string::npos);
  EXPECT_NE(text.find("Nodes that stored no profile: a03"), std::string::npos);
}

TEST(fleetRank, NodeOfTaskFollowsBlockDistribution) {
  const fleet_manifest m{.job_id = "1", .tasks = 5, .nodes = {"x", "y"}, .tasks_per_node = {3, 2}};
  EXPECT_EQ(node_of_task(m, 0), "x");
  EXPECT_EQ(node_of_task(m, 2), "x");
  EXPECT_EQ(node_of_task(m, 3), "y");
  EXPECT_EQ(node_of_task(m, 5), "");
  EXPECT_EQ(node_of_task(fleet_manifest{.nodes = {"x"}}, 0), "");
}

TEST(fleetRank, SameGpuTwiceCountsOnce) {
  fleet_job job = fleet(5, {}, 6);
  job.results.push_back(job.results[0]);
  job.results.back().tags.task = 6;
  const fleet_ranking r = rank_fleet(job);
  EXPECT_EQ(r.gpu_count(), 6u);
  ASSERT_EQ(r.unreadable.size(), 1u);
  EXPECT_NE(r.unreadable[0].find("already reported by another task"), std::string::npos);
}

TEST(fleetRank, RefusesOptionsOutOfRange) {
  EXPECT_NE(usage_message([] { rank_fleet(fleet_job{}, fleet_options{.band = 0}); }).find("--band"), std::string::npos);
  EXPECT_NE(usage_message([] { rank_fleet(fleet_job{}, fleet_options{.alpha = 1.5}); }).find("--alpha"),
            std::string::npos);
}

std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (const unsigned char c : line) n += (c & 0xc0) != 0x80 ? 1 : 0;
  return n;
}

TEST(fleetConsole, FitsEightyColumnsAndListsTheFlags) {
  fleet_job job = fleet(1, {{17, "dram", 1.07}, {42, "pcie", 1.40}});
  job.results[17].tags.node = std::string(120, 'n');  // a long node name is cut, not wrapped
  const std::string text = fleet_console(rank_fleet(job));
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl - start);
    EXPECT_LE(columns(line), 80u) << line;
    start = nl + 1;
  }
  EXPECT_NE(text.find("2 GPUs flagged"), std::string::npos) << text;
  EXPECT_NE(text.find("slow on 5 records"), std::string::npos) << text;
  EXPECT_NE(text.find("slow on 2 records"), std::string::npos) << text;
  EXPECT_NE(text.find("ch02/h2d_pinned/baseline[n=16777216]"), std::string::npos) << text;
}

TEST(fleetHtml, DrawsOneCellPerGpuAndRecordAndOutlinesTheFlagged) {
  fleet_job job = fleet(1, {{17, "dram", 1.07}, {42, "pcie", 1.40}});
  job.results[0].tags.node = "<script>alert(1)</script>";
  const fleet_ranking r = rank_fleet(job);
  const std::string page = html_fleet_page(r, "gpubench test");
  std::size_t rects = 0, outlined = 0;
  for (std::size_t at = 0; (at = page.find("<rect ", at)) != std::string::npos; ++at) ++rects;
  for (std::size_t at = 0; (at = page.find("stroke=\"#111\"", at)) != std::string::npos; ++at) ++outlined;
  EXPECT_EQ(rects, 64u * kRecords.size());
  EXPECT_EQ(outlined, r.groups[0].flagged_cells());
  EXPECT_EQ(outlined, 7u);  // five memory-bound records of GPU 17, two copies of GPU 42
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
}

}  // namespace
