/// scripts/compare-all-pairs.sh, the script behind docs/results/*.md, "Compare on identical code":
/// every ordered pair of a chapter's runs compared, and its totals (exits 4, verdicts, records able
/// to resolve 10%) equal to what `gpubench compare --json` says pair by pair.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

std::string source(const std::string& rel) { return (fs::path(GPUBENCH_SOURCE_DIR) / rel).string(); }

/// The script over a folder holding two committed profiles as runs 1 and 2 of `chapter` ("ch02"),
/// named as `scripts/gpu.sh processes` names them.
shell_result all_pairs(const temp_dir& d, const std::string& chapter, const std::string& run1, const std::string& run2) {
  fs::copy_file(source(run1), d.path / (chapter + "-r1.json"));
  fs::copy_file(source(run2), d.path / (chapter + "-r2.json"));
  return run_shell(std::string("cd '") + GPUBENCH_SOURCE_DIR + "' && GB='" + GPUBENCH_EXE +
                   "' bash scripts/compare-all-pairs.sh '" + d.path.string() + "' 2>&1");
}

/// Records of `base` -> `next` that compare says can resolve a 10% change.
int resolvable(const fs::path& base, const fs::path& next, const fs::path& json) {
  const auto r = run_shell(std::string("'") + GPUBENCH_EXE + "' compare '" + base.string() + "' '" + next.string() +
                           "' --json '" + json.string() + "' >/dev/null 2>&1");
  EXPECT_NE(r.status, 2);
  std::ifstream in(json);
  const auto c = nlohmann::json::parse(in);
  int n = 0;
  for (const auto& rec : c.at("records"))
    if (rec.contains("resolvable_pct") && rec.at("resolvable_pct").is_number() && rec.at("resolvable_pct").get<double>() <= 10)
      ++n;
  return n;
}

TEST(CompareAllPairsScript, TotalsMatchComparePairByPair) {
  temp_dir d;
  ASSERT_FALSE(d.path.empty());
  const auto r = all_pairs(d, "ch02", "profiles/reference/h100-ch02.json", "profiles/reference/h100-ch02-metrics.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ch02-r1.json -> ch02-r2.json: exit "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ch02-r2.json -> ch02-r1.json: exit "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("== ch02: 2 comparisons, "), std::string::npos) << r.output;
  const int expected = resolvable(d.path / "ch02-r1.json", d.path / "ch02-r2.json", d.path / "a.json") +
                       resolvable(d.path / "ch02-r2.json", d.path / "ch02-r1.json", d.path / "b.json");
  EXPECT_NE(r.output.find("able to resolve 10% " + std::to_string(expected) + "\n"), std::string::npos)
      << "expected " << expected << "\n" << r.output;
  EXPECT_NE(r.output.find("== chapters but 1: " + std::to_string(expected) + " of "), std::string::npos) << r.output;
}

TEST(CompareAllPairsScript, ChapterOneAloneHasNoChapters2To5Total) {
  temp_dir d;
  ASSERT_FALSE(d.path.empty());
  const auto r = all_pairs(d, "ch01", "profiles/reference/h100-ch01.json", "profiles/reference/h100-ch01-r2.json");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("== ch01: 2 comparisons, "), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("chapters but 1"), std::string::npos) << r.output;
}

}  // namespace
