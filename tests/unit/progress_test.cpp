/// Unit tests for the progress line of `run` (report/progress.hpp): the time-left estimate, the
/// clock format and the line's layout and width.
#include "report/progress.hpp"

#include <gtest/gtest.h>

namespace {

using gpubench::detail::estimate_time_left;
using gpubench::detail::format_clock;
using gpubench::detail::progress_line;
using gpubench::detail::progress_state;

progress_state midway() {
  progress_state p;
  p.pair_id = "ch01/batched_gemm";
  p.size = "batch=40,m=32";
  p.activity = "sampling optimized: 35 samples, noise 0.3%, 0.2 s";
  p.sizes_done = 3;
  p.sizes_total = 26;
  p.elapsed_s = 14;      // 12 s for 3 finished sizes (4 s each), 2 s into the 4th
  p.size_elapsed_s = 2;
  return p;
}

TEST(TimeLeft, AverageOfFinishedSizesTimesRemainingLessTheCurrentSize) {
  // 4 s per size * (26 - 3) sizes - 2 s already spent on the current one = 90 s.
  const auto left = estimate_time_left(midway());
  ASSERT_TRUE(left.has_value());
  EXPECT_DOUBLE_EQ(*left, 90.0);
}

TEST(TimeLeft, NoEstimateBeforeTheFirstSizeOrWithoutAPlan) {
  auto p = midway();
  p.sizes_done = 0;
  EXPECT_FALSE(estimate_time_left(p).has_value());
  p = midway();
  p.sizes_total = 0;
  EXPECT_FALSE(estimate_time_left(p).has_value());
}

TEST(TimeLeft, NeverNegative) {
  auto p = midway();
  p.sizes_done = 25;            // 12 s over 25 sizes = 0.48 s each; one left
  p.size_elapsed_s = 2;         // already longer than that
  EXPECT_DOUBLE_EQ(*estimate_time_left(p), 0.0);
  p.sizes_done = 26;            // all done
  p.size_elapsed_s = 0;
  EXPECT_DOUBLE_EQ(*estimate_time_left(p), 0.0);
}

TEST(FormatClock, SecondsMinutesHours) {
  EXPECT_EQ(format_clock(0), "0 s");
  EXPECT_EQ(format_clock(42.4), "42 s");
  EXPECT_EQ(format_clock(59.6), "1 min 00 s");
  EXPECT_EQ(format_clock(187), "3 min 07 s");
  EXPECT_EQ(format_clock(3900), "1 h 05 min");
  EXPECT_EQ(format_clock(-3), "0 s");
}

TEST(ProgressLine, CounterTimesPairSizeActivity) {
  EXPECT_EQ(progress_line(midway(), 200),
            "[4/26 · 14 s · ~1 min 30 s left, est.] ch01/batched_gemm [batch=40,m=32]  "
            "sampling optimized: 35 samples, noise 0.3%, 0.2 s");
}

TEST(ProgressLine, WithoutPlanOrFinishedSizeOnlyTheElapsedTime) {
  auto p = midway();
  p.sizes_total = 0;
  EXPECT_EQ(progress_line(p, 200).rfind("[14 s] ch01/batched_gemm", 0), 0U) << progress_line(p, 200);
  p = midway();
  p.sizes_done = 0;
  EXPECT_EQ(progress_line(p, 200).rfind("[1/26 · 14 s] ch01/batched_gemm", 0), 0U) << progress_line(p, 200);
}

TEST(ProgressLine, ASweptSizesSharesCountOnceTheyMakeAWholeSize) {
  auto p = midway();
  p.sizes_done = 3 + 2.0 / 3;  // two of a swept size's three rounds ended
  EXPECT_EQ(progress_line(p, 200).rfind("[4/26 ·", 0), 0U) << progress_line(p, 200);
  p.sizes_done = 3 + 1.0 / 3 + 1.0 / 3 + 1.0 / 3;  // all three, summed as the console sums them
  EXPECT_EQ(progress_line(p, 200).rfind("[5/26 ·", 0), 0U) << progress_line(p, 200);
}

TEST(ProgressLine, CutToTheWidthCountingCodePoints) {
  const auto full = progress_line(midway(), 1000);
  // "·" is two bytes in UTF-8 but one column: count code points.
  const auto cols = [](const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
    return n;
  };
  ASSERT_GT(cols(full), 60U);
  const auto cut = progress_line(midway(), 60);
  EXPECT_EQ(cols(cut), 60U) << cut;
  EXPECT_EQ(cut.substr(cut.size() - 3), "…") << cut;
  EXPECT_EQ(full.substr(0, cut.size() - 3), cut.substr(0, cut.size() - 3));
  // The progress part comes first, so a narrow terminal keeps it.
  EXPECT_EQ(progress_line(midway(), 40).substr(0, 6), "[4/26 ");
  EXPECT_EQ(progress_line(midway(), cols(full)), full);
}

}  // namespace
