/// End-to-end tests of the gpubench binary (GPUBENCH_EXE): help, list, and every argument error
/// that must be caught before a GPU is touched, with the documented exit codes (0 success,
/// 1 runtime failure, 2 usage). Output is stdout and stderr together.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

using result = shell_result;

/// Runs `gpubench ARGS` (through /bin/sh, optionally in `cwd`) and captures stdout+stderr.
/// `stderr_too` false: stdout only (stderr goes where the test's own stderr goes).
result gpubench(const std::string& args, const std::string& cwd = "", bool stderr_too = true) {
  std::string cmd;
  if (!cwd.empty()) cmd = "cd '" + cwd + "' && ";
  cmd += std::string("'") + GPUBENCH_EXE + "' " + args + (stderr_too ? " 2>&1" : " 2>/dev/null");
  return run_shell(cmd);
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }


bool no_gpu() {
  static const bool none = [] {
    const auto r = gpubench("device");
    return r.status == 1 && has(r.output, "No CUDA device");
  }();
  return none;
}

TEST(Cli, Version) {
  const auto r = gpubench("--version");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "gpubench 0.")) << r.output;
}

TEST(Cli, Help) {
  const auto r = gpubench("--help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s : {"list", "device", "run", "Exit codes"}) EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
}

TEST(Cli, RunHelpListsEveryOption) {
  const auto r = gpubench("run --help");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s : {"--chapter", "--pair", "--axis", "--out", "--quick", "--max-noise", "--min-samples", "--timeout",
                        "--rounds", "--max-rounds", "--rest", "--profile", "--metrics", "Exit codes", "130 run: interrupted by Ctrl-C"})
    EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
}

TEST(Cli, ListWorksWithoutGpu) {
  const auto r = gpubench("list");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s : {"Chapter 1", "batched_gemm", "cuda_graphs", "pinned_transfers"})
    EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
}

TEST(Cli, ListJson) {
  const auto r = gpubench("list --json");  // list writes nothing to stderr, so this is pure JSON
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(j.is_discarded()) << r.output;
  ASSERT_TRUE(j.is_array());
  const nlohmann::json* ch1 = nullptr;
  for (const auto& c : j)
    if (c.value("chapter", 0) == 1) ch1 = &c;
  ASSERT_NE(ch1, nullptr) << r.output;
  ASSERT_TRUE(ch1->contains("pairs"));
  const auto& pairs = (*ch1)["pairs"];
  ASSERT_EQ(pairs.size(), 4u) << pairs.dump(2);
  for (const auto& p : pairs) {
    EXPECT_TRUE(has(p.value("id", ""), "ch01/")) << p.dump();
    ASSERT_TRUE(p.contains("variants")) << p.dump();
    EXPECT_GE(p["variants"].size(), 2u) << p.dump();
    EXPECT_FALSE(p.value("explanation", "").empty()) << p.dump();
    EXPECT_TRUE(p.contains("axes")) << p.dump();
  }
}

// A tuning pair lists its grid and its baseline instead of tens of configuration names.
TEST(Cli, ListShowsATuningGrid) {
  // 200 columns: the grid stays on one line (wrapping to the console: console_width_test.cpp).
  const auto r = run_shell("COLUMNS=200 '" + std::string(GPUBENCH_EXE) + "' list --chapter 6 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "Chapter 6 — Occupancy, ILP, divergence and autotuning")) << r.output;
  EXPECT_TRUE(has(r.output, "grid:     b ∈ {64,128,256,512,1024} (threads per block) × e ∈ {1,2,4,8} (float4 of x "
                            "and of y per thread): 20 configurations; baseline b256_e1"))
      << r.output;
  EXPECT_TRUE(has(r.output, ", where b*k <= 2048: 26 configurations; baseline b256_k8")) << r.output;
  EXPECT_TRUE(has(r.output, "variants: min_blocks_1 → min_blocks_4 → min_blocks_8 → max_regs_24")) << r.output;
  EXPECT_FALSE(has(r.output, "b64_e1 →")) << r.output;

  const auto j = nlohmann::json::parse(gpubench("list --chapter 6 --json", "", false).output, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const nlohmann::json* axpy = nullptr;
  for (const auto& p : j.at(0).at("pairs"))
    if (p.value("name", "") == "autotune_axpy") axpy = &p;
  ASSERT_NE(axpy, nullptr) << j.dump(2);
  const auto& t = axpy->at("tuning");
  EXPECT_EQ(t.at("baseline"), "b256_e1");
  EXPECT_EQ(t.at("configurations"), 20);
  EXPECT_EQ(t.at("params").at(1).at("tag"), "e");
  EXPECT_EQ(t.at("params").at(1).at("values"), nlohmann::json::array({1, 2, 4, 8}));
  EXPECT_EQ(axpy->at("variants").size(), 20u);
  EXPECT_EQ(axpy->at("variants").at(0).at("name"), "b256_e1");
}

TEST(Cli, ListChapter7) {
  // Chapter 7's pairs are declared like every other; the sm_90-only ones must still be listed on a
  // machine without a GPU (their State, not their declaration, checks the compute capability).
  const auto r = gpubench("list --json --chapter 7");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(j.is_array() && j.size() == 1u) << r.output;
  EXPECT_EQ(j[0].value("slug", ""), "async_hopper");
  std::vector<std::string> names;
  for (const auto& p : j[0]["pairs"]) {
    names.push_back(p.value("name", ""));
    EXPECT_GE(p["variants"].size(), 2u) << p.dump();
    EXPECT_FALSE(p.value("explanation", "").empty()) << p.dump();
    // The smallest size of every axis stays small: the GPU test and the sanitizer runs use it.
    for (const auto& [axis, values] : p["axes"].items()) {
      ASSERT_FALSE(values.empty()) << p.dump();
      EXPECT_LE(values.front().get<std::int64_t>(), std::int64_t(1) << 20) << p.value("name", "") << " " << axis;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cluster_histogram", "persistent_tiles", "sgemm_ladder", "tile_pipeline",
                                             "tma_copy"}));
  // The SGEMM ladder runs from the naive kernel (the baseline) to cuBLAS (the library reference).
  for (const auto& p : j[0]["pairs"])
    if (p.value("name", "") == "sgemm_ladder") {
      EXPECT_EQ(p["variants"].front().value("name", ""), "naive");
      EXPECT_EQ(p["variants"].back().value("name", ""), "cublas");
    }
}

TEST(Cli, ListUnknownChapter) {
  const auto r = gpubench("list --chapter 42");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "no chapter 42")) << r.output;
  EXPECT_TRUE(has(r.output, "valid chapters: 1 (")) << r.output;
}

TEST(Cli, RunWithoutSelection) {
  const auto r = gpubench("run");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--chapter")) << r.output;
}

TEST(Cli, RunUnknownPair) {
  const auto r = gpubench("run --chapter 1 --pair nope");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "no pair 'nope'")) << r.output;
  EXPECT_TRUE(has(r.output, "batched_gemm, cuda_graphs, pinned_transfers")) << r.output;
}

TEST(Cli, RunSeveralChaptersWithAPairIsRefused) {
  // A pair's id names its chapter; with several chapters a bare name would be ambiguous.
  for (const char* args : {"run --chapter 2,3 --pair transpose", "run --chapter 2 --chapter 3 --pair ch02/transpose"}) {
    const auto r = gpubench(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--pair with more than one --chapter")) << r.output;
  }
}

TEST(Cli, RunSeveralChaptersNamesAnUnknownOne) {
  const auto r = gpubench("run --chapter 2,42");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "no chapter 42")) << r.output;
}

TEST(Cli, RunPairIdMustMatchItsChapter) {
  // A full id selects across chapters; its chapter part is not ignored.
  const auto r = gpubench("run --pair ch42/batched_gemm");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "no pair 'ch42/batched_gemm'")) << r.output;
  EXPECT_EQ(gpubench("run --pair ch01/nope").status, 2);
  EXPECT_EQ(gpubench("run --chapter 1 --pair ch02/cuda_graphs").status, 2);
}

TEST(Cli, RunBadAxisValue) {
  const auto r = gpubench("run --chapter 1 --axis size_mib=abc");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "'abc' is not a positive integer")) << r.output;
}

TEST(Cli, RunUnknownAxis) {
  const auto r = gpubench("run --chapter 1 --axis nosuch=1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "'nosuch'")) << r.output;
}

TEST(Cli, RunMalformedAxis) {
  const auto r = gpubench("run --chapter 1 --axis size_mib=");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "NAME=V1")) << r.output;
}

TEST(Cli, RunOutOfRangeOptions) {
  EXPECT_EQ(gpubench("run --chapter 1 --max-noise -1").status, 2);
  EXPECT_EQ(gpubench("run --chapter 1 --max-noise 0").status, 2);
  EXPECT_EQ(gpubench("run --chapter 0").status, 2);
  EXPECT_EQ(gpubench("run --chapter 1 --min-samples 0").status, 2);
  EXPECT_EQ(gpubench("run --chapter 1 --max-rounds 0").status, 2);
  EXPECT_EQ(gpubench("run --chapter 1 --max-rounds 101").status, 2);
}

TEST(Cli, RunOutInMissingDirectory) {
  const auto r = gpubench("run --chapter 1 --out /nonexistent-dir/x.json");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "does not exist")) << r.output;
  EXPECT_FALSE(fs::exists("/nonexistent-dir/x.json"));
}

TEST(Cli, RunOutIsADirectory) {
  temp_dir d;
  ASSERT_FALSE(d.path.empty());
  const auto r = gpubench("run --chapter 1 --out '" + d.path.string() + "'");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "is a directory")) << r.output;
  EXPECT_TRUE(d.empty());
}

TEST(Cli, UnknownSubcommand) {
  const auto r = gpubench("bogus-subcommand");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "metrics")) << r.output;  // the list of commands names every command
}

TEST(Cli, MetricsListOfflineForANamedChip) {
#if defined(__SANITIZE_ADDRESS__)
  // The binary is the ASan build too; CUPTI dlopens libnvperf_host.so with RTLD_DEEPBIND, which
  // ASan refuses (github.com/google/sanitizers/issues/611).
  GTEST_SKIP() << "ASan build: the CUPTI host library cannot be loaded under AddressSanitizer";
#endif
  const auto r = gpubench("metrics --list --chip GH100");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s : {"checked against GH100", "default", "roofline", "pass(es) per variant on GH100",
                        "dram__bytes_read.sum  [byte]", "sm__ops_path_tensor_src_fp16_dst_fp32.sum  (not on this chip"})
    EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
  const auto j = gpubench("metrics --json --chip GH100");
  ASSERT_EQ(j.status, 0) << j.output;
  const auto doc = nlohmann::json::parse(j.output);
  EXPECT_EQ(doc["chip"], "GH100");
  EXPECT_EQ(doc["sets"][0]["name"], "default");
  EXPECT_GE(doc["sets"][0]["passes"].get<int>(), 1);
  const auto bad = gpubench("metrics --chip GX999");  // the user's mistake: exit 2
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_TRUE(has(bad.output, "--chip GX999: the CUPTI in this build has no metric tables for it")) << bad.output;
  EXPECT_TRUE(has(bad.output, "GX999") && has(bad.output, "GH100")) << bad.output;
}

TEST(Cli, MetricsListWithoutGpuOrChip) {
  if (!no_gpu()) GTEST_SKIP() << "a CUDA device is present: the list is checked against it";
  const auto r = gpubench("metrics");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "pass --chip GH100")) << r.output;
  EXPECT_TRUE(has(r.output, "gpu__time_duration.sum")) << r.output;
}

// ------------------------------------------------------------------ compare and export on files

/// A committed profile (profiles/reference/NAME), as JSON to edit.
nlohmann::ordered_json committed(const std::string& name) {
  std::ifstream in(fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / name);
  return nlohmann::ordered_json::parse(in);
}

/// Writes `j` to DIR/NAME and returns the quoted path for a command line.
std::string put(const temp_dir& d, const std::string& name, const nlohmann::ordered_json& j) {
  std::ofstream(d.path / name) << j.dump(1);
  return "'" + (d.path / name).string() + "'";
}

std::string profile_path(const std::string& name) {
  return "'" + (fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / name).string() + "'";
}

/// Display width of a UTF-8 line (code points; the console prints no wide characters).
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xc0) != 0x80;
  return n;
}

TEST(CliCompare, RefusesAProfileWithoutRecords) {
  temp_dir d;
  auto j = committed("h200-ch01.json");
  j["records"] = nlohmann::ordered_json::array();
  const std::string empty = put(d, "empty.json", j);
  for (const char* policy : {"slower", "any"}) {
    const auto r = gpubench("compare " + profile_path("h200-ch01.json") + " " + empty + " --fail-on " + policy);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(has(r.output, "empty.json has no records, so there is nothing to compare")) << r.output;
  }
}

// compare judges a side too noisy above --noise-limit. Its old name, --max-noise (which reads as
// run's stopping target), still works and says once, on stderr, what to use instead.
TEST(CliCompare, NoiseLimitAndItsDeprecatedName) {
  const std::string pair = profile_path("h200-ch01.json") + " " + profile_path("h200-ch01-r2.json");
  const auto limit_in = [](const result& r) {
    return nlohmann::json::parse(r.output)["options"]["max_noise"].get<double>();  // the JSON keeps its key
  };
  const auto by_default = gpubench("compare " + pair + " --json -", "", /*stderr_too=*/false);
  ASSERT_NE(by_default.status, 2) << by_default.output;
  EXPECT_DOUBLE_EQ(limit_in(by_default), 0.05);
  const auto limit = gpubench("compare " + pair + " --noise-limit 2 --json -", "", /*stderr_too=*/false);
  ASSERT_NE(limit.status, 2) << limit.output;
  EXPECT_DOUBLE_EQ(limit_in(limit), 0.02);
  const auto old_name = gpubench("compare " + pair + " --max-noise 2 --json -", "", /*stderr_too=*/false);
  ASSERT_NE(old_name.status, 2) << old_name.output;
  EXPECT_DOUBLE_EQ(limit_in(old_name), 0.02);
  EXPECT_EQ(old_name.status, limit.status);

  // The warning: one line, on stderr only; none for the new name.
  const std::string exe = std::string("'") + GPUBENCH_EXE + "' compare " + pair;
  const auto warned = run_shell(exe + " --max-noise 2 2>&1 >/dev/null");
  std::size_t lines = 0;
  for (std::size_t at = warned.output.find("deprecated"); at != std::string::npos;
       at = warned.output.find("deprecated", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << warned.output;
  EXPECT_TRUE(has(warned.output, "gpubench: warning: compare --max-noise is deprecated; use --noise-limit\n"))
      << warned.output;
  EXPECT_FALSE(has(run_shell(exe + " --noise-limit 2 2>&1 >/dev/null").output, "deprecated"));
  EXPECT_FALSE(has(gpubench("compare " + pair + " --max-noise 2", "", /*stderr_too=*/false).output, "deprecated"));

  const auto both = gpubench("compare " + pair + " --max-noise 2 --noise-limit 3");
  EXPECT_EQ(both.status, 2) << both.output;
  EXPECT_TRUE(has(both.output, "give --noise-limit only")) << both.output;
  const auto help = gpubench("compare --help");
  EXPECT_TRUE(has(help.output, "--noise-limit")) << help.output;
  EXPECT_FALSE(has(help.output, "--max-noise")) << "the old name is not advertised\n" << help.output;
}

TEST(CliCompare, RefusesProfilesWithNoRecordInCommon) {
  const auto r = gpubench("compare " + profile_path("h100-ch02.json") + " " + profile_path("h100-ch03.json"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "have no record in common (base: chapters 2, 32 records; new: chapters 3, 22 records)"))
      << r.output;
}

TEST(CliCompare, RefusesCriticalBelowThreshold) {
  const auto r = gpubench("compare " + profile_path("h200-ch01.json") + " " + profile_path("h200-ch01-r2.json") +
                          " --threshold 20 --critical 10");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--critical 10 is below --threshold 20")) << r.output;
  // --threshold alone above the default critical (15) raises critical with it rather than refusing.
  const auto alone = gpubench("compare " + profile_path("h200-ch01.json") + " " + profile_path("h200-ch01-r2.json") +
                              " --threshold 20");
  EXPECT_NE(alone.status, 2) << alone.output;
  EXPECT_TRUE(has(alone.output, "verdicts at ±20.0% (critical 20.0%)")) << alone.output;
}

TEST(CliCompare, RefusesHistoryThatIsTheBaseOrFromAnotherGpu) {
  temp_dir d;
  const std::string base = profile_path("h200-ch01.json"), next = profile_path("h200-ch01-r2.json");
  const auto self = gpubench("compare " + base + " " + next + " --history " + base);
  EXPECT_EQ(self.status, 2) << self.output;
  EXPECT_TRUE(has(self.output, "holds the same measurements as the base profile")) << self.output;
  // A renamed copy with edited provenance is still the base.
  auto j = committed("h200-ch01.json");
  j["provenance"]["hostname"] = "elsewhere";
  const auto copy = gpubench("compare " + base + " " + next + " --history " + put(d, "copy.json", j));
  EXPECT_EQ(copy.status, 2) << copy.output;
  EXPECT_TRUE(has(copy.output, "copy.json holds the same measurements as the base profile")) << copy.output;
  const auto h100 = gpubench("compare " + base + " " + next + " --history " + profile_path("h100-ch01-r2.json"));
  EXPECT_EQ(h100.status, 2) << h100.output;
  EXPECT_TRUE(has(h100.output, "comes from another GPU (NVIDIA H100 80GB HBM3) than the base (NVIDIA H200)"))
      << h100.output;
  EXPECT_TRUE(has(h100.output, "--allow-mixed")) << h100.output;
  const auto chapters = gpubench("compare " + base + " " + next + " --history " + profile_path("h100-ch02.json") +
                                 " --history " + profile_path("h200-ch01-r3.json"));
  EXPECT_EQ(chapters.status, 2) << chapters.output;
  const auto mixed = gpubench("compare " + base + " " + next + " --allow-mixed --history " +
                              profile_path("h100-ch01-r2.json") + " " + profile_path("h200-ch01-r3.json"));
  EXPECT_NE(mixed.status, 2) << mixed.output;
  EXPECT_TRUE(has(mixed.output, "run-to-run drift estimated from the base and 2 earlier runs")) << mixed.output;
}

TEST(CliCompare, RefusesInvalidProfilesNamingTheRecord) {
  temp_dir d;
  const std::string base = profile_path("h200-ch01.json");
  auto zero = committed("h200-ch01.json");
  zero["records"][3]["timing"]["samples_s"][0] = 0;
  const std::string id = zero["records"][3]["id"].get<std::string>();
  const auto z = gpubench("compare " + base + " " + put(d, "zero.json", zero));
  EXPECT_EQ(z.status, 2) << z.output;
  EXPECT_TRUE(has(z.output, "records[3].timing.samples_s[0]: must be a positive, finite number of seconds (record " +
                                id + ")"))
      << z.output;
  auto median = committed("h200-ch01.json");
  median["records"][3]["summary"]["median"] = median["records"][3]["summary"]["median"].get<double>() * 2;
  const auto m = gpubench("compare " + base + " " + put(d, "median.json", median));
  EXPECT_EQ(m.status, 2) << m.output;
  EXPECT_TRUE(has(m.output, "records[3].summary.median:") && has(m.output, "does not match the samples") &&
              has(m.output, id))
      << m.output;
  auto twice = committed("h200-ch01.json");
  twice["records"].push_back(twice["records"][0]);
  const auto t = gpubench("compare " + base + " " + put(d, "twice.json", twice));
  EXPECT_EQ(t.status, 2) << t.output;
  EXPECT_TRUE(has(t.output, "repeats records[0]")) << t.output;
}

TEST(CliCompare, WarnsOnAnIncompleteProfile) {
  temp_dir d;
  auto j = committed("h200-ch01-r2.json");
  j["complete"] = false;
  const auto r = gpubench("compare " + profile_path("h200-ch01.json") + " " + put(d, "partial.json", j));
  EXPECT_NE(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "gpubench: warning: the new profile") && has(r.output, "partial.json is marked incomplete"))
      << r.output;
}

TEST(CliCompare, AtMostOneReportOnStdout) {
  const std::string pair = profile_path("h200-ch01.json") + " " + profile_path("h200-ch01-r2.json");
  const auto r = gpubench("compare " + pair + " --markdown - --junit -");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "--markdown and --junit all write to stdout")) << r.output;
  // One is fine: the markdown is all that stdout gets (the table goes to stderr).
  const auto md = gpubench("compare " + pair + " --markdown -", "", /*stderr_too=*/false);
  EXPECT_NE(md.status, 2) << md.output;
  EXPECT_TRUE(has(md.output, "| ")) << md.output.substr(0, 300);
  EXPECT_FALSE(has(md.output, "time change [interval]")) << md.output.substr(0, 300);
  EXPECT_TRUE(has(gpubench("compare " + pair + " --markdown -").output, "time change [interval]"));
}

// Lines fit 120 columns; a reason shared by many records is printed once; an inconclusive
// speedup says why (chapter 1: "20.5x -> 2.05x, inconclusive" must not stand unexplained).
TEST(CliCompare, ConsoleFits120ColumnsWithNotesOnce) {
  temp_dir d;
  auto slow = committed("h200-ch01-r2.json");
  for (auto& r : slow["records"]) {
    if (r["variant"] == "baseline" || r["summary"].is_null()) continue;
    for (auto& s : r["timing"]["samples_s"]) s = s.get<double>() * 10;  // the optimized variants 10x slower
    for (const char* k : {"min", "max", "mean", "stdev", "median", "q1", "q3", "p95", "p99", "mad"})
      r["summary"][k] = r["summary"][k].get<double>() * 10;
    // and their derived figures with them (the reader recomputes these and refuses stale ones)
    for (const char* k : {"bytes_per_s", "flops_per_s"}) r["throughput"][k] = r["throughput"][k].get<double>() / 10;
    r["throughput"]["s_per_item"] = r["throughput"]["s_per_item"].get<double>() * 10;
    if (!r["floor"].is_null()) {
      r["floor"]["fraction"] = r["floor"]["fraction"].get<double>() / 10;
      r["floor"]["suspect"] = r["summary"]["median"].get<double>() < r["floor"]["time_s"].get<double>() * 0.95;
    }
    if (!r["speedup_vs_baseline"].is_null()) r["speedup_vs_baseline"] = r["speedup_vs_baseline"].get<double>() / 10;
  }
  for (const auto& [base, next] : {std::pair{profile_path("h100-ch05.json"), profile_path("h100-ch05-metrics.json")},
                                   std::pair{profile_path("h200-ch01.json"), put(d, "slow.json", slow)}}) {
    const auto r = gpubench("compare " + base + " " + next);
    ASSERT_NE(r.status, 2) << r.output;
    std::size_t from = 0, host_timed = 0;
    while (from < r.output.size()) {
      const std::size_t to = std::min(r.output.find('\n', from), r.output.size());
      const std::string line = r.output.substr(from, to - from);
      EXPECT_LE(columns(line), 120u) << line;
      host_timed += has(line, "host-timed work moves");
      from = to + 1;
    }
    EXPECT_LE(host_timed, 1u) << r.output;  // a footnote, not a repeat on every line
  }
  const auto r = gpubench("compare " + profile_path("h200-ch01.json") + " " + put(d, "slow.json", slow));
  EXPECT_TRUE(has(r.output, "why inconclusive:")) << r.output;
  // Chapter 1's optimized samples made 10x slower: host-timed records are judged now (exit 4), and
  // the lost speedup reads as shrunk rather than "inconclusive".
  EXPECT_EQ(r.status, 4) << r.output;
  EXPECT_TRUE(has(r.output, "20.5× → 1.99×  shrank")) << r.output;
}

TEST(CliExport, EmptyOutPathIsAUsageError) {
  const auto r = gpubench("export " + profile_path("h200-ch01.json") + " --format csv --out ''");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "the output path is empty")) << r.output;
}

TEST(Cli, RunMetricsArgumentsAreCheckedBeforeTheGpu) {
  const auto r = gpubench("run --chapter 1 --metrics=default,memroy");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "unknown metric set 'memroy'") && has(r.output, "roofline")) << r.output;
  const auto both = gpubench("run --chapter 1 --metrics --profile");
  EXPECT_EQ(both.status, 2) << both.output;
  EXPECT_TRUE(has(both.output, "choose one")) << both.output;
  const auto per_kernel = gpubench("run --chapter 1 --metrics-per-kernel");
  EXPECT_EQ(per_kernel.status, 2) << per_kernel.output;
  EXPECT_TRUE(has(per_kernel.output, "needs --metrics")) << per_kernel.output;
}

TEST(Cli, NoSubcommand) {
  EXPECT_EQ(gpubench("").status, 2);
}

TEST(Cli, RunWithoutGpuFailsCleanly) {
  if (!no_gpu()) GTEST_SKIP() << "a CUDA device is present; this case checks the no-GPU message";
  temp_dir d;
  ASSERT_FALSE(d.path.empty());
  const auto r = gpubench("run --chapter 1", d.path.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "No CUDA device")) << r.output;
  EXPECT_TRUE(has(r.output, "gpubench list")) << r.output;
  // No profile (nor the writability probe) is left behind in the working directory.
  EXPECT_TRUE(d.empty()) << "files left in " << d.path;
  // A valid id passes selection and reaches the same device check.
  const auto by_id = gpubench("run --pair ch01/batched_gemm --pair cuda_graphs", d.path.string());
  EXPECT_EQ(by_id.status, 1) << by_id.output;
  EXPECT_TRUE(has(by_id.output, "No CUDA device")) << by_id.output;
  EXPECT_TRUE(d.empty()) << "files left in " << d.path;
}

TEST(Cli, DeviceWithoutGpu) {
  if (!no_gpu()) GTEST_SKIP() << "a CUDA device is present";
  const auto r = gpubench("device");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.output, "gpubench: error: No CUDA device")) << r.output;
  // The message says what still works offline, and each of those really does run without a GPU.
  for (const char* offline : {"`gpubench list`", "`gpubench compare`", "`gpubench export`",
                              "`gpubench roofline --from PROFILE`", "`gpubench metrics --list`"})
    EXPECT_TRUE(has(r.output, offline)) << offline << " missing from: " << r.output;
  const std::string profile = std::string("'") + GPUBENCH_SOURCE_DIR + "/profiles/reference/h100-ch01.json'";
  EXPECT_EQ(gpubench("compare " + profile + " " + profile).status, 0);
  EXPECT_EQ(gpubench("export " + profile + " --format csv").status, 0);
  EXPECT_EQ(gpubench("roofline --from " + profile + " --format table").status, 0);
}

TEST(Cli, DeviceCeilingsHelpSaysHowLong) {
  // Measured: 2.7 s wall on an H100 (docs/results/h100.md); the help text must not promise ~20 s.
  const auto r = gpubench("device --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "a few seconds")) << r.output;
  EXPECT_FALSE(has(r.output, "20 s")) << r.output;
}

}  // namespace
