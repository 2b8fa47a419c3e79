#pragma once
/// Problem sizes. A pair declares axes (name + values); the sizes it runs are the cartesian
/// product of its axes, in declaration order. Values are integers (element counts, MiB, ...)
/// or labels (e.g. a transfer direction "h2d"/"d2h").
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace gpubench {

using axis_value = std::variant<std::int64_t, std::string>;

struct axis {
  std::string name;
  std::vector<axis_value> values;
};

/// One point of a pair's size space: (axis name, value) in axis declaration order.
class size_point {
 public:
  size_point() = default;
  explicit size_point(std::vector<std::pair<std::string, axis_value>> entries)
      : entries_(std::move(entries)) {}

  /// Integer value of an axis; throws std::out_of_range if absent or a label axis.
  [[nodiscard]] std::int64_t operator[](std::string_view name) const;
  /// Label value of an axis; throws std::out_of_range if absent or an integer axis.
  [[nodiscard]] const std::string& label(std::string_view name) const;
  [[nodiscard]] bool has(std::string_view name) const;
  /// "batch=40,m=32" — stable, used in record ids and NVTX range names.
  [[nodiscard]] std::string to_string() const;
  [[nodiscard]] const std::vector<std::pair<std::string, axis_value>>& entries() const { return entries_; }
  bool operator==(const size_point&) const = default;

 private:
  std::vector<std::pair<std::string, axis_value>> entries_;
};

std::string to_string(const axis_value& v);

/// Cartesian product of the axes, first axis varying slowest.
std::vector<size_point> expand(const std::vector<axis>& axes);

/// Each integer axis cut to its smallest value; label axes keep every label. For smoke tests
/// (`run --smallest`, the GPU tests) and for compute-sanitizer, where every kernel must run but
/// the size does not matter.
std::vector<axis> smallest_sizes(const std::vector<axis>& axes);

/// A user's `--axis name=v1,v2` override.
struct axis_override {
  std::string name;
  std::vector<std::string> values;  // as typed; parsed against the axis' kind when applied
};

/// Parses "name=v1,v2,..." (throws usage_error naming the problem).
axis_override parse_axis_override(std::string_view text);

/// Applies overrides to a pair's axes: integer axes accept positive integers, label axes accept
/// a subset of their declared labels. Throws usage_error on a bad value.
std::vector<axis> apply_overrides(const std::vector<axis>& axes, const std::vector<axis_override>& overrides,
                                  std::string_view pair_id);

/// The sizes a run measures for one pair, in order: its axes cut with smallest_sizes() when
/// `smallest`, then the overrides applied, then expanded. (The engine's order; `run` counts them
/// up front for its progress line.)
std::vector<size_point> planned_sizes(const std::vector<axis>& axes, bool smallest,
                                      const std::vector<axis_override>& overrides, std::string_view pair_id);

}  // namespace gpubench
