/// Unit tests for gpubench/verify.hpp: the baseline's completeness check and compare().
///
/// Arrays are built byte by byte. Poison is 0xFF in every byte, which is a NaN in f32, f64, f16
/// and bf16 (all-ones exponent, non-zero mantissa). f16/bf16 bit patterns were decoded by hand:
///   f16  0x3C00: sign 0, exponent 15 (bias 15), mantissa 0 -> 1.0
///   f16  0xC000: sign 1, exponent 16, mantissa 0             -> -2.0
///   f16  0x3E00: exponent 15, mantissa 0x200 (= 0.5)         -> 1.5
///   bf16 0x3F80: top half of float 0x3F800000                 -> 1.0
///   bf16 0x4000: top half of float 0x40000000                 -> 2.0
#include "gpubench/verify.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using gpubench::compare;
using gpubench::check_reference;
using gpubench::disposition;
using gpubench::element_type;
using gpubench::host_array;
using gpubench::tolerance;

template <class T>
host_array make(element_type type, const std::vector<T>& values) {
  host_array a;
  a.type = type;
  a.bytes.resize(values.size() * sizeof(T));
  // memcpy from an empty vector's null data() is undefined even for 0 bytes (UBSan caught it).
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}
host_array f32(const std::vector<float>& v) { return make(element_type::f32, v); }
host_array f64(const std::vector<double>& v) { return make(element_type::f64, v); }
host_array f16(const std::vector<std::uint16_t>& bits) { return make(element_type::f16, bits); }
host_array bf16(const std::vector<std::uint16_t>& bits) { return make(element_type::bf16, bits); }

void poison(host_array& a, std::size_t index) {
  const auto w = gpubench::size_of(a.type);
  std::memset(a.bytes.data() + index * w, 0xFF, w);
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(ElementType, SizesAndNames) {
  EXPECT_EQ(gpubench::size_of(element_type::f32), 4u);
  EXPECT_EQ(gpubench::size_of(element_type::f64), 8u);
  EXPECT_EQ(gpubench::size_of(element_type::f16), 2u);
  EXPECT_EQ(gpubench::size_of(element_type::bf16), 2u);
  EXPECT_STREQ(gpubench::to_string(element_type::bf16), "bf16");
  EXPECT_EQ(f64({1, 2, 3}).count(), 3u);  // 24 bytes / 8
  EXPECT_EQ(tolerance::exact().describe(), "exact (bitwise)");
  EXPECT_EQ(tolerance::relative(1e-5).describe(), "relative L2 <= 1e-05");
}

TEST(CheckReference, AllFiniteIsReference) {
  const auto v = check_reference(f32({1.0f, -2.0f, 0.0f, 3.5f}));
  EXPECT_EQ(v.result, disposition::reference);
  EXPECT_EQ(v.elements, 4u);
  EXPECT_EQ(v.non_finite, 0u);
  EXPECT_TRUE(v.message.empty());
}

TEST(CheckReference, PoisonedElementsAreIncorrect) {
  auto a = f32({1, 2, 3, 4, 5});
  poison(a, 2);
  poison(a, 4);
  const auto v = check_reference(a);
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_EQ(v.non_finite, 2u);
  EXPECT_TRUE(has(v.message, "2 of 5 elements")) << v.message;
  EXPECT_TRUE(has(v.message, "first at index 2")) << v.message;
  // Infinity counts too.
  EXPECT_EQ(check_reference(f64({1.0, INFINITY})).non_finite, 1u);
  // The poison pattern is a NaN in the 16-bit types as well.
  EXPECT_EQ(check_reference(f16({0x3C00, 0xFFFF})).result, disposition::incorrect);
  EXPECT_EQ(check_reference(bf16({0xFFFF, 0x3F80})).result, disposition::incorrect);
}

TEST(CheckReference, EmptyIsIncorrect) {
  const auto v = check_reference(f32({}));
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_EQ(v.elements, 0u);
  EXPECT_EQ(v.message, "output is empty");
}

TEST(Compare, IdenticalPassesEvenExact) {
  const auto ref = f32({1.5f, -2.25f, 1e-30f});
  const auto v = compare(ref, ref, tolerance::exact());
  EXPECT_EQ(v.result, disposition::passed);
  EXPECT_EQ(v.mismatches, 0u);
  EXPECT_EQ(v.rel_l2_error, 0.0);
}

TEST(Compare, ExactWithOneDifferingElement) {
  const auto ref = f32({1, 2, 3, 4});
  const auto out = f32({1, 2, 3.5f, 4});
  const auto v = compare(out, ref, tolerance::exact());
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_EQ(v.mismatches, 1u);
  EXPECT_DOUBLE_EQ(v.max_abs_error, 0.5);
  EXPECT_TRUE(has(v.message, "1 of 4 elements differ")) << v.message;
  EXPECT_TRUE(has(v.message, "first at index 2: 3.5 vs 3")) << v.message;
  EXPECT_TRUE(has(v.message, "tolerance is exact")) << v.message;
}

TEST(Compare, ExactDistinguishesSignedZero) {
  // +0 and -0 compare equal as numbers but differ bitwise; "exact" means bitwise.
  const auto v = compare(f32({-0.0f}), f32({0.0f}), tolerance::exact());
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_EQ(v.mismatches, 1u);
}

TEST(Compare, RelativeL2PassAndFail) {
  // ref = {3, 4}: ||ref|| = 5. out = {3, 4.05}: ||out - ref|| = 0.05, so rel = 0.05 / 5 = 0.01.
  // f64 keeps the literals exact enough that rel is 0.01 to ~1e-15.
  const auto ref = f64({3.0, 4.0});
  const auto out = f64({3.0, 4.05});
  const auto pass = compare(out, ref, tolerance::relative(0.02));
  EXPECT_EQ(pass.result, disposition::passed);
  EXPECT_NEAR(pass.rel_l2_error, 0.01, 1e-12);
  EXPECT_NEAR(pass.max_abs_error, 0.05, 1e-12);
  EXPECT_EQ(pass.mismatches, 1u);  // counted even when within tolerance
  const auto fail = compare(out, ref, tolerance::relative(0.005));
  EXPECT_EQ(fail.result, disposition::incorrect);
  EXPECT_NEAR(fail.rel_l2_error, 0.01, 1e-12);
  EXPECT_TRUE(has(fail.message, "relative L2 error 0.01 exceeds the tolerance 0.005")) << fail.message;
}

TEST(Compare, RelativeAgainstZeroReference) {
  // ||ref|| = 0: any difference is an infinite relative error.
  const auto v = compare(f32({0, 1e-3f}), f32({0, 0}), tolerance::relative(1.0));
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_TRUE(std::isinf(v.rel_l2_error));
}

TEST(Compare, TypeOrCountMismatchIsIncorrect) {
  const auto by_count = compare(f32({1, 2, 3}), f32({1, 2}), tolerance::relative(1.0));
  EXPECT_EQ(by_count.result, disposition::incorrect);
  EXPECT_TRUE(has(by_count.message, "output is 3 x f32, baseline is 2 x f32")) << by_count.message;
  // Same byte count (8), different types: 2 x f32 vs 1 x f64.
  const auto by_type = compare(f32({1, 2}), f64({1}), tolerance::relative(1.0));
  EXPECT_EQ(by_type.result, disposition::incorrect);
  EXPECT_TRUE(has(by_type.message, "baseline is 1 x f64")) << by_type.message;
}

TEST(Compare, PoisonInOutputFailsAnyTolerance) {
  const auto ref = f32({1, 2, 3});
  auto out = ref;
  poison(out, 1);
  const auto v = compare(out, ref, tolerance::relative(1e9));
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_EQ(v.non_finite, 1u);
  EXPECT_TRUE(has(v.message, "1 of 3 elements are NaN/Inf or were never written (first at index 1)")) << v.message;
}

TEST(Compare, F16Decoding) {
  // ref = {1.0, -2.0} (0x3C00, 0xC000); out = {1.5, -2.0} (0x3E00, 0xC000).
  // Difference 0.5 in element 0: rel = 0.5 / sqrt(1 + 4) = 0.5 / 2.2360680 = 0.2236068.
  const auto v = compare(f16({0x3E00, 0xC000}), f16({0x3C00, 0xC000}), tolerance::exact());
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_EQ(v.mismatches, 1u);
  EXPECT_DOUBLE_EQ(v.max_abs_error, 0.5);
  EXPECT_NEAR(v.rel_l2_error, 0.5 / std::sqrt(5.0), 1e-12);
  EXPECT_TRUE(has(v.message, "first at index 0: 1.5 vs 1")) << v.message;
  // Subnormal f16: 0x0001 = 2^-24; compare against 0x0000 gives max_abs_error 2^-24 exactly.
  const auto sub = compare(f16({0x0001}), f16({0x0000}), tolerance::exact());
  EXPECT_DOUBLE_EQ(sub.max_abs_error, std::ldexp(1.0, -24));
}

TEST(Compare, Bf16Decoding) {
  // ref = {1.0, 1.0} (0x3F80); out = {1.0, 2.0} (0x3F80, 0x4000): diff 1 in element 1,
  // rel = 1 / sqrt(2) = 0.70710678.
  const auto v = compare(bf16({0x3F80, 0x4000}), bf16({0x3F80, 0x3F80}), tolerance::relative(0.5));
  EXPECT_EQ(v.result, disposition::incorrect);
  EXPECT_DOUBLE_EQ(v.max_abs_error, 1.0);
  EXPECT_NEAR(v.rel_l2_error, 1.0 / std::sqrt(2.0), 1e-12);
  EXPECT_EQ(compare(bf16({0x3F80, 0x4000}), bf16({0x3F80, 0x3F80}), tolerance::relative(0.75)).result,
            disposition::passed);
  // bf16 0xC000 is -2.0: against 2.0 the difference is 4.
  EXPECT_DOUBLE_EQ(compare(bf16({0xC000}), bf16({0x4000}), tolerance::exact()).max_abs_error, 4.0);
}

TEST(Compare, F64Decoding) {
  // ref = {1, 2, 2} (norm 3); out = {1, 2, 2.3}: rel = 0.3 / 3 = 0.1.
  const auto v = compare(f64({1, 2, 2.3}), f64({1, 2, 2}), tolerance::relative(0.1 + 1e-9));
  EXPECT_EQ(v.result, disposition::passed);
  EXPECT_NEAR(v.rel_l2_error, 0.1, 1e-12);
  EXPECT_NEAR(v.max_abs_error, 0.3, 1e-12);
}

// The tally/judge split is what the GPU path shares with the host (lib/src/measure/device_verify.cu):
// a tally that reaches judge() from anywhere must give compare()'s verdict and message.
TEST(Tally, CountsWhatCompareDecidesOn) {
  auto ref = f32({1, 2, 3, 4, 0.0f});
  auto out = f32({1, 2.5f, 3, 4, -0.0f});
  poison(out, 3);
  const auto t = gpubench::tally_host(out, ref);
  EXPECT_EQ(t.elements, 5u);
  EXPECT_EQ(t.non_finite, 1u);
  EXPECT_EQ(t.mismatches, 2u) << "2.5 vs 2, and -0 vs +0";
  EXPECT_EQ(t.first_bad, 1u);
  EXPECT_DOUBLE_EQ(t.diff2, 0.25);
  EXPECT_DOUBLE_EQ(t.ref2, 1 + 4 + 9 + 0);  // the non-finite element adds nothing
  EXPECT_DOUBLE_EQ(t.max_abs_error, 0.5);
}

TEST(Tally, JudgeGivesCompareVerdictAndMessage) {
  const auto ref = f32({1, 2, 3, 4});
  const auto out = f32({1, 2, 3.5f, 4});
  const auto t = gpubench::tally_host(out, ref);
  for (const auto& tol : {tolerance::exact(), tolerance::relative(0.01), tolerance::relative(0.5)}) {
    const auto direct = compare(out, ref, tol);
    const auto judged = gpubench::judge(t, tol, 3.5, 3.0);
    EXPECT_EQ(judged.result, direct.result) << tol.describe();
    EXPECT_EQ(judged.message, direct.message) << tol.describe();
    EXPECT_EQ(judged.mismatches, direct.mismatches);
    EXPECT_DOUBLE_EQ(judged.rel_l2_error, direct.rel_l2_error);
  }
  gpubench::comparison_tally clean;
  clean.elements = 7;
  clean.first_bad = 7;
  clean.ref2 = 3;
  EXPECT_EQ(gpubench::judge(clean, tolerance::exact(), 0, 0).result, disposition::passed);
}

TEST(Tally, JudgeReferenceMatchesCheckReference) {
  auto a = f32({1, 2, 3, 4, 5});
  poison(a, 3);
  const auto direct = check_reference(a);
  const auto judged = gpubench::judge_reference(5, 1, 3);
  EXPECT_EQ(judged.result, direct.result);
  EXPECT_EQ(judged.message, direct.message);
  EXPECT_EQ(gpubench::judge_reference(0, 0, 0).message, "output is empty");
  EXPECT_EQ(gpubench::judge_reference(5, 0, 5).result, disposition::reference);
}

}  // namespace
