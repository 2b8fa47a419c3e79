#pragma once
/// Verification: every variant's output is compared with the baseline's before any timing counts.
/// Outputs are poisoned (all bytes 0xFF, a NaN in every float type) before each verification run,
/// so an element nobody wrote shows up as NaN. Pure host code.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
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

/// A host copy of one output.
struct host_array {
  element_type type = element_type::f32;
  std::vector<std::byte> bytes;
  [[nodiscard]] std::size_t count() const { return bytes.size() / size_of(type); }
};

/// The baseline's own check: every element written and finite.
verification check_reference(const host_array& out);
/// A variant against the baseline. Both must have the same type and count.
verification compare(const host_array& out, const host_array& ref, const tolerance& tol);

}  // namespace gpubench
