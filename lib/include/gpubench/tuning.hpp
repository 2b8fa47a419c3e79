#pragma once
/// Autotuning as a pair kind: one kernel, a grid of launch configurations (block size, elements
/// per thread, stages, ...), every configuration registered as a variant of the pair. The engine
/// then verifies, interleaves, times and compares them like any other variants; `run` ranks them
/// per size and `list` shows the grid (docs/adding-a-pair.md, "Tuning pairs").
///
///   const gpubench::tuning_grid grid = gpubench::tuning_grid()
///       .param("b", "threads per block", {128, 256, 512})
///       .param("e", "float4 per thread", {1, 2, 4})
///       .only("b*e <= 2048", [](const gpubench::tuning_config& c) { return c["b"] * c["e"] <= 2048; });
///   ... gpubench::pair<State>("name", "title")...tune(grid, "b256_e1", run);  // run(State&, stream_t, config)
///
/// A configuration is named by its tags and values in declaration order, "b256_e4": a valid
/// variant name, so records, compare and exports need nothing new. CUDA-free.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench {

/// One launch configuration: (tag, value) per parameter, in the grid's declaration order.
class tuning_config {
 public:
  tuning_config() = default;
  explicit tuning_config(std::vector<std::pair<std::string, std::int64_t>> values) : values_(std::move(values)) {}

  /// The value of parameter `tag`; throws std::out_of_range when the configuration has none.
  [[nodiscard]] std::int64_t operator[](std::string_view tag) const;
  /// "b256_e4": each tag followed by its value, joined by '_'.
  [[nodiscard]] std::string name() const;
  [[nodiscard]] bool empty() const { return values_.empty(); }
  [[nodiscard]] const std::vector<std::pair<std::string, std::int64_t>>& values() const { return values_; }
  bool operator==(const tuning_config&) const = default;

 private:
  std::vector<std::pair<std::string, std::int64_t>> values_;
};

/// One tunable parameter: a short tag used in configuration names, what it means, its values.
struct tuning_param {
  std::string tag;          ///< lower-case letters only ("b", "e", "stages"), so names parse back unambiguously
  std::string description;  ///< "threads per block"
  std::vector<std::int64_t> values;
};

/// The cartesian product of the parameters (first parameter varying slowest), optionally cut by
/// a rule such as "b*e <= 2048" (configurations that cannot launch, or make no sense).
class tuning_grid {
 public:
  tuning_grid& param(std::string tag, std::string description, std::vector<std::int64_t> values);
  /// Keeps only the configurations for which `keep` is true; `rule` says which, for `list`.
  tuning_grid& only(std::string rule, std::function<bool(const tuning_config&)> keep);

  [[nodiscard]] const std::vector<tuning_param>& params() const { return params_; }
  [[nodiscard]] const std::string& rule() const { return rule_; }
  /// Every configuration the grid keeps, in order.
  [[nodiscard]] std::vector<tuning_config> configs() const;
  /// "b=256 (threads per block), e=4 (float4 per thread)": a configuration spelled out.
  [[nodiscard]] std::string describe(const tuning_config& c) const;
  /// Problems with the declaration (empty when valid): tags, values, sizes.
  [[nodiscard]] std::vector<std::string> problems() const;

 private:
  std::vector<tuning_param> params_;
  std::string rule_;
  std::function<bool(const tuning_config&)> keep_;
};

/// Limits on a grid's declaration: more parameters or configurations would make a pair whose
/// run takes hours and whose console view nobody reads.
inline constexpr std::size_t kMaxTuningParams = 8;
inline constexpr std::size_t kMaxTuningConfigs = 256;

}  // namespace gpubench
