// The worker protocol's messages; see gpubench/worker_protocol.hpp.
#include "gpubench/worker_protocol.hpp"

#include <cmath>

#include "text/untrusted_text.hpp"
#include "gpubench/error.hpp"

namespace gpubench {

namespace {

using ojson = nlohmann::ordered_json;

/// A reply comes from another program (another build in `gpubench ab`): its fields are checked
/// as strictly as a profile's.
std::string text_field(const ojson& j, const char* key, const std::string& who, std::size_t max_bytes) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) throw runtime_error(who + ": field '" + key + "' is missing or not text");
  std::string s = it->get<std::string>();
  if (const std::string problem = detail::text_problem(s, max_bytes); !problem.empty())
    throw runtime_error(who + ": field '" + key + "' " + problem);
  return s;
}

std::vector<std::string> strings(const ojson& j, const char* key) {
  std::vector<std::string> out;
  if (const auto it = j.find(key); it != j.end() && it->is_array())
    for (const auto& x : *it)
      if (x.is_string()) out.push_back(x.get<std::string>());
  return out;
}

double number(const ojson& j, const char* key, double fallback) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  const double v = it->get<double>();
  return std::isfinite(v) ? v : fallback;
}

}  // namespace

ojson to_json(const worker_selection& s) {
  return {
      {"chapter", s.chapter}, {"pairs", s.pairs}, {"axes", s.axes}, {"variants", s.variants}, {"smallest", s.smallest}};
}

worker_selection selection_from_json(const ojson& j) {
  worker_selection s;
  s.chapter = static_cast<int>(number(j, "chapter", 0));
  s.pairs = strings(j, "pairs");
  s.axes = strings(j, "axes");
  s.variants = strings(j, "variants");
  s.smallest = j.value("smallest", false);
  return s;
}

ojson to_json(const worker_timing& t) {
  return {{"max_noise", t.total.max_noise},
          {"min_samples", t.total.min_samples},
          {"min_time_s", t.total.min_time_s},
          {"timeout_s", t.total.timeout_s},
          {"max_samples", t.total.max_samples},
          {"warmup_runs", t.warmup_runs},
          {"rest_ratio", t.rest_ratio},
          {"gpu_busy", t.gpu_busy},
          {"replace_memory", t.replace_memory},
          {"seed", t.seed},
          {"metrics", t.metrics},
          {"metrics_per_kernel", t.metrics_per_kernel}};
}

worker_timing timing_from_json(const ojson& j) {
  worker_timing t;
  t.total.max_noise = number(j, "max_noise", t.total.max_noise);
  t.total.min_samples = static_cast<int>(number(j, "min_samples", t.total.min_samples));
  t.total.min_time_s = number(j, "min_time_s", t.total.min_time_s);
  t.total.timeout_s = number(j, "timeout_s", t.total.timeout_s);
  t.total.max_samples = static_cast<int>(number(j, "max_samples", t.total.max_samples));
  t.warmup_runs = static_cast<int>(number(j, "warmup_runs", t.warmup_runs));
  t.rest_ratio = number(j, "rest_ratio", t.rest_ratio);
  t.gpu_busy = j.value("gpu_busy", false);
  t.replace_memory = j.value("replace_memory", true);
  if (const auto it = j.find("seed"); it != j.end() && it->is_number_unsigned()) t.seed = it->get<std::uint64_t>();
  t.metrics = strings(j, "metrics");
  t.metrics_per_kernel = j.value("metrics_per_kernel", false);
  return t;
}

ojson to_json(const worker_item& i) {
  return {{"pair", i.pair}, {"size", i.size}, {"variants", i.variants}, {"redraws", i.redraws}};
}

worker_item item_from_json(const ojson& j, const std::string& who) {
  if (!j.is_object()) throw runtime_error(who + ": a plan item is not an object");
  worker_item i;
  i.pair = text_field(j, "pair", who, detail::kMaxShortTextBytes);
  i.size = text_field(j, "size", who, detail::kMaxLongTextBytes);
  const auto v = j.find("variants");
  if (v == j.end() || !v->is_array() || v->empty() || v->size() > 4096)
    throw runtime_error(who + ": plan item " + i.pair + " has no list of variants");
  for (const auto& name : *v) {
    if (!name.is_string() || !detail::valid_name(name.get<std::string>()))
      throw runtime_error(who + ": plan item " + i.pair + " names a variant that is not snake_case");
    i.variants.push_back(name.get<std::string>());
  }
  i.redraws = j.value("redraws", true);
  return i;
}

ojson worker_request(const std::string& op, ojson fields) {
  ojson j = {{"op", op}};
  for (auto& [k, v] : fields.items()) j[k] = std::move(v);
  return j;
}

ojson worker_failure(const std::string& message, int exit_code) {
  return {{"ok", false}, {"error", detail::clean_text(message, detail::kMaxLongTextBytes)}, {"exit", exit_code}};
}

}  // namespace gpubench
