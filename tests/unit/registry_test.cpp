/// Unit tests for gpubench/registry.hpp: validate(), a local registry's ordering and select(), the
/// fluent pair_builder<State> registering into registry::global(), and a chapter declared from its
/// folder: tests/CMakeLists.txt compiles this file as chapters/ch97_probe/ would be compiled.
///
/// Nothing here runs a variant, so the states are dummies, the variant functions do nothing and
/// the stream is a null stream_t. The unit-test binary does not link the chapters, so the global
/// registry holds what the tests register (chapters 97 and 98, numbers no real chapter uses) and
/// examples/minimal_pair.cu (chapter 99).
#include "gpubench/registry.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gpubench/error.hpp"

namespace {

using gpubench::pair_def;
using gpubench::registry;

class dummy_state : public gpubench::pair_state {
 public:
  dummy_state(const gpubench::size_point& z, const gpubench::setup_context& ctx) : size(z), seed(ctx.seed) {}
  [[nodiscard]] gpubench::output_view output(std::string_view /*variant*/) const override { return {}; }
  gpubench::size_point size;
  std::uint64_t seed = 0;
  int runs = 0;
};

void noop(gpubench::pair_state& /*s*/, gpubench::stream_t /*stream*/) {}

/// A declaration validate() accepts.
pair_def valid_def(int chapter, std::string name) {
  pair_def d;
  d.chapter = chapter;
  d.name = std::move(name);
  d.title = "a title";
  d.explanation = "why the optimized variant wins";
  d.axes = {{"n", {std::int64_t{1}, std::int64_t{2}}}};
  d.work_model = [](const gpubench::size_point&) { return gpubench::work{}; };
  d.variants = {{"baseline", "the slow way", noop}, {"optimized", "the fast way", noop}};
  return d;
}

bool contains(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(needle) != std::string::npos; });
}


std::vector<std::string> ids(const std::vector<const pair_def*>& ps) {
  std::vector<std::string> out;
  for (const auto* p : ps) out.push_back(p->id());
  return out;
}

TEST(Validate, ValidDeclarationHasNoProblems) {
  EXPECT_TRUE(gpubench::validate(valid_def(1, "batched_gemm2")).empty());
  EXPECT_EQ(valid_def(1, "x").id(), "ch01/x");
  EXPECT_EQ(valid_def(12, "y").id(), "ch12/y");
}

TEST(Validate, VariantCount) {
  auto none = valid_def(1, "p");
  none.variants.clear();
  EXPECT_TRUE(contains(gpubench::validate(none), "two or more variants"));
  auto one = valid_def(1, "p");
  one.variants.resize(1);
  EXPECT_TRUE(contains(gpubench::validate(one), "two or more variants"));
}

TEST(Validate, DuplicateVariantNamesAndMissingFunction) {
  auto d = valid_def(1, "p");
  d.variants[1].name = "baseline";
  EXPECT_TRUE(contains(gpubench::validate(d), "duplicate variant 'baseline'"));
  auto nofn = valid_def(1, "p");
  nofn.variants[1].run = nullptr;
  EXPECT_TRUE(contains(gpubench::validate(nofn), "variant 'optimized' has no function"));
}

TEST(Validate, VariantTolerancesMustMakeSense) {
  auto d = valid_def(1, "p");
  d.variants[1].options.check = gpubench::tolerance::relative(0);
  EXPECT_TRUE(contains(gpubench::validate(d), "variant 'optimized': a relative tolerance must be > 0"));
  d = valid_def(1, "p");
  d.variants[0].options.check = gpubench::tolerance::relative(1e-3);
  EXPECT_TRUE(contains(gpubench::validate(d), "the baseline declares a tolerance"));
  d = valid_def(1, "p");
  d.variants[1].options = {gpubench::flop_kind::bf16, gpubench::tolerance::relative(1e-2)};
  EXPECT_TRUE(gpubench::validate(d).empty());
}

TEST(Validate, WorkModelAxesExplanationTitle) {
  auto d = valid_def(1, "p");
  d.work_model = nullptr;
  EXPECT_TRUE(contains(gpubench::validate(d), "no work model"));
  d = valid_def(1, "p");
  d.axes.clear();
  EXPECT_TRUE(contains(gpubench::validate(d), "no axes"));
  d = valid_def(1, "p");
  d.axes.push_back({"empty", {}});
  EXPECT_TRUE(contains(gpubench::validate(d), "axis 'empty' has no values"));
  d = valid_def(1, "p");
  d.axes.push_back({"n", {std::int64_t{3}}});
  EXPECT_TRUE(contains(gpubench::validate(d), "duplicate axis 'n'"));
  d = valid_def(1, "p");
  d.explanation.clear();
  EXPECT_TRUE(contains(gpubench::validate(d), "no explanation"));
  d = valid_def(1, "p");
  d.title.clear();
  EXPECT_TRUE(contains(gpubench::validate(d), "no title"));
}

TEST(Validate, NameAndChapter) {
  for (const char* bad : {"Batched", "with-dash", "has space", "ch01/x"})
    EXPECT_TRUE(contains(gpubench::validate(valid_def(1, bad)), "snake_case")) << bad;
  EXPECT_TRUE(contains(gpubench::validate(valid_def(1, "")), "empty name"));
  EXPECT_TRUE(gpubench::validate(valid_def(1, "a_1_b")).empty());
  EXPECT_TRUE(contains(gpubench::validate(valid_def(0, "p")), "chapter must be 1..99"));
  EXPECT_TRUE(contains(gpubench::validate(valid_def(100, "p")), "chapter must be 1..99"));
  EXPECT_TRUE(gpubench::validate(valid_def(99, "p")).empty());
  EXPECT_TRUE(contains(gpubench::validate(valid_def(1, std::string(65, 'a'))), "snake_case"));
}

// Variant and axis names follow the pair's rule: the profile reader refuses anything else.
TEST(Validate, VariantAndAxisNames) {
  pair_def d = valid_def(1, "p");
  d.variants[1].name = "Fast-One";
  EXPECT_TRUE(contains(gpubench::validate(d), "variant 'Fast-One': name must be snake_case")) << d.variants[1].name;
  d = valid_def(1, "p");
  d.axes[0].name = "size MiB";
  EXPECT_TRUE(contains(gpubench::validate(d), "axis 'size MiB': name must be snake_case"));
}

TEST(Validate, EveryProblemIsReported) {
  pair_def d;  // nothing declared: chapter 0, no name/title/explanation/variants/work/axes
  // chapter, empty name, title, explanation, variants, work model, axes = 7 problems.
  EXPECT_EQ(gpubench::validate(d).size(), 7u);
}

/// chapter 2: zeta, alpha; chapter 1: mid; chapter 3 declared without pairs.
registry sample_registry() {
  registry r;
  r.add(valid_def(2, "zeta"));
  r.add(valid_def(1, "mid"));
  r.add(valid_def(2, "alpha"));
  r.add(gpubench::chapter_def{1, "foundations", "Launch overhead"});
  r.add(gpubench::chapter_def{3, "empty", "A chapter without pairs"});
  return r;
}

TEST(Registry, PairsSortedByChapterThenName) {
  const auto r = sample_registry();
  EXPECT_EQ(ids(r.pairs()), (std::vector<std::string>{"ch01/mid", "ch02/alpha", "ch02/zeta"}));
  EXPECT_TRUE(r.problems().empty());
}

TEST(Registry, ChaptersIncludeThoseWithOnlyPairs) {
  const auto r = sample_registry();
  const auto cs = r.chapters();
  ASSERT_EQ(cs.size(), 3u);  // 1 (declared), 2 (only pairs, untitled), 3 (declared, no pairs)
  EXPECT_EQ(cs[0].number, 1);
  EXPECT_EQ(cs[0].title, "Launch overhead");
  EXPECT_EQ(cs[1].number, 2);
  EXPECT_EQ(cs[1].title, "");
  EXPECT_EQ(cs[2].number, 3);
  ASSERT_NE(r.find_chapter(1), nullptr);
  EXPECT_EQ(r.find_chapter(1)->slug, "foundations");
  EXPECT_EQ(r.find_chapter(2), nullptr);  // find_chapter only knows declared chapters
}

TEST(Registry, SelectByChapterNameAndId) {
  const auto r = sample_registry();
  EXPECT_EQ(ids(r.select(std::nullopt, {})).size(), 3u);
  EXPECT_EQ(ids(r.select(2, {})), (std::vector<std::string>{"ch02/alpha", "ch02/zeta"}));
  EXPECT_EQ(ids(r.select(2, {"zeta"})), (std::vector<std::string>{"ch02/zeta"}));
  EXPECT_EQ(ids(r.select(std::nullopt, {"ch01/mid"})), (std::vector<std::string>{"ch01/mid"}));
  EXPECT_EQ(ids(r.select(2, {"ch02/alpha"})), (std::vector<std::string>{"ch02/alpha"}));
  // Order follows the names given; a name repeated (as name and as id) is selected once.
  EXPECT_EQ(ids(r.select(2, {"zeta", "alpha", "ch02/zeta"})), (std::vector<std::string>{"ch02/zeta", "ch02/alpha"}));
}

TEST(Registry, SelectUnknownChapterListsValidChapters) {
  const auto r = sample_registry();
  const auto msg = usage_message([&] { (void)r.select(42, {}); });
  EXPECT_NE(msg.find("no chapter 42"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 (Launch overhead)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gpubench list"), std::string::npos) << msg;
  // A declared chapter with no pairs is also "unknown" for selection.
  EXPECT_THROW((void)r.select(3, {}), gpubench::error);
  const auto empty_msg = usage_message([] { (void)registry().select(1, {}); });
  EXPECT_NE(empty_msg.find("none registered"), std::string::npos) << empty_msg;
}

TEST(Registry, SelectUnknownPairListsValidPairs) {
  const auto r = sample_registry();
  const auto msg = usage_message([&] { (void)r.select(2, {"nope"}); });
  EXPECT_NE(msg.find("no pair 'nope' in chapter 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("valid pairs: alpha, zeta"), std::string::npos) << msg;
  // A pair of another chapter is not valid within chapter 2.
  EXPECT_THROW((void)r.select(2, {"mid"}), gpubench::error);
  const auto all_msg = usage_message([&] { (void)r.select(std::nullopt, {"nope"}); });
  EXPECT_NE(all_msg.find("valid pairs: mid, alpha, zeta"), std::string::npos) << all_msg;
}

TEST(Registry, DuplicatesAndInvalidDeclarationsAreProblems) {
  registry r;
  r.add(valid_def(1, "dup"));
  r.add(valid_def(1, "dup"));
  r.add(valid_def(2, "dup"));  // same name in another chapter is fine
  auto bad = valid_def(1, "bad");
  bad.variants.resize(1);
  r.add(bad);
  r.add(gpubench::chapter_def{1, "a", "A"});
  r.add(gpubench::chapter_def{1, "b", "B"});
  const auto& p = r.problems();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], "ch01/dup: declared twice");
  EXPECT_EQ(p[1], "ch01/bad: needs two or more variants (the first is the baseline)");
  EXPECT_EQ(p[2], "chapter 1 declared twice");
}

// ---- absent pairs: left out of this build (chapter 8's NCCL pairs without NCCL) ----

gpubench::absent_pair absent_def(int chapter, std::string name) {
  return {chapter, std::move(name), "an absent pair", "not built: NCCL was not found (install it, then reconfigure)"};
}

TEST(Registry, AbsentPairsAreListedSortedWithTheirChapter) {
  auto r = sample_registry();
  r.add(absent_def(2, "needs_lib"));
  r.add(absent_def(1, "also_absent"));
  r.add(absent_def(7, "only_absent"));
  EXPECT_TRUE(r.problems().empty());
  const auto all = r.absent();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0]->id(), "ch01/also_absent");
  EXPECT_EQ(all[1]->id(), "ch02/needs_lib");
  EXPECT_EQ(all[2]->id(), "ch07/only_absent");
  ASSERT_EQ(r.absent(2).size(), 1u);
  EXPECT_TRUE(r.absent(3).empty());
  // Absent pairs are never selected or counted as pairs.
  EXPECT_EQ(ids(r.select(2, {})), (std::vector<std::string>{"ch02/alpha", "ch02/zeta"}));
  EXPECT_EQ(r.pairs().size(), 3u);
  // A chapter that only has absent pairs still shows up (untitled), so `list` can say why.
  const auto cs = r.chapters();
  EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [](const gpubench::chapter_def& c) { return c.number == 7; }));
}

TEST(Registry, SelectingAnAbsentPairNamesTheReason) {
  auto r = sample_registry();
  r.add(absent_def(2, "needs_lib"));
  r.add(absent_def(7, "only_absent"));
  for (const auto& name : {std::string("needs_lib"), std::string("ch02/needs_lib")}) {
    const auto msg = usage_message([&] { (void)r.select(2, {name}); });
    EXPECT_NE(msg.find("ch02/needs_lib is not in this build: not built: NCCL was not found"), std::string::npos) << msg;
  }
  const auto by_id = usage_message([&] { (void)r.select(std::nullopt, {"ch02/needs_lib"}); });
  EXPECT_NE(by_id.find("is not in this build"), std::string::npos) << by_id;
  // A chapter whose every pair is absent says why instead of "no chapter".
  const auto chapter_msg = usage_message([&] { (void)r.select(7, {}); });
  EXPECT_NE(chapter_msg.find("ch07/only_absent is not in this build"), std::string::npos) << chapter_msg;
  // Unknown names are still unknown.
  const auto unknown = usage_message([&] { (void)r.select(2, {"nope"}); });
  EXPECT_NE(unknown.find("no pair 'nope'"), std::string::npos) << unknown;
}

TEST(Registry, AbsentDeclarationsAreChecked) {
  registry r;
  r.add(valid_def(1, "both"));
  r.add(absent_def(1, "both"));
  r.add(gpubench::absent_pair{1, "Bad-Name", "t", "why"});
  r.add(gpubench::absent_pair{1, "no_reason", "t", ""});
  const auto& p = r.problems();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], "ch01/both: declared both built and absent");
  EXPECT_NE(p[1].find("snake_case"), std::string::npos) << p[1];
  EXPECT_NE(p[2].find("must say why"), std::string::npos) << p[2];
}

TEST(Builder, RegistersIntoGlobalRegistry) {
  static const gpubench::registration reg =
      gpubench::pair_builder<dummy_state>(98, "builder_probe_pair", "a builder test pair")
          .explain("only exists to test the builder")
          .axis("n", {8, 64})
          .label_axis("dir", {"h2d", "d2h"})
          .work([](const gpubench::size_point& z) {
            gpubench::work w;
            w.bytes = static_cast<double>(z["n"]) * 4;
            return w;
          })
          .variant("baseline", "plain", [](dummy_state& s, gpubench::stream_t) { s.runs += 1; })
          .variant("optimized", "clever", [](dummy_state& s, gpubench::stream_t) { s.runs += 10; })
          .variant("half", "in FP16", [](dummy_state& s, gpubench::stream_t) { s.runs += 100; },
                   {.flops_kind = gpubench::flop_kind::fp16, .check = gpubench::tolerance::relative(5e-3)})
          .check(gpubench::tolerance::relative(1e-5))
          .timing(gpubench::timing_method::host_wall)
          .cache(gpubench::cache_mode::hot);
  EXPECT_TRUE(reg.ok);

  const auto& g = registry::global();
  EXPECT_FALSE(contains(g.problems(), "builder_probe_pair")) << "the declaration is valid";
  const auto found = g.select(98, {"builder_probe_pair"});
  ASSERT_EQ(found.size(), 1u);
  const pair_def& p = *found[0];
  EXPECT_EQ(p.id(), "ch98/builder_probe_pair");
  EXPECT_EQ(p.title, "a builder test pair");
  EXPECT_EQ(p.explanation, "only exists to test the builder");
  ASSERT_EQ(p.axes.size(), 2u);
  EXPECT_EQ(p.axes[0].name, "n");
  EXPECT_EQ(std::get<std::int64_t>(p.axes[0].values[1]), 64);
  EXPECT_EQ(p.axes[1].name, "dir");
  EXPECT_EQ(std::get<std::string>(p.axes[1].values[0]), "h2d");
  ASSERT_EQ(p.variants.size(), 3u);
  EXPECT_EQ(p.variants[0].name, "baseline");
  EXPECT_EQ(p.variants[1].description, "clever");
  EXPECT_FALSE(p.variants[1].options.flops_kind.has_value()) << "no override: the work model's kind applies";
  EXPECT_FALSE(p.variants[1].options.check.has_value()) << "no override: the pair's tolerance applies";
  ASSERT_TRUE(p.variants[2].options.flops_kind.has_value());
  EXPECT_EQ(*p.variants[2].options.flops_kind, gpubench::flop_kind::fp16);
  ASSERT_TRUE(p.variants[2].options.check.has_value());
  EXPECT_DOUBLE_EQ(p.variants[2].options.check->max_rel_l2, 5e-3);
  EXPECT_EQ(p.check.type, gpubench::tolerance::kind::relative_l2);
  EXPECT_DOUBLE_EQ(p.check.max_rel_l2, 1e-5);
  EXPECT_EQ(p.timing, gpubench::timing_method::host_wall);
  EXPECT_EQ(p.cache, gpubench::cache_mode::hot);

  // The stored functions work on the host: work model, setup and the variants' adapters.
  const auto z = gpubench::expand(p.axes)[2];  // n=64,dir=h2d (first axis slowest)
  EXPECT_EQ(z.to_string(), "n=64,dir=h2d");
  EXPECT_DOUBLE_EQ(p.work_model(z).bytes, 256.0);  // 64 * 4
  auto state = p.setup(z, gpubench::setup_context{nullptr, 1234});
  auto& s = dynamic_cast<dummy_state&>(*state);
  EXPECT_EQ(s.size, z);
  EXPECT_EQ(s.seed, 1234u);
  p.variants[0].run(*state, nullptr);
  p.variants[1].run(*state, nullptr);
  p.variants[2].run(*state, nullptr);
  EXPECT_EQ(s.runs, 111);
}

TEST(Builder, ChapterDeclarationTakesNumberAndSlugFromTheFolder) {
  static const gpubench::registration reg = gpubench::chapter("Builder probe chapter");  // ch97_probe
  EXPECT_TRUE(reg.ok);
  const auto* c = registry::global().find_chapter(97);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->slug, "probe");
  EXPECT_EQ(c->title, "Builder probe chapter");
}

}  // namespace
