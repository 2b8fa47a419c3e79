// Output verification on the host. Poisoned (never written) elements are NaN in every float type
// we support, so "every element finite" doubles as "every element written".
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "gpubench/verify.hpp"

namespace gpubench {

// Names as they appear in profiles and on the console: part of the profile schema
// (docs/profile-schema.md).
const char* to_string(element_type t) {
  switch (t) {
    case element_type::f32: return "f32";
    case element_type::f64: return "f64";
    case element_type::f16: return "f16";
    case element_type::bf16: return "bf16";
  }
  return "?";
}

const char* to_string(disposition d) {
  switch (d) {
    case disposition::passed: return "passed";
    case disposition::incorrect: return "incorrect";
    case disposition::not_verified: return "not_verified";
    case disposition::reference: return "reference";
  }
  return "?";
}

std::size_t size_of(element_type t) {
  switch (t) {
    case element_type::f32: return 4;
    case element_type::f64: return 8;
    case element_type::f16:
    case element_type::bf16: return 2;
  }
  return 1;
}

std::string tolerance::describe() const {
  if (type == kind::exact) return "exact (bitwise)";
  return fmt::format("relative L2 <= {:g}", max_rel_l2);
}

namespace {

double half_to_double(std::uint16_t h) {
  const int sign = (h >> 15) & 1;
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(mant, -24);
  else if (exp == 31) v = mant ? std::nan("") : INFINITY;
  else v = std::ldexp(mant + 1024, exp - 25);
  return sign ? -v : v;
}

// bf16 is the top half of an IEEE float.
double bf16_to_double(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

double element(const host_view& a, std::size_t i) { return element_value(a.bytes.data(), a.type, i); }

// Non-finite (NaN/Inf, and so never-written poison) means an all-ones exponent in every IEEE
// format. Testing the bits in a typed loop lets the compiler vectorize the count, which matters
// at GiB sizes: decoding element by element through element() took ~0.5 s per GiB.
template <class Bits>
std::size_t count_all_ones(const std::byte* p, std::size_t n, Bits exponent_mask, std::size_t& first) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    Bits b;
    std::memcpy(&b, p + i * sizeof(Bits), sizeof(Bits));
    count += (b & exponent_mask) == exponent_mask;
  }
  first = n;
  if (count > 0)  // a second pass only on failure, so the hot loop stays branch-free
    for (std::size_t i = 0; i < n && first == n; ++i) {
      Bits b;
      std::memcpy(&b, p + i * sizeof(Bits), sizeof(Bits));
      if ((b & exponent_mask) == exponent_mask) first = i;
    }
  return count;
}

std::size_t count_non_finite(const host_view& a, std::size_t& first) {
  const std::byte* p = a.bytes.data();
  const std::size_t n = a.count();
  switch (a.type) {
    case element_type::f32: return count_all_ones<std::uint32_t>(p, n, 0x7f800000u, first);
    case element_type::f64: return count_all_ones<std::uint64_t>(p, n, 0x7ff0000000000000ull, first);
    case element_type::f16: return count_all_ones<std::uint16_t>(p, n, 0x7c00u, first);
    case element_type::bf16: return count_all_ones<std::uint16_t>(p, n, 0x7f80u, first);
  }
  first = n;
  return 0;
}

}  // namespace

double element_value(const std::byte* data, element_type t, std::size_t i) {
  const std::byte* p = data + i * size_of(t);
  switch (t) {
    case element_type::f32: { float f; std::memcpy(&f, p, 4); return f; }
    case element_type::f64: { double d; std::memcpy(&d, p, 8); return d; }
    case element_type::f16: { std::uint16_t h; std::memcpy(&h, p, 2); return half_to_double(h); }
    case element_type::bf16: { std::uint16_t h; std::memcpy(&h, p, 2); return bf16_to_double(h); }
  }
  return 0;
}

verification judge_reference(std::size_t elements, std::size_t non_finite, std::size_t first) {
  verification v;
  v.elements = elements;
  v.non_finite = non_finite;
  if (v.elements == 0) {
    v.result = disposition::incorrect;
    v.message = "output is empty";
  } else if (v.non_finite > 0) {
    v.result = disposition::incorrect;
    v.message = fmt::format("{} of {} elements are NaN/Inf or were never written (first at index {})",
                            v.non_finite, v.elements, first);
  } else {
    v.result = disposition::reference;
  }
  return v;
}

verification check_reference(const host_view& out) {
  std::size_t first = out.count();
  const std::size_t non_finite = count_non_finite(out, first);
  return judge_reference(out.count(), non_finite, first);
}

comparison_tally tally_host(const host_view& out, const host_view& ref) {
  comparison_tally t;
  t.elements = out.count();
  t.first_bad = t.elements;
  for (std::size_t i = 0; i < t.elements; ++i) {
    const double a = element(out, i), b = element(ref, i);
    if (!std::isfinite(a)) {
      if (t.non_finite++ == 0 && t.first_bad == t.elements) t.first_bad = i;
      continue;
    }
    const double d = std::fabs(a - b);
    if (d != 0 || std::signbit(a) != std::signbit(b)) {
      if (t.mismatches++ == 0 && t.first_bad == t.elements) t.first_bad = i;
    }
    t.diff2 += d * d;
    t.ref2 += b * b;
    t.max_abs_error = std::max(t.max_abs_error, d);
  }
  return t;
}

verification judge(const comparison_tally& t, const tolerance& tol, double out_first, double ref_first) {
  verification v;
  v.elements = t.elements;
  v.non_finite = t.non_finite;
  v.mismatches = t.mismatches;
  v.max_abs_error = t.max_abs_error;
  v.rel_l2_error = t.ref2 > 0 ? std::sqrt(t.diff2 / t.ref2) : (t.diff2 > 0 ? INFINITY : 0.0);
  if (v.non_finite > 0) {
    v.result = disposition::incorrect;
    v.message = fmt::format("{} of {} elements are NaN/Inf or were never written (first at index {})",
                            v.non_finite, v.elements, t.first_bad);
  } else if (tol.type == tolerance::kind::exact && v.mismatches > 0) {
    v.result = disposition::incorrect;
    v.message = fmt::format("{} of {} elements differ from the baseline (first at index {}: {:g} vs {:g}); "
                            "tolerance is exact",
                            v.mismatches, v.elements, t.first_bad, out_first, ref_first);
  } else if (tol.type == tolerance::kind::relative_l2 && !(v.rel_l2_error <= tol.max_rel_l2)) {
    v.result = disposition::incorrect;
    v.message = fmt::format("relative L2 error {:.3g} exceeds the tolerance {:g} (max abs error {:.3g})",
                            v.rel_l2_error, tol.max_rel_l2, v.max_abs_error);
  } else {
    v.result = disposition::passed;
  }
  return v;
}

verification compare(const host_view& out, const host_view& ref, const tolerance& tol) {
  if (out.type != ref.type || out.count() != ref.count()) {
    verification v;
    v.elements = out.count();
    v.result = disposition::incorrect;
    v.message = fmt::format("output is {} x {}, baseline is {} x {}", out.count(), to_string(out.type), ref.count(),
                            to_string(ref.type));
    return v;
  }
  // Fast path: bitwise identical outputs pass any tolerance (the reference is known finite).
  // memcmp, not vector<std::byte>::operator==, which GCC 12 does not turn into one (0.8 s/GiB vs 0.1).
  if (out.bytes.size() == ref.bytes.size() &&
      (out.bytes.empty() || std::memcmp(out.bytes.data(), ref.bytes.data(), out.bytes.size()) == 0)) {
    verification v;
    v.elements = out.count();
    v.result = disposition::passed;
    return v;
  }
  const comparison_tally t = tally_host(out, ref);
  const bool any_bad = t.first_bad < t.elements;
  return judge(t, tol, any_bad ? element(out, t.first_bad) : 0.0, any_bad ? element(ref, t.first_bad) : 0.0);
}

}  // namespace gpubench
