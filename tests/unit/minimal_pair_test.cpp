/// examples/minimal_pair.cu, the pair a new author starts from. Linked into this binary as a file
/// of chapters/ch99_examples/ would be (tests/CMakeLists.txt), it must register under the chapter
/// its folder gives it, pass validate(), and declare the axes and work model it says; the real
/// command line (gpubench_example: gpubench with this chapter alone) must list it. Its run on a
/// GPU is tests/gpu/minimal_pair_test.cu.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "gpubench/registry.hpp"
#include "test_support.hpp"

namespace {

const gpubench::pair_def& example() {
  const auto found = gpubench::registry::global().select(99, {"scale_add"});
  if (found.size() != 1) throw std::runtime_error("examples/minimal_pair.cu is not registered as ch99/scale_add");
  return *found.front();
}

TEST(MinimalPair, RegistersUnderTheChapterItsFolderGives) {
  const gpubench::pair_def& p = example();
  EXPECT_EQ(p.id(), "ch99/scale_add");
  EXPECT_EQ(p.title, "z = 2x + y: scale, then add, vs one fused kernel");
  const auto* chapter = gpubench::registry::global().find_chapter(99);
  ASSERT_NE(chapter, nullptr) << "examples/chapter.cpp declares the chapter";
  EXPECT_EQ(chapter->slug, "examples");
  EXPECT_EQ(chapter->title, "Examples: a minimal pair to start from");
}

TEST(MinimalPair, Validates) {
  EXPECT_TRUE(gpubench::validate(example()).empty());
  // Other tests in this binary register invalid pairs on purpose; none of those is the example.
  for (const auto& problem : gpubench::registry::global().problems())
    EXPECT_EQ(problem.find("ch99/"), std::string::npos) << problem;
}

TEST(MinimalPair, DeclaresItsAxesVariantsAndWorkModel) {
  const gpubench::pair_def& p = example();
  ASSERT_EQ(p.axes.size(), 1u);
  EXPECT_EQ(p.axes[0].name, "n");
  ASSERT_EQ(p.axes[0].values.size(), 2u);
  EXPECT_EQ(std::get<std::int64_t>(p.axes[0].values[0]), std::int64_t{1} << 20);
  EXPECT_EQ(std::get<std::int64_t>(p.axes[0].values[1]), std::int64_t{1} << 26);
  ASSERT_EQ(p.variants.size(), 2u);
  EXPECT_EQ(p.variants[0].name, "baseline");
  EXPECT_EQ(p.variants[1].name, "fused");
  EXPECT_EQ(p.check.type, gpubench::tolerance::kind::exact);
  EXPECT_EQ(p.timing, gpubench::timing_method::cuda_events);
  const auto sizes = gpubench::expand(p.axes);
  ASSERT_EQ(sizes.size(), 2u);
  const gpubench::work w = p.work_model(sizes[0]);  // n = 2^20
  EXPECT_DOUBLE_EQ(w.bytes, 12.0 * (1 << 20));      // x and y read, z written: 4 bytes each
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * (1 << 20));       // a multiply and an add
  EXPECT_EQ(w.path, gpubench::bytes_path::dram);
  EXPECT_EQ(w.flops_kind, gpubench::flop_kind::fp32);
}

TEST(MinimalPair, TheCommandLineListsIt) {
  const std::string exe = std::string("'") + GPUBENCH_EXAMPLE_EXE + "'";
  const shell_result text = run_shell(exe + " list --chapter 99 2>&1");
  ASSERT_EQ(text.status, 0) << text.output;  // 0: every declaration in the binary is valid
  EXPECT_NE(text.output.find("Chapter 99 — Examples: a minimal pair to start from"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("scale_add"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("baseline → fused"), std::string::npos) << text.output;

  const shell_result json = run_shell(exe + " list --json");
  ASSERT_EQ(json.status, 0) << json.output;
  const auto j = nlohmann::json::parse(json.output);
  ASSERT_EQ(j.size(), 1u) << "gpubench_example holds the examples' chapter alone";
  EXPECT_EQ(j[0]["chapter"], 99);
  EXPECT_EQ(j[0]["slug"], "examples");
  ASSERT_EQ(j[0]["pairs"].size(), 1u);
  EXPECT_EQ(j[0]["pairs"][0]["id"], "ch99/scale_add");
  EXPECT_EQ(j[0]["pairs"][0]["axes"]["n"], nlohmann::json::array({1 << 20, 1 << 26}));
}

}  // namespace
