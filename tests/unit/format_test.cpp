/// Unit tests for gpubench/format.hpp.
///
/// Rules (lib/src/text/format.cpp), applied by hand to every literal below:
///  - format_duration: the unit is the largest of s/ms/µs/ns in which the value is >= 1 after
///    rounding to 4 significant digits (so 999.96 µs becomes ms); then 4 significant digits:
///    3 decimals below 10, 2 below 100, 1 above.
///  - format_si: divide by 1000 while the value would print as 1000 or more; then 3 significant
///    digits: 2 decimals below 10, 1 below 100, none above.
///  - format_percent: one decimal, two below 0.1%.
///  - format_factor: two decimals below 10, one above.
#include "gpubench/format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using gpubench::format_duration;
using gpubench::format_factor;
using gpubench::format_percent;
using gpubench::format_si;

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_v = std::numeric_limits<double>::infinity();

TEST(FormatDuration, UnitsAndDigits) {
  EXPECT_EQ(format_duration(212.3e-6), "212.3 µs");  // 212.3 >= 100: one decimal
  // 1.2345e-3 * 1e3 is 1.23449999999999993 in binary, just below the tie: rounds down.
  EXPECT_EQ(format_duration(1.2345e-3), "1.234 ms");
  EXPECT_EQ(format_duration(1.2346e-3), "1.235 ms");
  EXPECT_EQ(format_duration(12.5e-9), "12.50 ns");   // 10 <= 12.5 < 100: two decimals
  EXPECT_EQ(format_duration(2.5), "2.500 s");
  EXPECT_EQ(format_duration(45.678e-3), "45.68 ms");  // 45.678 -> 45.68
  EXPECT_EQ(format_duration(0.0), "0.000 ns");
  EXPECT_EQ(format_duration(-2.5e-3), "-2.500 ms");   // sign kept, unit from |s|
  EXPECT_EQ(format_duration(12345.0), "12345.0 s");   // no unit above seconds
}

TEST(FormatDuration, UnitBoundaries) {
  EXPECT_EQ(format_duration(1.0), "1.000 s");
  EXPECT_EQ(format_duration(1e-3), "1.000 ms");
  EXPECT_EQ(format_duration(1e-6), "1.000 µs");
  EXPECT_EQ(format_duration(999e-9), "999.0 ns");
  EXPECT_EQ(format_duration(999.9e-6), "999.9 µs");
  EXPECT_EQ(format_duration(999.4e-3), "999.4 ms");
  // Values that would round to 1000.0 of a unit move to the next unit.
  EXPECT_EQ(format_duration(999.96e-6), "1.000 ms");
  EXPECT_EQ(format_duration(999.97e-3), "1.000 s");
  EXPECT_EQ(format_duration(999.99e-9), "1.000 µs");
  // ... and values that would round to 10.00 / 100.0 get one decimal fewer.
  EXPECT_EQ(format_duration(9.9996e-3), "10.00 ms");
  EXPECT_EQ(format_duration(99.996e-6), "100.0 µs");
  EXPECT_EQ(format_duration(9.9994e-3), "9.999 ms");
}

TEST(FormatDuration, NonFinite) {
  EXPECT_EQ(format_duration(nan_v), "n/a");
  EXPECT_EQ(format_duration(inf_v), "n/a");
  EXPECT_EQ(format_duration(-inf_v), "n/a");
}

TEST(FormatSi, Prefixes) {
  EXPECT_EQ(format_si(1.26e7, "B"), "12.6 MB");           // 1.26e7 / 1e6 = 12.6
  EXPECT_EQ(format_si(7.9e11, "FLOP/s"), "790 GFLOP/s");  // 7.9e11 / 1e9 = 790
  EXPECT_EQ(format_si(5.0, "B"), "5.00 B");
  EXPECT_EQ(format_si(0.0, "B"), "0.00 B");
  EXPECT_EQ(format_si(999.0, "B"), "999 B");
  EXPECT_EQ(format_si(1500.0, "B"), "1.50 kB");
  EXPECT_EQ(format_si(2.039e12, "B/s"), "2.04 TB/s");     // 2.039 -> 2.04
  EXPECT_EQ(format_si(-2.5e9, "B"), "-2.50 GB");
  EXPECT_EQ(format_si(3.2e15, "FLOP"), "3.20 PFLOP");
  EXPECT_EQ(format_si(1e21, "B"), "1000 EB");             // E is the largest prefix
}

TEST(FormatSi, RoundingBoundaries) {
  EXPECT_EQ(format_si(999.7, "B"), "1.00 kB");   // would print "1000 B"
  EXPECT_EQ(format_si(99.96e3, "B"), "100 kB");  // would print "100.0 kB"
  EXPECT_EQ(format_si(9.996e6, "B"), "10.0 MB"); // would print "10.00 MB"
  EXPECT_EQ(format_si(99.94e3, "B"), "99.9 kB");
}

TEST(FormatSi, NonFinite) {
  EXPECT_EQ(format_si(nan_v, "B"), "n/a");
  EXPECT_EQ(format_si(inf_v, "B/s"), "n/a");
}

TEST(FormatPercent, Precision) {
  EXPECT_EQ(format_percent(0.003), "0.3%");     // 0.3%
  EXPECT_EQ(format_percent(0.0004), "0.04%");   // 0.04% < 0.1%: two decimals
  EXPECT_EQ(format_percent(0.5), "50.0%");
  EXPECT_EQ(format_percent(0.016), "1.6%");
  EXPECT_EQ(format_percent(1.0), "100.0%");
  EXPECT_EQ(format_percent(0.0), "0.00%");
  // 0.001 * 100 = 0.1000000000000000055 in binary: not below 0.1, so one decimal.
  EXPECT_EQ(format_percent(0.001), "0.1%");
  EXPECT_EQ(format_percent(nan_v), "n/a");
  EXPECT_EQ(format_percent(inf_v), "n/a");
}

TEST(FormatFactor, Precision) {
  EXPECT_EQ(format_factor(13.6), "13.6×");
  EXPECT_EQ(format_factor(2.5), "2.50×");
  EXPECT_EQ(format_factor(9.99), "9.99×");
  EXPECT_EQ(format_factor(9.996), "10.0×");  // would print "10.00×"
  EXPECT_EQ(format_factor(0.5), "0.50×");
  EXPECT_EQ(format_factor(123.45), "123.5×");  // 123.45 is 123.4500000000000028 in binary
  EXPECT_EQ(format_factor(nan_v), "n/a");
  EXPECT_EQ(format_factor(inf_v), "n/a");
}

}  // namespace
