// Tuning grids: configurations of one kernel, registered as the variants of a pair (gpubench/tuning.hpp).
#include "gpubench/tuning.hpp"

#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "text/untrusted_text.hpp"

namespace gpubench {

std::int64_t tuning_config::operator[](std::string_view tag) const {
  for (const auto& [t, v] : values_)
    if (t == tag) return v;
  throw std::out_of_range(fmt::format("configuration {} has no parameter '{}'", name(), tag));
}

std::string tuning_config::name() const {
  std::string out;
  for (const auto& [t, v] : values_) out += (out.empty() ? "" : "_") + t + std::to_string(v);
  return out;
}

tuning_grid& tuning_grid::param(std::string tag, std::string description, std::vector<std::int64_t> values) {
  params_.push_back({std::move(tag), std::move(description), std::move(values)});
  return *this;
}

tuning_grid& tuning_grid::only(std::string rule, std::function<bool(const tuning_config&)> keep) {
  rule_ = std::move(rule);
  keep_ = std::move(keep);
  return *this;
}

std::vector<tuning_config> tuning_grid::configs() const {
  std::vector<tuning_config> out;
  if (params_.empty()) return out;
  for (const auto& p : params_)
    if (p.values.empty()) return out;
  // An odometer over the parameters, the last one turning fastest (as size axes expand).
  std::vector<std::size_t> at(params_.size(), 0);
  while (true) {
    std::vector<std::pair<std::string, std::int64_t>> values;
    for (std::size_t i = 0; i < params_.size(); ++i) values.emplace_back(params_[i].tag, params_[i].values[at[i]]);
    tuning_config c(std::move(values));
    if (!keep_ || keep_(c)) out.push_back(std::move(c));
    std::size_t i = params_.size();
    while (i > 0 && ++at[i - 1] == params_[i - 1].values.size()) at[--i] = 0;
    if (i == 0) return out;
  }
}

std::string tuning_grid::describe(const tuning_config& c) const {
  std::vector<std::string> parts;
  for (const auto& [tag, value] : c.values()) {
    std::string what;
    for (const auto& p : params_)
      if (p.tag == tag) what = p.description;
    parts.push_back(what.empty() ? fmt::format("{}={}", tag, value) : fmt::format("{}={} ({})", tag, value, what));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::vector<std::string> tuning_grid::problems() const {
  std::vector<std::string> out;
  if (params_.empty()) out.push_back("the tuning grid has no parameters");
  if (params_.size() > kMaxTuningParams)
    out.push_back(fmt::format("the tuning grid has {} parameters; at most {}", params_.size(), kMaxTuningParams));
  std::set<std::string> tags;
  for (const auto& p : params_) {
    // Letters only: "b256_e4" then reads back as b=256, e=4 with no ambiguity.
    const bool letters = !p.tag.empty() && p.tag.size() <= 16 &&
                         p.tag.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
    if (!letters) out.push_back(fmt::format("tuning parameter '{}': the tag must be 1 to 16 lower-case letters", p.tag));
    if (!tags.insert(p.tag).second) out.push_back(fmt::format("tuning parameter '{}' declared twice", p.tag));
    if (p.values.empty()) out.push_back(fmt::format("tuning parameter '{}' has no values", p.tag));
    std::set<std::int64_t> seen;
    for (const auto v : p.values) {
      if (v <= 0) out.push_back(fmt::format("tuning parameter '{}': value {} is not positive", p.tag, v));
      if (!seen.insert(v).second) out.push_back(fmt::format("tuning parameter '{}': value {} repeats", p.tag, v));
    }
  }
  if (!out.empty()) return out;
  const auto all = configs();
  if (all.empty()) out.push_back(fmt::format("the tuning grid keeps no configuration ({})", rule_));
  if (all.size() > kMaxTuningConfigs)
    out.push_back(fmt::format("the tuning grid has {} configurations; at most {}", all.size(), kMaxTuningConfigs));
  for (const auto& c : all)
    if (!detail::valid_name(c.name()))
      out.push_back(fmt::format("configuration '{}' is not a valid variant name (at most {} characters)", c.name(),
                                detail::kMaxNameBytes));
  return out;
}

}  // namespace gpubench
