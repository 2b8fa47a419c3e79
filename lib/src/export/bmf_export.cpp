/// Bencher Metric Format (https://bencher.dev/docs/reference/bencher-metric-format/): one
/// benchmark per passed record, named by its id, with Bencher's standard measures only:
///   latency     nanoseconds: value = median, lower_value = fastest sample, upper_value = slowest
///   throughput  per second:  value = work / median, lower_value = work / slowest, upper_value = work / fastest
/// The work behind "throughput" is the record's declared bytes, or its FLOPs when it declares no
/// bytes, or its items when it declares neither (then there is no throughput). The choice depends
/// on the work model alone, never on the device, so a record's throughput keeps one unit across
/// machines and Bencher's history of it stays comparable.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "gpubench/escape.hpp"
#include "gpubench/export.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {
namespace {

using ojson = nlohmann::ordered_json;

ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

/// {value, lower_value, upper_value}; bounds that are not finite are left out.
ojson metric(double value, double lower, double upper) {
  ojson m = {{"value", num(value)}};
  if (std::isfinite(lower)) m["lower_value"] = lower;
  if (std::isfinite(upper)) m["upper_value"] = upper;
  return m;
}

}  // namespace

std::string export_bmf(const profile& p) {
  ojson out = ojson::object();
  for (const record& r : p.records) {
    if (r.status != record_status::passed || r.timing.samples_s.empty()) continue;
    const auto& samples = r.timing.samples_s;
    const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
    const double med = r.stats ? r.stats->median : median(samples);
    ojson measures = ojson::object();
    measures["latency"] = metric(med * 1e9, *lo * 1e9, *hi * 1e9);
    const double work = r.declared.bytes > 0   ? r.declared.bytes
                        : r.declared.flops > 0 ? r.declared.flops
                                               : r.declared.items;
    if (work > 0 && med > 0) {
      // The slowest sample bounds the throughput from below; a zero-time fastest sample has no bound.
      measures["throughput"] = metric(work / med, work / *hi, *lo > 0 ? work / *lo : std::numeric_limits<double>::quiet_NaN());
    }
    out[r.id()] = std::move(measures);
  }
  return json_text(out) + "\n";
}

}  // namespace gpubench
