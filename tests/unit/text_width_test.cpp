// Console text by display columns: widths of UTF-8 text, wrapping, table rows, and the width the
// console wraps to ($COLUMNS, else 80 off a terminal).
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpubench/text_width.hpp"

namespace gpubench {
namespace {

TEST(TextWidth, CountsCodePointsNotBytesAndSkipsColour) {
  EXPECT_EQ(display_width(""), 0u);
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("212.3 µs ± 0.3%"), 15u);  // µ and ± are two bytes each
  EXPECT_EQ(display_width("13.6× → 2.0×"), 12u);     // × and → are two and three bytes
  EXPECT_EQ(display_width("\x1b[1;31mslower\x1b[0m"), 6u);
  EXPECT_EQ(display_width("\xff\xfe"), 2u);   // not UTF-8: a column per byte
  EXPECT_EQ(display_width("a\xe2\x86"), 3u);  // a cut sequence: a column per byte left
}

TEST(TextWidth, PadsByColumns) {
  EXPECT_EQ(pad_right("µs", 4), "µs  ");
  EXPECT_EQ(pad_left("µs", 4), "  µs");
  EXPECT_EQ(pad_right("longer", 3), "longer");
}

TEST(TextWidth, WrapsAtSpacesThenAtBreaksThenAnywhere) {
  EXPECT_EQ(wrap_text("one two three", 7), (std::vector<std::string>{"one two", "three"}));
  EXPECT_EQ(wrap_text("one two three", 100), (std::vector<std::string>{"one two three"}));
  EXPECT_EQ(wrap_text("a\n\nb", 10), (std::vector<std::string>{"a", "", "b"}));
  // No space: after a break character, the break kept on the first line.
  EXPECT_EQ(wrap_text("ch01/batched_gemm/optimized[n=1]", 18, "/["),
            (std::vector<std::string>{"ch01/batched_gemm/", "optimized[n=1]"}));
  // Nothing to break at: cut between code points, never inside one.
  EXPECT_EQ(wrap_text("µµµµµ", 2), (std::vector<std::string>{"µµ", "µµ", "µ"}));
  for (const std::string& line : wrap_text("a very long sentence that wraps × several → times at µ widths", 9))
    EXPECT_LE(display_width(line), 9u) << line;
}

TEST(TextWidth, WrapsWithAHangingLead) {
  EXPECT_EQ(wrap_with_lead("note: ", "aaa bbb ccc", 13), "note: aaa bbb\n      ccc\n");
  EXPECT_EQ(wrap_with_lead("  ", "x/y/z", 5, "/"), "  x/\n  y/z\n");
}

TEST(TextWidth, TableRowWrapsEachCellInItsColumn) {
  const std::vector<text_column> cols{{8, false, "/"}, {5, true, ""}, {6, false, ""}};
  const auto lines = table_row("", cols, {"ch01/gemm/fast", "1.2", "same"});
  ASSERT_EQ(lines.size(), 3u);  // the id wraps in its column; the other cells stay on its first line
  EXPECT_EQ(lines[0], "ch01/       1.2  same");
  EXPECT_EQ(lines[1], "gemm/");
  EXPECT_EQ(lines[2], "fast");
  const auto painted = table_row("  ", cols, {"a", "1", "bad"},
                                 [](std::size_t i, const std::string& t) { return i == 2 ? "<" + t + ">" : t; });
  EXPECT_EQ(painted, (std::vector<std::string>{"  a" + std::string(13, ' ') + "1  <bad>"}));
}

TEST(TextWidth, ConsoleWidthFromColumnsElse80) {
  const char* saved = std::getenv("COLUMNS");
  const std::string keep = saved != nullptr ? saved : "";
  std::FILE* file = std::tmpfile();  // not a terminal
  ASSERT_NE(file, nullptr);
  ::unsetenv("COLUMNS");
  EXPECT_EQ(console_width(file), 80u);
  ::setenv("COLUMNS", "120", 1);
  EXPECT_EQ(console_width(file), 120u);
  ::setenv("COLUMNS", "12", 1);
  EXPECT_EQ(console_width(file), kMinConsoleWidth);
  ::setenv("COLUMNS", "99999999999999999999999", 1);
  EXPECT_EQ(console_width(file), kMaxConsoleWidth);
  ::setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(console_width(file), 80u) << "not a number: ignored";
  ::setenv("COLUMNS", "100x", 1);
  EXPECT_EQ(console_width(file), 80u);
  std::fclose(file);
  if (saved != nullptr) ::setenv("COLUMNS", keep.c_str(), 1);
  else ::unsetenv("COLUMNS");
}

}  // namespace
}  // namespace gpubench
