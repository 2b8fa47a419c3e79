// The GPU's verification count (lib/src/measure/device_verify.cu) against the host's
// (gpubench::tally_host) on the same arrays, in every element type: poison, a signed zero, a
// mismatch late in a long array, subnormals, and a size that leaves a partial block. Counts and
// the first bad index must be equal; the sums agree to rounding (they add in another order).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpubench/cuda.hpp"
#include "gpubench/verify.hpp"
#include "measure/device_verify.hpp"

namespace gpubench {
namespace {

host_array random_array(element_type t, std::size_t n, std::uint32_t seed) {
  host_array a;
  a.type = t;
  a.bytes.resize(n * size_of(t));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  for (std::size_t i = 0; i < n; ++i) {
    const float f = u(gen);
    std::byte* p = a.bytes.data() + i * size_of(t);
    switch (t) {
      case element_type::f32: std::memcpy(p, &f, 4); break;
      case element_type::f64: { const double d = f; std::memcpy(p, &d, 8); break; }
      case element_type::f16: {  // a finite half: sign, exponent 1..30, any mantissa
        const auto bits = static_cast<std::uint16_t>((gen() & 0x83ffu) | ((1 + gen() % 30) << 10));
        std::memcpy(p, &bits, 2);
        break;
      }
      case element_type::bf16: { std::uint32_t b; std::memcpy(&b, &f, 4); const auto h = std::uint16_t(b >> 16); std::memcpy(p, &h, 2); break; }
    }
  }
  return a;
}

void set_bits(host_array& a, std::size_t i, std::uint64_t bits) { std::memcpy(a.bytes.data() + i * size_of(a.type), &bits, size_of(a.type)); }
void flip_low_bit(host_array& a, std::size_t i) { a.bytes[i * size_of(a.type)] ^= std::byte{1}; }

comparison_tally on_device(const host_array& out, const host_array* ref) {
  device_buffer<std::byte> d_out(out.bytes.size()), d_ref(ref ? ref->bytes.size() : 0);
  GPUBENCH_CUDA(cudaMemcpy(d_out.get(), out.bytes.data(), out.bytes.size(), cudaMemcpyHostToDevice));
  if (ref) GPUBENCH_CUDA(cudaMemcpy(d_ref.get(), ref->bytes.data(), ref->bytes.size(), cudaMemcpyHostToDevice));
  return detail::tally_on_device(d_out.get(), ref ? d_ref.get() : nullptr, out.count(), out.type, nullptr);
}

void expect_same(const comparison_tally& d, const comparison_tally& h) {
  EXPECT_EQ(d.elements, h.elements);
  EXPECT_EQ(d.non_finite, h.non_finite);
  EXPECT_EQ(d.mismatches, h.mismatches);
  EXPECT_EQ(d.first_bad, h.first_bad);
  EXPECT_NEAR(d.diff2, h.diff2, 1e-12 * std::max(1.0, h.diff2));
  EXPECT_NEAR(d.ref2, h.ref2, 1e-12 * std::max(1.0, h.ref2));
  EXPECT_EQ(d.max_abs_error, h.max_abs_error);
}

TEST(device_verify, tallies_as_the_host_does_in_every_type) {
  // 1 << 20 + 77: many elements per thread over the capped grid, and a partial last block.
  const std::size_t n = (std::size_t(1) << 20) + 77;
  for (const element_type t : {element_type::f32, element_type::f64, element_type::f16, element_type::bf16}) {
    SCOPED_TRACE(to_string(t));
    const host_array ref = random_array(t, n, 7);
    host_array out = ref;
    expect_same(on_device(out, &ref), tally_host(out, ref));  // identical: nothing bad
    EXPECT_EQ(on_device(out, &ref).first_bad, n);

    flip_low_bit(out, n - 3);                   // one ulp late in the array
    set_bits(out, n / 2, ~std::uint64_t(0));     // poison (0xFF.. is NaN in every type)
    set_bits(out, 5, 0);                         // +0 against a random non-zero value
    host_array zref = ref;
    set_bits(zref, 9, 0);
    set_bits(out, 9, std::uint64_t(1) << (8 * size_of(t) - 1));  // -0 against +0: a mismatch
    set_bits(out, 11, 1);                        // the smallest subnormal
    const comparison_tally h = tally_host(out, zref);
    EXPECT_EQ(h.non_finite, 1u);
    EXPECT_EQ(h.first_bad, 5u);
    expect_same(on_device(out, &zref), h);

    // Reference mode: only non-finite elements count.
    const comparison_tally r = on_device(out, nullptr);
    EXPECT_EQ(r.non_finite, 1u);
    EXPECT_EQ(r.mismatches, 0u);
    EXPECT_EQ(r.first_bad, n / 2);
  }
}

TEST(device_verify, element_reads_back_one_value) {
  const host_array a = random_array(element_type::bf16, 100, 3);
  device_buffer<std::byte> d(a.bytes.size());
  GPUBENCH_CUDA(cudaMemcpy(d.get(), a.bytes.data(), a.bytes.size(), cudaMemcpyHostToDevice));
  EXPECT_EQ(detail::device_element(d.get(), element_type::bf16, 42), element_value(a.bytes.data(), element_type::bf16, 42));
}

TEST(device_verify, empty_output_counts_nothing) {
  const comparison_tally t = detail::tally_on_device(nullptr, nullptr, 0, element_type::f32, nullptr);
  EXPECT_EQ(t.elements, 0u);
  EXPECT_EQ(t.first_bad, 0u);
}

}  // namespace
}  // namespace gpubench
