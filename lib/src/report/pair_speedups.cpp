// A pair's speedups by size; see pair_speedups.hpp.
#include "report/pair_speedups.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "gpubench/speedup_interval.hpp"

namespace gpubench::detail {

const variant_speedup* size_speedups::find(const record* r) const {
  const auto it = std::find_if(variants.begin(), variants.end(), [&](const variant_speedup& v) { return v.rec == r; });
  return it == variants.end() ? nullptr : &*it;
}

std::vector<std::string> varying_size_labels(const std::vector<const record*>& records,
                                             std::vector<std::string>& sizes) {
  std::map<std::string, std::set<std::string>> values;
  std::vector<const record*> first_of;
  for (const record* r : records) {
    const std::string s = r->size.to_string();
    if (std::find(sizes.begin(), sizes.end(), s) == sizes.end()) {
      sizes.push_back(s);
      first_of.push_back(r);
    }
    for (const auto& [name, v] : r->size.entries()) values[name].insert(to_string(v));
  }
  std::vector<std::string> labels;
  for (const record* r : first_of) {
    std::string label;
    for (const auto& [name, v] : r->size.entries())
      if (values[name].size() > 1) label += (label.empty() ? "" : ",") + name + "=" + to_string(v);
    labels.push_back(label);
  }
  return labels;
}

pair_speedups speedups_of(const std::vector<const record*>& records, double confidence, double threshold) {
  pair_speedups out;
  std::vector<std::string> sizes;
  const std::vector<std::string> labels = varying_size_labels(records, sizes);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    size_speedups s;
    s.size = sizes[k];
    s.label = labels[k];
    for (const record* r : records) {
      if (r->size.to_string() != s.size) continue;
      if (s.baseline == nullptr) s.baseline = r;
      variant_speedup v;
      v.rec = r;
      if (r != s.baseline)
        if ((v.speedup = speedup_interval(*s.baseline, *r, confidence)))
          v.band = speedup_verdict(*v.speedup, threshold);
      s.variants.push_back(v);
      if (r->status == record_status::passed && r->stats && r->stats->median > 0 &&
          (s.fastest == nullptr || r->stats->median < s.fastest->stats->median))
        s.fastest = r;
    }
    out.sizes.push_back(std::move(s));
  }
  for (const record* r : records)
    if (std::find(out.variants.begin(), out.variants.end(), r->variant) == out.variants.end())
      out.variants.push_back(r->variant);
  for (std::size_t k = 0; k < out.sizes.size(); ++k)
    if (std::any_of(out.sizes[k].variants.begin(), out.sizes[k].variants.end(),
                    [](const variant_speedup& v) { return v.speedup.has_value(); }))
      out.headline = k;
  return out;
}

}  // namespace gpubench::detail
