/// Unit tests for gpubench/size.hpp: size points, axis expansion and --axis overrides.
///
/// Expected values are written out by hand from the documented rules: expand() is the cartesian
/// product with the first axis varying slowest; to_string() joins "name=value" with ','.
#include "gpubench/size.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpubench/error.hpp"

namespace {

using gpubench::apply_overrides;
using gpubench::axis;
using gpubench::axis_override;
using gpubench::axis_value;
using gpubench::expand;
using gpubench::parse_axis_override;
using gpubench::size_point;

size_point sample_point() {
  return size_point({{"batch", axis_value{std::int64_t{40}}}, {"dir", axis_value{std::string("h2d")}},
                     {"m", axis_value{std::int64_t{32}}}});
}


TEST(SizePoint, IntegerAndLabelAccess) {
  const auto z = sample_point();
  EXPECT_EQ(z["batch"], 40);
  EXPECT_EQ(z["m"], 32);
  EXPECT_EQ(z.label("dir"), "h2d");
  EXPECT_TRUE(z.has("batch"));
  EXPECT_TRUE(z.has("dir"));
  EXPECT_FALSE(z.has("n"));
}

TEST(SizePoint, WrongKindOrMissingAxisThrowsOutOfRange) {
  const auto z = sample_point();
  EXPECT_THROW((void)z["dir"], std::out_of_range);       // label axis read as integer
  EXPECT_THROW((void)z.label("batch"), std::out_of_range);  // integer axis read as label
  EXPECT_THROW((void)z["n"], std::out_of_range);
  EXPECT_THROW((void)z.label("n"), std::out_of_range);
}

TEST(SizePoint, ToStringKeepsDeclarationOrder) {
  EXPECT_EQ(sample_point().to_string(), "batch=40,dir=h2d,m=32");
  EXPECT_EQ(size_point().to_string(), "");
  EXPECT_EQ(gpubench::to_string(axis_value{std::int64_t{-7}}), "-7");
  EXPECT_EQ(gpubench::to_string(axis_value{std::string("d2h")}), "d2h");
}

TEST(Expand, CartesianProductFirstAxisSlowest) {
  const std::vector<axis> axes{{"a", {std::int64_t{1}, std::int64_t{2}}},
                               {"b", {std::int64_t{10}, std::int64_t{20}, std::int64_t{30}}}};
  const auto pts = expand(axes);
  // 2 x 3 = 6 points; a changes only after b has cycled through all of its values.
  const std::vector<std::string> want{"a=1,b=10", "a=1,b=20", "a=1,b=30", "a=2,b=10", "a=2,b=20", "a=2,b=30"};
  ASSERT_EQ(pts.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(pts[i].to_string(), want[i]) << i;
  EXPECT_EQ(pts[4]["a"], 2);
  EXPECT_EQ(pts[4]["b"], 20);
}

TEST(Expand, LabelAxesMixWithIntegerAxes) {
  // Same shape as ch01/pinned_transfers: dir=h2d,d2h x size_mib=1,16.
  const std::vector<axis> axes{{"dir", {std::string("h2d"), std::string("d2h")}},
                               {"size_mib", {std::int64_t{1}, std::int64_t{16}}}};
  const auto pts = expand(axes);
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[0].to_string(), "dir=h2d,size_mib=1");
  EXPECT_EQ(pts[1].to_string(), "dir=h2d,size_mib=16");
  EXPECT_EQ(pts[2].to_string(), "dir=d2h,size_mib=1");
  EXPECT_EQ(pts[3].to_string(), "dir=d2h,size_mib=16");
  EXPECT_EQ(pts[2].label("dir"), "d2h");
  EXPECT_EQ(pts[3]["size_mib"], 16);
}

TEST(Expand, EdgeCases) {
  // No axes: the empty product is one empty point. An axis without values: no points at all.
  const auto none = expand({});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].entries().empty());
  EXPECT_TRUE(expand({{"a", {std::int64_t{1}}}, {"b", {}}}).empty());
}

TEST(ParseAxisOverride, GoodInputs) {
  const auto o = parse_axis_override("size_mib=1,64");
  EXPECT_EQ(o.name, "size_mib");
  EXPECT_EQ(o.values, (std::vector<std::string>{"1", "64"}));
  const auto one = parse_axis_override("dir=h2d");
  EXPECT_EQ(one.name, "dir");
  EXPECT_EQ(one.values, (std::vector<std::string>{"h2d"}));
  // Values are kept as typed; they are only checked against the axis kind in apply_overrides.
  EXPECT_EQ(parse_axis_override("n=abc,-1").values, (std::vector<std::string>{"abc", "-1"}));
}

TEST(ParseAxisOverride, BadInputsAreUsageErrors) {
  for (const char* bad : {"x", "=1", "n=", "", "="}) {
    const auto msg = usage_message([&] { (void)parse_axis_override(bad); });
    EXPECT_NE(msg.find("expected NAME=V1[,V2...]"), std::string::npos) << bad << ": " << msg;
  }
  for (const char* bad : {"n=1,,2", "n=1,", "n=,1"}) {
    const auto msg = usage_message([&] { (void)parse_axis_override(bad); });
    EXPECT_NE(msg.find("empty value"), std::string::npos) << bad << ": " << msg;
    EXPECT_NE(msg.find(bad), std::string::npos) << "message should quote the input: " << msg;
  }
}

std::vector<axis> pair_axes() {
  return {{"dir", {std::string("h2d"), std::string("d2h")}},
          {"size_mib", {std::int64_t{1}, std::int64_t{16}, std::int64_t{256}}}};
}

TEST(ApplyOverrides, IntegerAxisAcceptsPositiveIntegers) {
  const auto out = apply_overrides(pair_axes(), {{"size_mib", {"2", "4096"}}}, "ch01/pinned_transfers");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, pair_axes()[0].values);  // the other axis is untouched
  ASSERT_EQ(out[1].values.size(), 2u);
  EXPECT_EQ(std::get<std::int64_t>(out[1].values[0]), 2);
  EXPECT_EQ(std::get<std::int64_t>(out[1].values[1]), 4096);
  // Values outside the declared list are fine for integer axes (any positive size).
}

TEST(ApplyOverrides, IntegerAxisRejectsNonPositiveAndNonIntegers) {
  for (const char* bad : {"0", "-1", "abc", "1.5", "12x", " 3"}) {
    const auto msg = usage_message(
        [&] { (void)apply_overrides(pair_axes(), {{"size_mib", {"1", bad}}}, "ch01/pinned_transfers"); });
    EXPECT_NE(msg.find(std::string("'") + bad + "' is not a positive integer"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ch01/pinned_transfers"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1,16,256"), std::string::npos) << "should show the declared sizes: " << msg;
  }
}

TEST(ApplyOverrides, LabelAxisAcceptsSubsetInGivenOrder) {
  const auto out = apply_overrides(pair_axes(), {{"dir", {"d2h"}}}, "ch01/pinned_transfers");
  ASSERT_EQ(out[0].values.size(), 1u);
  EXPECT_EQ(std::get<std::string>(out[0].values[0]), "d2h");
  EXPECT_EQ(out[1].values, pair_axes()[1].values);
  const auto both = apply_overrides(pair_axes(), {{"dir", {"d2h", "h2d"}}}, "p");
  ASSERT_EQ(both[0].values.size(), 2u);
  EXPECT_EQ(std::get<std::string>(both[0].values[0]), "d2h");
}

TEST(ApplyOverrides, LabelAxisRejectsUnknownLabelListingValidOnes) {
  const auto msg =
      usage_message([&] { (void)apply_overrides(pair_axes(), {{"dir", {"sideways"}}}, "ch01/pinned_transfers"); });
  EXPECT_NE(msg.find("'sideways'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("h2d, d2h"), std::string::npos) << msg;
  EXPECT_NE(msg.find("ch01/pinned_transfers"), std::string::npos) << msg;
  // A number is not a label either.
  EXPECT_THROW((void)apply_overrides(pair_axes(), {{"dir", {"1"}}}, "p"), gpubench::error);
}

TEST(ApplyOverrides, OverridesOfAbsentAxesChangeNothing) {
  // The library ignores them; the CLI rejects an axis no selected pair has (see cli_test).
  const auto out = apply_overrides(pair_axes(), {{"nosuch", {"1"}}}, "p");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "dir");
  EXPECT_EQ(out[0].values, pair_axes()[0].values);
  EXPECT_EQ(out[1].values, pair_axes()[1].values);
  EXPECT_EQ(apply_overrides(pair_axes(), {}, "p")[1].values, pair_axes()[1].values);
}

TEST(ApplyOverrides, SeveralOverridesApplyInOrder) {
  // Two overrides of the same axis: the later one wins (it replaces the axis' values again).
  const auto out = apply_overrides(pair_axes(), {{"size_mib", {"8"}}, {"dir", {"h2d"}}, {"size_mib", {"3"}}}, "p");
  ASSERT_EQ(out[1].values.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(out[1].values[0]), 3);
  ASSERT_EQ(out[0].values.size(), 1u);
  EXPECT_EQ(expand(out).front().to_string(), "dir=h2d,size_mib=3");
}

TEST(SmallestSizes, IntegerAxesKeepTheirSmallestValueLabelsKeepAll) {
  const std::vector<axis> axes = {{"dir", {std::string("h2d"), std::string("d2h")}},
                                  {"n", {std::int64_t{4096}, std::int64_t{1024}, std::int64_t{8192}}},
                                  {"k", {std::int64_t{7}}}};
  const auto out = gpubench::smallest_sizes(axes);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].values.size(), 2u) << "every label kept: each may run different code";
  ASSERT_EQ(out[1].values.size(), 1u);
  EXPECT_EQ(std::get<std::int64_t>(out[1].values[0]), 1024) << "the smallest, not the first";
  EXPECT_EQ(expand(out).size(), 2u);
  // A user's --axis still applies on top, as `run --smallest --axis n=...` does.
  EXPECT_EQ(expand(apply_overrides(out, {{"n", {"64"}}}, "p")).back().to_string(), "dir=d2h,n=64,k=7");
}

}  // namespace
