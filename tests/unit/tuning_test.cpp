/// Unit tests for tuning pairs and launch facts (chapter 6): gpubench/tuning.hpp (grids and their
/// validation), the .tune() builder, ranking a size's configurations, the profile fields
/// `launch_facts` and `tuning` (round trip and every rejection), and the console's views of both.
///
/// Nothing here runs a kernel: states are dummies and records are synthetic. The global registry
/// of this binary only holds what the unit tests register; this file uses chapter 97.
#include "gpubench/tuning.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "gpubench/console.hpp"
#include "gpubench/error.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/record.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/stats.hpp"
#include "report/console_launch.hpp"
#include "test_support.hpp"

namespace {

using namespace gpubench;
using ojson = nlohmann::ordered_json;

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }
bool any_has(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return has(s, needle); });
}

std::vector<std::string> names(const std::vector<tuning_config>& cs) {
  std::vector<std::string> out;
  for (const auto& c : cs) out.push_back(c.name());
  return out;
}

tuning_grid two_by_two() {
  return tuning_grid().param("b", "threads per block", {64, 128}).param("e", "elements per thread", {1, 2});
}

// ------------------------------------------------------------------------------------ grids

TEST(TuningGrid, CartesianProductFirstParameterSlowest) {
  EXPECT_EQ(names(two_by_two().configs()), (std::vector<std::string>{"b64_e1", "b64_e2", "b128_e1", "b128_e2"}));
  const auto three = tuning_grid().param("b", "", {1}).param("e", "", {2, 3}).param("stages", "", {4, 5}).configs();
  EXPECT_EQ(names(three), (std::vector<std::string>{"b1_e2_stages4", "b1_e2_stages5", "b1_e3_stages4", "b1_e3_stages5"}));
  EXPECT_TRUE(two_by_two().problems().empty());
}

TEST(TuningGrid, RuleKeepsOnlyWhatItAccepts) {
  const auto g = two_by_two().only("b*e <= 128", [](const tuning_config& c) { return c["b"] * c["e"] <= 128; });
  EXPECT_EQ(names(g.configs()), (std::vector<std::string>{"b64_e1", "b64_e2", "b128_e1"}));
  EXPECT_EQ(g.rule(), "b*e <= 128");
  EXPECT_TRUE(g.problems().empty());
}

TEST(TuningGrid, ConfigValuesAndDescription) {
  const tuning_config c({{"b", 256}, {"e", 4}});
  EXPECT_EQ(c.name(), "b256_e4");
  EXPECT_EQ(c["b"], 256);
  EXPECT_EQ(c["e"], 4);
  EXPECT_THROW((void)c["k"], std::out_of_range);
  EXPECT_EQ(two_by_two().describe(c), "b=256 (threads per block), e=4 (elements per thread)");
  EXPECT_EQ(tuning_grid().param("k", "", {1}).describe(tuning_config({{"k", 2}})), "k=2");
}

TEST(TuningGrid, ProblemsAreNamed) {
  EXPECT_TRUE(any_has(tuning_grid().problems(), "no parameters"));
  EXPECT_TRUE(any_has(tuning_grid().param("B", "", {1}).problems(), "lower-case letters"));
  EXPECT_TRUE(any_has(tuning_grid().param("b2", "", {1}).problems(), "lower-case letters"));  // b2 then b264 would read as b=2 64
  EXPECT_TRUE(any_has(tuning_grid().param("", "", {1}).problems(), "lower-case letters"));
  EXPECT_TRUE(any_has(tuning_grid().param("b", "", {1}).param("b", "", {2}).problems(), "declared twice"));
  EXPECT_TRUE(any_has(tuning_grid().param("b", "", {}).problems(), "has no values"));
  EXPECT_TRUE(any_has(tuning_grid().param("b", "", {0}).problems(), "not positive"));
  EXPECT_TRUE(any_has(tuning_grid().param("b", "", {-4}).problems(), "not positive"));
  EXPECT_TRUE(any_has(tuning_grid().param("b", "", {8, 8}).problems(), "repeats"));
  EXPECT_TRUE(any_has(two_by_two().only("never", [](const tuning_config&) { return false; }).problems(),
                      "keeps no configuration (never)"));
  std::vector<std::int64_t> many(300);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = std::int64_t(i + 1);
  EXPECT_TRUE(any_has(tuning_grid().param("b", "", many).problems(), "at most 256"));
  tuning_grid nine;
  for (const char* t : {"a", "b", "c", "d", "e", "f", "g", "h", "i"}) nine.param(t, "", {1});
  EXPECT_TRUE(any_has(nine.problems(), "at most 8"));
  // A name past the registry's 64-character limit cannot be a variant.
  EXPECT_TRUE(any_has(tuning_grid().param("abcdefghijklmnop", "", {1}).param("bcdefghijklmnopq", "", {1})
                          .param("cdefghijklmnopqr", "", {1}).param("defghijklmnopqrs", "", {1}).problems(),
                      "not a valid variant name"));
}

// ------------------------------------------------------------------------------ the builder

class tuned_state : public pair_state {
 public:
  tuned_state(const size_point&, const setup_context&) {}
  [[nodiscard]] output_view output(std::string_view) const override { return {}; }
  std::vector<std::string> ran;
};

void record_config(tuned_state& s, stream_t, const tuning_config& c) { s.ran.push_back(c.name()); }

const pair_def* find_pair(const std::string& name) {
  for (const auto* p : registry::global().pairs())
    if (p->chapter == 97 && p->name == name) return p;
  return nullptr;
}

const registration tuned = pair_builder<tuned_state>(97, "tuned_pair", "a tuned pair")
                               .explain("why")
                               .axis("n", {1})
                               .work([](const size_point&) { return work{.bytes = 1}; })
                               .tune(two_by_two(), "b128_e1", record_config);
const registration tuned_bad_baseline = pair_builder<tuned_state>(97, "tuned_bad_baseline", "a tuned pair")
                                            .explain("why")
                                            .axis("n", {1})
                                            .work([](const size_point&) { return work{.bytes = 1}; })
                                            .tune(two_by_two(), "b999_e1", record_config);

TEST(TuneBuilder, OneVariantPerConfigurationBaselineFirst) {
  const pair_def* p = find_pair("tuned_pair");
  ASSERT_NE(p, nullptr);
  std::vector<std::string> variants;
  for (const auto& v : p->variants) variants.push_back(v.name);
  EXPECT_EQ(variants, (std::vector<std::string>{"b128_e1", "b64_e1", "b64_e2", "b128_e2"}));
  ASSERT_TRUE(p->grid.has_value());
  EXPECT_EQ(p->grid->params().size(), 2u);
  EXPECT_EQ(p->variants[0].config, tuning_config({{"b", 128}, {"e", 1}}));
  EXPECT_EQ(p->variants[2].description, "b=64 (threads per block), e=2 (elements per thread)");
  EXPECT_TRUE(validate(*p).empty()) << validate(*p).front();
  // Each variant calls the one run function with its own configuration.
  tuned_state s({}, {});
  for (const auto& v : p->variants) v.run(s, nullptr);
  EXPECT_EQ(s.ran, variants);
}

TEST(TuneBuilder, UnknownBaselineIsADeclarationProblem) {
  const pair_def* p = find_pair("tuned_bad_baseline");
  ASSERT_NE(p, nullptr);
  const auto problems = validate(*p);
  EXPECT_TRUE(any_has(problems, "the baseline 'b999_e1' is not a configuration of the grid")) << problems.size();
  // The registry reports it like any invalid declaration, and gpubench then refuses to run.
  EXPECT_TRUE(any_has(registry::global().problems(), "ch97/tuned_bad_baseline: tune: the baseline 'b999_e1'"));
}

TEST(TuneBuilder, VariantsMustComeFromTheGrid) {
  pair_def d = *find_pair("tuned_pair");
  d.variants.push_back({"extra", "not a configuration", [](pair_state&, stream_t) {}});
  EXPECT_TRUE(any_has(validate(d), "variant 'extra' is not a configuration of the tuning grid"));
  pair_def plain = d;
  plain.grid.reset();
  plain.variants.pop_back();
  EXPECT_TRUE(any_has(validate(plain), "has a tuning configuration but the pair has no grid"));
}

// -------------------------------------------------------------------------------- ranking

record config_record(const std::string& name, double median, record_status status = record_status::passed) {
  record r;
  r.chapter = 6;
  r.pair = "p";
  r.variant = name;
  r.size = size_point({{"n", std::int64_t{1024}}});
  r.status = status;
  r.tuning = tuning_result{tuning_config({{"b", std::stoll(name.substr(1))}}), 99};
  if (status == record_status::passed) {
    r.timing.samples_s = {median, median, median};
    r.stats = summarize(r.timing.samples_s);
  } else {
    r.reason = "not supported on this GPU: too big";
  }
  return r;
}

TEST(TuningRank, FastestMedianFirstUntimedUnranked) {
  std::vector<record> rs = {config_record("b256", 2.0e-3), config_record("b64", 1.0e-3),
                            config_record("b1024", 1.0e-3, record_status::skipped), config_record("b128", 1.01e-3),
                            config_record("b512", 1.5e-3)};
  rank_tuning(rs);
  EXPECT_EQ(rs[0].tuning->rank, 4u);
  EXPECT_EQ(rs[1].tuning->rank, 1u);
  EXPECT_EQ(rs[2].tuning->rank, 0u);  // was 99: every record is re-ranked
  EXPECT_EQ(rs[3].tuning->rank, 2u);
  EXPECT_EQ(rs[4].tuning->rank, 3u);
  const auto s = summarize_tuning(rs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->ranked, 4u);
  EXPECT_EQ(s->configurations, 5u);
  EXPECT_EQ(s->best, &rs[1]);
  EXPECT_EQ(s->runner_up, &rs[3]);
  EXPECT_EQ(s->baseline, &rs[0]);
  ASSERT_EQ(s->near_best.size(), 1u);  // b128 is 1% off; b512 is 50% off
  EXPECT_EQ(s->near_best[0], &rs[3]);
}

TEST(TuningRank, TiesKeepDeclarationOrderAndOthersAreLeftAlone) {
  std::vector<record> rs = {config_record("b1", 1e-3), config_record("b2", 1e-3)};
  record plain = config_record("b3", 0.5e-3);
  plain.tuning.reset();  // not a tuning record: never ranked, never counted
  rs.push_back(plain);
  rank_tuning(rs);
  EXPECT_EQ(rs[0].tuning->rank, 1u);
  EXPECT_EQ(rs[1].tuning->rank, 2u);
  EXPECT_FALSE(rs[2].tuning.has_value());
  EXPECT_EQ(summarize_tuning(rs)->configurations, 2u);
}

TEST(TuningRank, NothingTimedNothingToSay) {
  std::vector<record> rs = {config_record("b1", 1e-3, record_status::failed)};
  rank_tuning(rs);
  EXPECT_FALSE(summarize_tuning(rs).has_value());
  EXPECT_FALSE(summarize_tuning(std::vector<record>{}).has_value());
}

TEST(TuningRank, BaselineNotTimedIsSaid) {
  std::vector<record> rs = {config_record("b1", 1e-3, record_status::error), config_record("b2", 2e-3)};
  rank_tuning(rs);
  const auto s = summarize_tuning(rs);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->baseline, nullptr);
  const auto lines = detail::tuning_verdict(*s);
  EXPECT_EQ(lines.front(), "best of 1 configurations: b2 at 2.000 ms, the default configuration was not timed (1 not timed)");
}

// ------------------------------------------------------------------------------- console

TEST(LaunchLine, KnownFactsInOrderThenTheRest) {
  const launch_facts f = {{"block_threads", 256},        {"grid_blocks", 528},          {"blocks_per_sm", 4},
                          {"theoretical_occupancy_pct", 50}, {"registers_per_thread", 64}, {"local_bytes_per_thread", 16},
                          {"shared_bytes_per_block", 29184}, {"elements_per_thread", 4}};
  EXPECT_EQ(detail::launch_line(f, nullptr),
            "256 threads × 528 blocks · 4 blocks/SM · occupancy 50.0% theoretical · 64 registers · local 16 B/thread · "
            "shared 28.5 KiB/block · elements_per_thread 4");
  metric_result m;
  m.status = metrics_status::collected;
  m.derived = {{"achieved_occupancy_pct", 48.75}};
  EXPECT_TRUE(has(detail::launch_line(f, &m), "occupancy 50.0% theoretical, 48.8% achieved")) << detail::launch_line(f, &m);
  m.status = metrics_status::unavailable;  // counters that were not collected say nothing
  EXPECT_FALSE(has(detail::launch_line(f, &m), "achieved"));
  EXPECT_EQ(detail::launch_line({{"block_threads", 128}}, nullptr), "128 threads/block");
  EXPECT_EQ(detail::launch_line({}, nullptr), "");
}

TEST(TuningRow, TimedAndNotTimed) {
  record base = config_record("b256", 2e-3);
  record fast = config_record("b64", 1e-3);
  ceilings c;
  c.dram_bytes_per_s = 1e12;
  base.declared.bytes = fast.declared.bytes = 1e9;  // floor 1 ms
  derive(base, c, nullptr);
  derive(fast, c, &base);
  fast.tuning->rank = 1;
  base.tuning->rank = 2;
  fast.facts = {{"theoretical_occupancy_pct", 100}, {"blocks_per_sm", 8}, {"registers_per_thread", 32},
                {"local_bytes_per_thread", 0}};
  EXPECT_EQ(detail::tuning_row(fast, 9),
            "b64         #1    1.000 ms ± 0.00%   100.0% of floor   2.00×  occupancy 100.0% · 8 blocks/SM · 32 registers");
  EXPECT_TRUE(has(detail::tuning_row(base, 9), "  (base)")) << detail::tuning_row(base, 9);
  const record skipped = config_record("b1024", 0, record_status::skipped);
  EXPECT_EQ(detail::tuning_row(skipped, 9), "b1024           skipped: not supported on this GPU: too big");
  record profiled = config_record("b32", 1e-3);
  profiled.status = record_status::profiled;
  profiled.check.result = disposition::passed;
  EXPECT_EQ(detail::tuning_row(profiled, 9), "b32             ran once for a profiler; verification: passed");
}

pair_def tuned_def() { return *find_pair("tuned_pair"); }

TEST(ConsoleTuning, OneLinePerConfigurationThenTheBest) {
  tmp_file out, progress;
  {
    console_reporter c(out.f, progress.f, {.width = 200});  // no line wraps (wrapping: console_test.cpp)
    const pair_def p = tuned_def();
    std::vector<record> rs = {config_record("b128", 2e-3), config_record("b64", 1e-3), config_record("b32", 1.01e-3),
                              config_record("b16", 3e-3, record_status::failed)};
    for (auto& r : rs) derive(r, {}, r.variant == "b128" ? nullptr : &rs[0]);
    rank_tuning(rs);
    c.pair_begin(p);
    c.size_end(p, rs);
  }
  const std::string text = out.text();
  EXPECT_TRUE(has(text, "    b64         #1")) << text;
  EXPECT_TRUE(has(text, "    b16             failed: not supported on this GPU: too big")) << text;
  EXPECT_TRUE(has(text, "  best of 3 configurations: b64 at 1.000 ms, 2.00× faster than the default b128; runner-up b32 "
                        "+1.0% (1 not timed)\n"))
      << text;
  EXPECT_TRUE(has(text, "  within 2.0% of it: b32 (a re-run may rank these differently)\n")) << text;
  EXPECT_FALSE(has(text, "ran ")) << "no per-variant speedup lines for a tuning pair\n" << text;
  EXPECT_FALSE(has(text, "Time (median")) << text;
}

TEST(ConsoleLaunch, PlainPairShowsItsLaunchFacts) {
  tmp_file out, progress;
  {
    console_reporter c(out.f, progress.f, {});
    pair_def p = tuned_def();
    p.grid.reset();  // an ordinary pair
    record r = config_record("b128", 2e-3);
    r.tuning.reset();
    r.facts = {{"registers_per_thread", 105}, {"theoretical_occupancy_pct", 25}};
    c.pair_begin(p);
    c.size_end(p, {r});
  }
  const std::string text = out.text();
  EXPECT_TRUE(has(text, "      Launch:                 occupancy 25.0% theoretical · 105 registers\n")) << text;
}

// -------------------------------------------------------------------------------- profile

profile tuned_profile() {
  profile p;
  p.complete = true;
  p.prov.device.name = "NVIDIA H100 80GB HBM3";
  record r = config_record("b256", 1e-3);
  r.check.result = disposition::reference;
  r.tuning->rank = 1;
  r.facts = {{"block_threads", 256}, {"registers_per_thread", 32}, {"theoretical_occupancy_pct", 100}};
  p.records.push_back(r);
  record s = config_record("b64", 0, record_status::skipped);
  s.tuning->rank = 0;
  p.records.push_back(s);
  return p;
}

profile read_back(const ojson& j) { return profile_from_json(ojson::parse(j.dump()), "mem.json"); }

TEST(ProfileTuning, RoundTrip) {
  const profile p = tuned_profile();
  const ojson j = to_json(p);
  EXPECT_EQ(j["records"][0]["launch_facts"].dump(),
            R"({"block_threads":256.0,"registers_per_thread":32.0,"theoretical_occupancy_pct":100.0})");
  EXPECT_EQ(j["records"][0]["tuning"].dump(), R"({"config":{"b":256},"rank":1})");
  EXPECT_FALSE(j["records"][1].contains("launch_facts"));  // optional: only what the pair said
  const profile back = read_back(j);
  EXPECT_EQ(back.records[0].facts, p.records[0].facts);
  ASSERT_TRUE(back.records[0].tuning.has_value());
  EXPECT_EQ(back.records[0].tuning->config, p.records[0].tuning->config);
  EXPECT_EQ(back.records[0].tuning->rank, 1u);
  EXPECT_EQ(back.records[1].tuning->rank, 0u);
  EXPECT_TRUE(back.records[1].facts.empty());
}

TEST(ProfileTuning, OlderProfilesWithoutTheFieldsStillRead) {
  ojson j = to_json(tuned_profile());
  for (auto& r : j["records"]) {
    r.erase("launch_facts");
    r.erase("tuning");
  }
  const profile back = read_back(j);
  EXPECT_TRUE(back.records[0].facts.empty());
  EXPECT_FALSE(back.records[0].tuning.has_value());
}

TEST(ProfileTuning, WriterKeepsToTheReadersRules) {
  profile p = tuned_profile();
  p.records[0].facts["Bad Name"] = 1;
  p.records[0].facts["negative"] = -1;
  p.records[0].facts["not_finite"] = std::numeric_limits<double>::quiet_NaN();
  const ojson j = to_json(p);
  EXPECT_EQ(j["records"][0]["launch_facts"].size(), 3u) << j["records"][0]["launch_facts"].dump();
  EXPECT_NO_THROW((void)read_back(j));
}

void expect_rejected(const std::function<void(ojson&)>& edit, const std::string& needle) {
  ojson j = to_json(tuned_profile());
  edit(j);
  try {
    (void)read_back(j);
    ADD_FAILURE() << "accepted; expected: " << needle;
  } catch (const error& e) {
    EXPECT_EQ(e.code(), exit_code::usage);
    EXPECT_TRUE(has(e.what(), needle)) << e.what();
  }
}

TEST(ProfileTuning, BadLaunchFactsAreRejected) {
  expect_rejected([](ojson& j) { j["records"][0]["launch_facts"] = ojson::array(); }, "records[0].launch_facts: must be a JSON object");
  expect_rejected([](ojson& j) { j["records"][0]["launch_facts"]["Bad Key"] = 1; },
                  "records[0].launch_facts: fact \"Bad Key\" is not a valid name");
  expect_rejected([](ojson& j) { j["records"][0]["launch_facts"]["block_threads"] = -256; },
                  "records[0].launch_facts.block_threads: must be a finite, non-negative number");
  expect_rejected([](ojson& j) { j["records"][0]["launch_facts"]["block_threads"] = "256"; },
                  "records[0].launch_facts.block_threads");
  expect_rejected([](ojson& j) { j["records"][0]["launch_facts"]["block_threads"] = nullptr; },
                  "records[0].launch_facts.block_threads");
  expect_rejected(
      [](ojson& j) {
        for (int i = 0; i < 65; ++i) j["records"][0]["launch_facts"]["f" + std::to_string(i)] = i;
      },
      "entries; at most 64 are allowed");
}

TEST(ProfileTuning, BadTuningIsRejected) {
  expect_rejected([](ojson& j) { j["records"][0]["tuning"].erase("rank"); }, "missing field 'records[0].tuning.rank'");
  expect_rejected([](ojson& j) { j["records"][0]["tuning"]["config"] = ojson::object(); },
                  "records[0].tuning.config: must name at least one parameter");
  expect_rejected([](ojson& j) { j["records"][0]["tuning"]["config"]["b"] = 128; },
                  "spells the configuration \"b128\" but the record's variant is \"b256\"");
  expect_rejected([](ojson& j) { j["records"][0]["tuning"]["config"] = {{"B", 256}}; },
                  "parameter \"B\" is not a valid tag");
  expect_rejected([](ojson& j) { j["records"][0]["tuning"]["config"]["b"] = 0; },
                  "records[0].tuning.config.b: must be a positive integer");
  expect_rejected([](ojson& j) { j["records"][0]["tuning"]["config"]["b"] = 2.5; },
                  "records[0].tuning.config.b: must be a positive integer");
  expect_rejected([](ojson& j) { j["records"][0]["tuning"]["rank"] = -1; }, "records[0].tuning.rank");
  expect_rejected([](ojson& j) { j["records"][1]["tuning"]["rank"] = 2; },
                  "records[1].tuning.rank: a record that was not timed has no rank");
  expect_rejected(
      [](ojson& j) {
        ojson c = ojson::object();
        for (const char* t : {"a", "b", "c", "d", "e", "f", "g", "h", "i"}) c[t] = 1;
        j["records"][0]["tuning"]["config"] = c;
      },
      "has 9 parameters; at most 8");
}

}  // namespace
