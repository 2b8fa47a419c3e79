// Size points, axis expansion and the user's --axis overrides.
#include <algorithm>
#include <charconv>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/error.hpp"
#include "gpubench/size.hpp"

namespace gpubench {

std::string to_string(const axis_value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  return std::get<std::string>(v);
}

namespace {
const axis_value* find(const std::vector<std::pair<std::string, axis_value>>& entries, std::string_view name) {
  for (const auto& [n, v] : entries)
    if (n == name) return &v;
  return nullptr;
}
}  // namespace

std::int64_t size_point::operator[](std::string_view name) const {
  const auto* v = find(entries_, name);
  if (v == nullptr || !std::holds_alternative<std::int64_t>(*v))
    throw std::out_of_range(fmt::format("size has no integer axis '{}' ({})", name, to_string()));
  return std::get<std::int64_t>(*v);
}

const std::string& size_point::label(std::string_view name) const {
  const auto* v = find(entries_, name);
  if (v == nullptr || !std::holds_alternative<std::string>(*v))
    throw std::out_of_range(fmt::format("size has no label axis '{}' ({})", name, to_string()));
  return std::get<std::string>(*v);
}

bool size_point::has(std::string_view name) const { return find(entries_, name) != nullptr; }

std::string size_point::to_string() const {
  std::string out;
  for (const auto& [n, v] : entries_) {
    if (!out.empty()) out += ',';
    out += n;
    out += '=';
    out += gpubench::to_string(v);
  }
  return out;
}

std::vector<size_point> expand(const std::vector<axis>& axes) {
  std::vector<std::vector<std::pair<std::string, axis_value>>> points{{}};
  for (const auto& a : axes) {
    std::vector<std::vector<std::pair<std::string, axis_value>>> next;
    next.reserve(points.size() * a.values.size());
    for (const auto& p : points)
      for (const auto& v : a.values) {
        auto q = p;
        q.emplace_back(a.name, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  std::vector<size_point> out;
  out.reserve(points.size());
  for (auto& p : points) out.emplace_back(std::move(p));
  return out;
}

axis_override parse_axis_override(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
    throw usage_error(fmt::format("--axis '{}': expected NAME=V1[,V2...], e.g. --axis size_mib=1,64", text));
  axis_override o{std::string(text.substr(0, eq)), {}};
  std::string_view rest = text.substr(eq + 1);
  while (true) {
    const auto comma = rest.find(',');
    auto item = rest.substr(0, comma);
    if (item.empty()) throw usage_error(fmt::format("--axis '{}': empty value", text));
    o.values.emplace_back(item);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return o;
}

std::vector<axis> smallest_sizes(const std::vector<axis>& axes) {
  std::vector<axis> out = axes;
  for (auto& a : out) {
    if (a.values.empty() || !std::holds_alternative<std::int64_t>(a.values.front())) continue;
    const auto smallest = *std::min_element(a.values.begin(), a.values.end(), [](const axis_value& x, const axis_value& y) {
      return std::get<std::int64_t>(x) < std::get<std::int64_t>(y);
    });
    a.values = {smallest};
  }
  return out;
}

std::vector<axis> apply_overrides(const std::vector<axis>& axes, const std::vector<axis_override>& overrides,
                                  std::string_view pair_id) {
  std::vector<axis> out = axes;
  for (const auto& o : overrides) {
    for (auto& a : out) {
      if (a.name != o.name) continue;
      const bool integer = !a.values.empty() && std::holds_alternative<std::int64_t>(a.values.front());
      std::vector<std::string> allowed;
      for (const auto& v : a.values) allowed.push_back(to_string(v));
      std::vector<axis_value> values;
      for (const auto& text : o.values) {
        if (integer) {
          std::int64_t v = 0;
          const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
          if (ec != std::errc{} || ptr != text.data() + text.size() || v <= 0)
            throw usage_error(fmt::format("--axis {}={}: '{}' is not a positive integer ({} takes sizes such as {})",
                                          o.name, fmt::join(o.values, ","), text, pair_id, fmt::join(allowed, ",")));
          values.emplace_back(v);
        } else {
          if (std::find(allowed.begin(), allowed.end(), text) == allowed.end())
            throw usage_error(fmt::format("--axis {}: '{}' is not one of {}'s values: {}", o.name, text, pair_id,
                                          fmt::join(allowed, ", ")));
          values.emplace_back(text);
        }
      }
      a.values = std::move(values);
    }
  }
  return out;
}

std::vector<size_point> planned_sizes(const std::vector<axis>& axes, bool smallest,
                                      const std::vector<axis_override>& overrides, std::string_view pair_id) {
  return expand(apply_overrides(smallest ? smallest_sizes(axes) : axes, overrides, pair_id));
}

}  // namespace gpubench
