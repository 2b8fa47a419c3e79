/// Inputs that lie and inputs that never end, tried as an attacker would, against the real gpubench
/// (docs/testing.md, "Hostile inputs"). Each test is one case of the audit: its input (the small ones
/// in tests/hostile/cases/, made by tests/hostile/make_cases.py; the big ones made here), the exit
/// expected, and the time and memory the run took, measured (bounded_child.hpp): none past 10 s or
/// 1 GB, and the endless inputs ended with exit 2 within 2 s of CPU time and without waiting.
#include <sys/stat.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bounded_child.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/record.hpp"
#include "gpubench/stats.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const std::string kCases = GPUBENCH_SOURCE_DIR "/tests/hostile/cases/";
const std::string kReference = GPUBENCH_SOURCE_DIR "/profiles/reference/";
const std::string kSeed = GPUBENCH_SOURCE_DIR "/tests/fuzz/corpus/seed-h100-ch01-r2.json";

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

/// Exit 2 with a message on stderr holding every one of `needles`, within the 10 s and 1 GB bars.
void expect_refused(const child_result& r, std::initializer_list<const char*> needles) {
  EXPECT_EQ(r.exit, 2) << r.err;
  for (const char* n : needles) EXPECT_TRUE(has(r.err, n)) << "no \"" << n << "\" in: " << r.err;
  expect_bounded(r);
}

/// The same, within 2 s (of CPU time: bounded_child.hpp, expect_quick), and within the deadline
/// of `run_bounded(..., 5)` in wall time, so that nothing waited.
void expect_refused_quickly(const child_result& r, std::initializer_list<const char*> needles) {
  expect_refused(r, needles);
  expect_quick(r, 2.0);
  std::cout << "refused: " << cost(r) << ": " << r.err.substr(0, 100) << "\n";
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// ------------------------------------------------------------------ 1: repeated --history runs

/// One history run given 100 times, and the same run under 30 other names, count once: the verdicts
/// are those of that one run, and the note says how many were left out.
TEST(hostile_input, repeated_history_runs_count_once) {
  temp_dir dir;
  const std::string base = kReference + "h200-ch01.json", next = kReference + "h200-ch01-r2.json";
  const std::string run3 = kReference + "h200-ch01-r3.json";
  const child_result once = run_bounded({"compare", base, next, "--history", run3, "--json", "once.json"}, dir.path);
  // The audit's failure: 100 times the same run made drift look like zero (exit 4).
  std::vector<std::string> args{"compare", base, next, "--json", (dir.path / "many.json").string(), "--history"};
  for (int i = 0; i < 100; ++i) args.push_back(run3);
  for (int i = 0; i < 30; ++i) {
    const fs::path copy = dir.path / ("copy" + std::to_string(i) + ".json");
    fs::copy_file(run3, copy);
    args.push_back(copy.string());
  }
  const child_result many = run_bounded(args, dir.path);
  std::cout << "130 repeated --history runs: " << cost(many) << "\n";
  EXPECT_EQ(once.exit, 0) << once.err;
  EXPECT_EQ(many.exit, 0) << many.err;
  expect_bounded(many);
  EXPECT_TRUE(has(many.err, "129 --history runs repeated measurements already counted")) << many.err;
  const ojson a = ojson::parse(std::ifstream(dir.path / "once.json")),
              b = ojson::parse(std::ifstream(dir.path / "many.json"));
  EXPECT_EQ(b["history_runs"], 1);
  EXPECT_EQ(b["history_repeats"]["runs"], 129);
  EXPECT_EQ(a["records"], b["records"]);  // every interval exactly as with the run given once
}

// ------------------------------------------------------------------ 3: inputs that never end

TEST(hostile_input, devices_are_refused_without_reading) {
  temp_dir dir;
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    const child_result r = run_bounded({"compare", device, kSeed}, dir.path, 5);
    expect_refused_quickly(r, {device, "character device", "regular files"});
  }
}

TEST(hostile_input, a_fifo_without_a_writer_is_refused_at_once) {
  temp_dir dir;
  const fs::path fifo = dir.path / "no-writer.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_refused_quickly(run_bounded({"compare", fifo.string(), kSeed}, dir.path, 5), {"named pipe (FIFO)"});
  expect_refused_quickly(run_bounded({"export", fifo.string(), "--format", "csv"}, dir.path, 5), {"named pipe"});
}

TEST(hostile_input, two_hundred_megabytes_of_brackets) {
  temp_dir dir;
  const fs::path brackets = dir.path / "brackets.json";
  {
    std::ofstream out(brackets, std::ios::binary);
    const std::string chunk(1 << 20, '[');
    for (int i = 0; i < 200; ++i) out << chunk;
  }
  // Above the default 64 MiB: refused from its size, before a byte is read.
  expect_refused_quickly(run_bounded({"compare", brackets.string(), kSeed}, dir.path, 5),
                         {"above the 64 MiB", "GPUBENCH_MAX_INPUT_MIB"});
  // With the limit raised, read and refused by the parser at the 64th level.
  expect_refused(run_bounded({"compare", brackets.string(), kSeed}, dir.path, kMaxSeconds + 5,
                             {"GPUBENCH_MAX_INPUT_MIB=256"}),
                 {"nests deeper than 64 levels"});
  // 50 MB, under the default limit (the audit: 13 s and 3.9 GB).
  fs::resize_file(brackets, 50'000'000);
  expect_refused_quickly(run_bounded({"compare", brackets.string(), kSeed}, dir.path, 5),
                         {"nests deeper than 64 levels"});
}

/// The costliest JSON per byte (empty arrays) and the slowest for nlohmann's ordered objects (one
/// object of a million keys) stay within the bars too.
TEST(hostile_input, many_small_values_are_bounded) {
  temp_dir dir;
  std::string arrays = "[";
  while (arrays.size() < 60'000'000) arrays += "[],";
  arrays += "[]]";
  write_file(dir.path / "arrays.json", arrays);
  const child_result a = run_bounded({"export", "arrays.json", "--format", "csv"}, dir.path);
  expect_refused(a, {"holds more values than its size"});
  std::cout << "60 MB of empty arrays: " << cost(a) << "\n";
  std::string keys = "{";
  for (int i = 0; i < 1'000'000; ++i) keys += "\"k" + std::to_string(i) + "\":0,";
  keys += "\"schema\":\"x\"}";
  write_file(dir.path / "keys.json", keys);
  const child_result k = run_bounded({"export", "keys.json", "--format", "csv"}, dir.path);
  expect_refused(k, {"schema", "not a gpubench profile"});
  std::cout << "one object of a million keys: " << cost(k) << "\n";
}

TEST(hostile_input, the_size_limit_is_checked_and_can_be_raised) {
  temp_dir dir;
  expect_refused(run_bounded({"compare", kSeed, kSeed}, dir.path, 5, {"GPUBENCH_MAX_INPUT_MIB=abc"}),
                 {"GPUBENCH_MAX_INPUT_MIB must be a whole number of MiB"});
  EXPECT_EQ(run_bounded({"export", kSeed, "--format", "csv"}, dir.path, 5, {"GPUBENCH_MAX_INPUT_MIB=1"}).exit, 0);
}

// ------------------------------------------------------------------ 4: exports scale with records

/// The seed profile with its first record holding `n` samples (its summary, throughput, floor and
/// its variant's speedup recomputed, as the runner would have written them).
fs::path million_sample_profile(const fs::path& dir, std::size_t n) {
  gpubench::profile p = gpubench::read_profile(kSeed);
  gpubench::record& r = p.records[0];
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> noise(0, 0.01);
  r.timing.samples_s.resize(n);
  for (double& s : r.timing.samples_s) s = 0.13 * noise(rng);
  r.timing.rounds.clear();
  r.timing.span_s.clear();
  r.timing.sm_clock_mhz.clear();
  r.timing.throttled.clear();
  r.stats = gpubench::summarize(r.timing.samples_s);
  gpubench::derive(p.records[0], p.ceil, nullptr);
  gpubench::derive(p.records[1], p.ceil, &p.records[0]);
  const fs::path path = dir / "million.json";
  gpubench::write_profile(path, p);
  return path;
}

TEST(hostile_input, gbench_export_of_a_million_samples_is_small_and_fast) {
  temp_dir dir;
  const fs::path profile = million_sample_profile(dir.path, 1'000'000);
  const auto profile_bytes = fs::file_size(profile);
  const child_result r = run_bounded({"export", profile.string(), "--format", "gbench", "--out", "g.json"}, dir.path);
  EXPECT_EQ(r.exit, 0) << r.err;
  expect_quick(r, 2.0);
  const auto exported = fs::file_size(dir.path / "g.json");
  EXPECT_LE(exported, 2 * profile_bytes) << exported << " bytes from a profile of " << profile_bytes;
  const ojson j = ojson::parse(std::ifstream(dir.path / "g.json"));
  EXPECT_EQ(j["benchmarks"].size(), 8u);  // two records, four aggregates each
  EXPECT_EQ(j["benchmarks"][0]["repetitions"], 1'000'000);
  // Every sample on request, streamed: bounded memory, though as large as the samples.
  const child_result all =
      run_bounded({"export", profile.string(), "--format", "gbench", "--per-sample", "--out", "s.json"}, dir.path);
  EXPECT_EQ(all.exit, 0) << all.err;
  expect_bounded(all);
  std::cout << "1e6-sample profile " << profile_bytes << " B; gbench export " << exported << " B, " << cost(r)
            << "; --per-sample " << fs::file_size(dir.path / "s.json") << " B, " << cost(all) << "\n";
}

// ------------------------------------------------------------------ 5: derived fields that lie

TEST(hostile_input, forged_derived_fields_are_refused_by_every_reader) {
  temp_dir dir;
  const std::pair<const char*, const char*> cases[] = {
      {"forged-speedup.json", "records[1].speedup_vs_baseline: 42"},
      {"forged-speedup-1e308.json", "records[1].speedup_vs_baseline: 1e+308"},
      {"forged-throughput.json", "records[0].throughput.bytes_per_s: 9.9e+12"},
      {"forged-floor-fraction.json", "records[0].floor.fraction: 0.99"}};
  for (const auto& [file, field] : cases) {
    const std::string path = kCases + file;
    for (const char* format : {"markdown", "csv", "bmf", "gbench"})
      expect_refused(run_bounded({"export", path, "--format", format}, dir.path), {field, "recomputed on reading"});
    expect_refused(run_bounded({"roofline", "--from", path, "--format", "table"}, dir.path), {field});
    expect_refused(run_bounded({"compare", kSeed, path}, dir.path), {field});
    expect_refused(run_bounded({"report", path, "--out", "r.html"}, dir.path), {field});
  }
}

// ------------------------------------------------------------------ 8, 10: numbers out of range

TEST(hostile_input, a_sample_beyond_a_double_is_bad_input) {
  temp_dir dir;
  expect_refused(run_bounded({"export", kCases + "sample-1e999.json", "--format", "csv"}, dir.path),
                 {"out of range", "'1e999'", "line "});
}

TEST(hostile_input, subnormal_samples_are_not_times) {
  temp_dir dir;
  for (const char* format : {"bmf", "markdown"})
    expect_refused(run_bounded({"export", kCases + "subnormal-samples.json", "--format", format}, dir.path),
                   {"records[0].timing.samples_s[0]", "at least 1 ns"});
  expect_refused(run_bounded({"compare", kCases + "subnormal-samples.json", kSeed}, dir.path), {"at least 1 ns"});
}

// ------------------------------------------------------------------ 9: records without samples

TEST(hostile_input, a_record_without_samples_has_no_ratio) {
  temp_dir dir;
  for (const char* file : {"failed-no-samples.json", "passed-no-samples.json"}) {
    const child_result r =
        run_bounded({"compare", kSeed, kCases + file, "--junit", "j.xml", "--markdown", "m.md", "--json", "c.json"},
                    dir.path);
    EXPECT_EQ(r.exit, 0) << r.err;
    expect_bounded(r);
    std::ifstream junit(dir.path / "j.xml"), markdown(dir.path / "m.md");
    const std::string x{std::istreambuf_iterator<char>(junit), {}}, md{std::istreambuf_iterator<char>(markdown), {}};
    for (const std::string& text : {x, md, r.out}) {
      EXPECT_FALSE(has(text, "1.000 [1.000, 1.000]")) << file << ":\n" << text;
      EXPECT_FALSE(has(text, "0.000 ns")) << file << ":\n" << text;
    }
    EXPECT_TRUE(has(x, "ratio n/a (base 132.4 ms, new n/a)")) << x;
    const ojson j = ojson::parse(std::ifstream(dir.path / "c.json"));
    EXPECT_TRUE(j["records"][0]["ratio"]["estimate"].is_null()) << j["records"][0];
    EXPECT_TRUE(j["records"][0]["new_median_s"].is_null()) << j["records"][0];
    EXPECT_EQ(j["records"][0]["verdict"], "inconclusive");
  }
}

// ------------------------------------------------------------------ doubtful: keys, nesting

TEST(hostile_input, a_key_given_twice_is_refused) {
  temp_dir dir;
  expect_refused(run_bounded({"export", kCases + "duplicate-key.json", "--format", "csv"}, dir.path),
                 {"records[0]", "\"status\" appears twice"});
}

TEST(hostile_input, deep_nesting_is_refused) {
  temp_dir dir;
  expect_refused(run_bounded({"export", kCases + "deep-nesting.json", "--format", "csv"}, dir.path),
                 {"nests deeper than 64 levels"});
}

}  // namespace
