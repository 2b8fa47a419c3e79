#pragma once
/// Verification: every variant's output is compared with the baseline's before any timing counts.
/// Outputs are poisoned (all bytes 0xFF, a NaN in every float type) before each verification run,
/// so an element nobody wrote shows up as NaN. Pure host code.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpubench {

enum class element_type { f32, f64, f16, bf16 };
std::size_t size_of(element_type t);
const char* to_string(element_type t);

/// Declared tolerance of a pair.
struct tolerance {
  enum class kind { exact, relative_l2 };
  kind type = kind::exact;
  double max_rel_l2 = 0;  ///< for relative_l2: ||out - ref||_2 / ||ref||_2 must be <= this

  static tolerance exact() { return {kind::exact, 0}; }
  static tolerance relative(double max_rel_l2) { return {kind::relative_l2, max_rel_l2}; }
  [[nodiscard]] std::string describe() const;
};

/// CUTLASS-profiler style disposition.
enum class disposition {
  passed,        ///< matched the baseline within tolerance
  incorrect,     ///< differed, or left elements unwritten / non-finite
  not_verified,  ///< could not be checked (the baseline itself failed, or the variant errored)
  reference,     ///< the baseline: checked for completeness (every element written and finite)
};
const char* to_string(disposition d);

struct verification {
  disposition result = disposition::not_verified;
  std::size_t elements = 0;
  std::size_t non_finite = 0;   ///< NaN/Inf elements, including never-written (poisoned) ones
  std::size_t mismatches = 0;   ///< exact: differing elements; relative: elements differing at all
  double rel_l2_error = 0;      ///< ||out - ref|| / ||ref||
  double max_abs_error = 0;
  std::string message;          ///< human explanation when not passed
};

/// One output in host memory, wherever it lives (a copy, or a variant's own host buffer).
struct host_view {
  element_type type = element_type::f32;
  std::span<const std::byte> bytes;
  [[nodiscard]] std::size_t count() const { return bytes.size() / size_of(type); }
};

/// std::allocator whose resize() leaves new elements uninitialized, so that a GiB-sized copy is first
/// touched by the threads that fill it (gpubench/host_parallel.hpp), not zeroed by one thread first.
template <class T>
struct uninitialized_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = uninitialized_allocator<U>;
  };
  uninitialized_allocator() = default;
  template <class U>
  uninitialized_allocator(const uninitialized_allocator<U>&) noexcept {}  // NOLINT: as std::allocator
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A host copy of one output.
struct host_array {
  element_type type = element_type::f32;
  std::vector<std::byte, uninitialized_allocator<std::byte>> bytes;
  [[nodiscard]] std::size_t count() const { return bytes.size() / size_of(type); }
  operator host_view() const { return {type, bytes}; }  // NOLINT: a view of it wherever a view is taken
};

/// The baseline's own check: every element written and finite.
verification check_reference(const host_view& out);
/// A variant against the baseline. Both must have the same type and count.
verification compare(const host_view& out, const host_view& ref, const tolerance& tol);

/// What comparing an output with the reference counts, element by element, wherever it was
/// counted: compare() above on the host, or a kernel on the GPU (lib/src/measure/device_verify.cu)
/// when both live there. For element i with out value a and reference value b: a non-finite a is
/// counted and skipped; otherwise d = |a - b| adds d² and b², and the element is a mismatch when
/// d != 0 or the signs differ (so -0 against +0 is one).
struct comparison_tally {
  std::size_t elements = 0;
  std::size_t non_finite = 0;
  std::size_t mismatches = 0;
  double diff2 = 0;
  double ref2 = 0;
  double max_abs_error = 0;
  std::size_t first_bad = 0;  ///< first non-finite or mismatched element; == elements when none
};
/// The host's count (what compare() decides on).
comparison_tally tally_host(const host_view& out, const host_view& ref);
/// The verdict on a tally: `out_first` and `ref_first` are the two values at `first_bad` (for the
/// message; ignored when every element matched).
verification judge(const comparison_tally& t, const tolerance& tol, double out_first, double ref_first);
/// The baseline's verdict from its count of non-finite elements (first at `first`).
verification judge_reference(std::size_t elements, std::size_t non_finite, std::size_t first);
/// Element `i` of raw `data` of type `t`, as a double.
double element_value(const std::byte* data, element_type t, std::size_t i);

}  // namespace gpubench
