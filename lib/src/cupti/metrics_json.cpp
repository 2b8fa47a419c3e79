// A record's "metrics" object in the profile (docs/profile-schema.md): written in a fixed key
// order, read back with every type checked so a damaged file names the field at fault.
#include <cmath>

#include "text/untrusted_text.hpp"
#include "gpubench/error.hpp"
#include "gpubench/metrics.hpp"

namespace gpubench {
namespace {

using ojson = nlohmann::ordered_json;
using detail::kMaxLongTextBytes;
using detail::kMaxShortTextBytes;

// Bounds on what a profile's metrics may hold (a hostile file must not flood a console): far
// above any metric set or kernel count gpubench collects.
constexpr std::size_t kMaxListEntries = 1024;
constexpr std::size_t kMaxKernels = 4096;

ojson values_json(const std::map<std::string, double>& v) {
  ojson j = ojson::object();
  for (const auto& [k, x] : v)
    if (std::isfinite(x)) j[k] = x;  // a non-finite value is left out rather than written as null
  return j;
}

struct reader {
  const std::string& where;

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw usage_error(where + "." + path + ": " + what);
  }
  const ojson& at(const ojson& j, const std::string& path, const char* key) const {
    if (!j.is_object()) fail(path, "must be a JSON object");
    const auto it = j.find(key);
    if (it == j.end()) throw usage_error(where + ": missing field '" + (path.empty() ? "" : path + ".") + key + "'");
    return *it;
  }
  std::string str(const ojson& j, const std::string& path, std::size_t max_bytes = kMaxShortTextBytes) const {
    if (!j.is_string()) fail(path, "must be a string");
    auto s = j.get<std::string>();
    if (const std::string problem = detail::text_problem(s, max_bytes); !problem.empty()) fail(path, problem);
    return s;
  }
  void bound(const ojson& j, const std::string& path, std::size_t max) const {
    if (j.size() > max)
      fail(path, "has " + std::to_string(j.size()) + " entries; at most " + std::to_string(max) + " are allowed");
  }
  double number(const ojson& j, const std::string& path) const {
    if (!j.is_number() || !std::isfinite(j.get<double>())) fail(path, "must be a finite number");
    return j.get<double>();
  }
  double nonneg(const ojson& j, const std::string& path) const {
    const double v = number(j, path);
    if (v < 0) fail(path, "must not be negative");
    return v;
  }
  std::vector<std::string> strings(const ojson& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "must be an array of strings");
    bound(j, path, kMaxListEntries);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i)
      out.push_back(str(j[i], path + "[" + std::to_string(i) + "]", kMaxLongTextBytes));
    return out;
  }
  std::map<std::string, double> values(const ojson& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "must be an object of metric name → number");
    bound(j, path, kMaxListEntries);
    std::map<std::string, double> out;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (const std::string problem = detail::text_problem(it.key(), kMaxShortTextBytes); !problem.empty())
        fail(path, "a metric name " + problem);
      out[it.key()] = number(it.value(), path + "." + it.key());
    }
    return out;
  }
};

}  // namespace

ojson to_json(const metric_result& m) {
  ojson j = ojson::object();
  j["status"] = to_string(m.status);
  // Text from CUPTI and the driver is cleaned so that the profile reads back (see the reader).
  j["reason"] = detail::clean_text(m.reason, kMaxLongTextBytes);
  j["chip"] = m.chip;
  j["passes"] = m.passes;
  j["collection_s"] = std::isfinite(m.collection_s) ? m.collection_s : 0.0;
  j["requested"] = m.requested;
  j["missing"] = m.missing;
  j["values"] = values_json(m.values);
  j["derived"] = values_json(m.derived);
  ojson warnings = ojson::array();
  for (const auto& w : m.warnings) warnings.push_back(detail::clean_text(w, kMaxLongTextBytes));
  j["warnings"] = std::move(warnings);
  ojson kernels = ojson::array();
  for (const auto& k : m.kernels) kernels.push_back({{"name", detail::clean_text(k.name, kMaxLongTextBytes)}, {"values", values_json(k.values)}});
  j["kernels"] = std::move(kernels);
  return j;
}

metric_result metric_result_from_json(const ojson& j, const std::string& where) {
  const reader r{where};
  metric_result m;
  if (!j.is_object()) throw usage_error(where + ": must be a JSON object");
  const std::string status = r.str(r.at(j, "", "status"), "status");
  if (status == to_string(metrics_status::collected)) m.status = metrics_status::collected;
  else if (status == to_string(metrics_status::unavailable)) m.status = metrics_status::unavailable;
  else r.fail("status", "\"" + status + "\" is not one of \"collected\", \"unavailable\"");
  m.reason = r.str(r.at(j, "", "reason"), "reason", kMaxLongTextBytes);
  m.chip = r.str(r.at(j, "", "chip"), "chip");
  const ojson& passes = r.at(j, "", "passes");
  if (!passes.is_number_integer() || passes.get<std::int64_t>() < 0 || passes.get<std::int64_t>() > 1'000'000)
    r.fail("passes", "must be a non-negative integer");
  m.passes = static_cast<int>(passes.get<std::int64_t>());
  m.collection_s = r.nonneg(r.at(j, "", "collection_s"), "collection_s");
  m.requested = r.strings(r.at(j, "", "requested"), "requested");
  m.missing = r.strings(r.at(j, "", "missing"), "missing");
  m.values = r.values(r.at(j, "", "values"), "values");
  m.derived = r.values(r.at(j, "", "derived"), "derived");
  m.warnings = r.strings(r.at(j, "", "warnings"), "warnings");
  const ojson& kernels = r.at(j, "", "kernels");
  if (!kernels.is_array()) r.fail("kernels", "must be an array");
  r.bound(kernels, "kernels", kMaxKernels);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string path = "kernels[" + std::to_string(i) + "]";
    m.kernels.push_back({r.str(r.at(kernels[i], path, "name"), path + ".name", kMaxLongTextBytes),
                         r.values(r.at(kernels[i], path, "values"), path + ".values")});
  }
  return m;
}

}  // namespace gpubench
