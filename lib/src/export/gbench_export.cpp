/// Google Benchmark JSON (`--benchmark_format=json`, checked against libbenchmark 1.7.1's
/// JSONReporter by tests/unit/export_test.cpp): tools that read Google Benchmark output —
/// compare.py, github-action-benchmark, Bencher's google_benchmark adapter — read a profile
/// exported this way unchanged.
///
/// Mapping. A benchmark "family" is a (chapter, pair, variant); its instances are the sizes, so
/// a record is one family instance, named by its id. Every sample of a passed record is one
/// `"run_type": "iteration"` row (iterations 1, repetitions = sample count, repetition_index =
/// sample index), which is how Google Benchmark writes `--benchmark_repetitions=N` without
/// aggregates; compare.py then runs its U test on the samples. A GPU sample has no separate CPU
/// time, so cpu_time repeats real_time.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gpubench/export.hpp"
#include "gpubench/stats.hpp"

namespace gpubench {
namespace {

using ojson = nlohmann::ordered_json;

/// A number, or null where it is not finite (JSON has neither NaN nor infinity).
ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

/// Google Benchmark writes the local time with a numeric offset ("2026-11-22T02:56:59+00:00");
/// profiles keep UTC with a "Z".
std::string gbench_date(const std::string& iso_utc) {
  if (!iso_utc.empty() && iso_utc.back() == 'Z') return iso_utc.substr(0, iso_utc.size() - 1) + "+00:00";
  return iso_utc;
}

struct time_unit {
  const char* name;
  double per_second;
};

/// One unit per record, picked from its median so the numbers read well: below 1 µs in ns,
/// below 1 ms in µs, otherwise ms.
time_unit unit_for(const record& r) {
  const double m = r.stats ? r.stats->median : median(r.timing.samples_s);
  if (m < 1e-6) return {"ns", 1e9};
  if (m < 1e-3) return {"us", 1e6};
  return {"ms", 1e3};
}

ojson context_json(const profile& p) {
  const device_info& d = p.prov.device;
  ojson c = ojson::object();
  c["date"] = gbench_date(p.prov.started_at);
  c["host_name"] = p.prov.hostname;
  c["executable"] = "gpubench";
  // The processors the benchmarks ran on are the GPU's: its SMs and their peak clock stand in
  // for Google Benchmark's CPU count and MHz (the host's CPUs are not in the profile).
  c["num_cpus"] = d.sm_count;
  c["mhz_per_cpu"] = static_cast<std::int64_t>(std::llround(std::isfinite(d.sm_clock_max_mhz) ? d.sm_clock_max_mhz : 0));
  c["cpu_scaling_enabled"] = false;
  // The one cache the profile knows: the GPU's L2, shared by all SMs. Google Benchmark's cache
  // types are "Data", "Instruction" and "Unified"; the L2 holds both, so "Unified", level 2.
  ojson caches = ojson::array();
  if (d.l2_bytes > 0)
    caches.push_back({{"type", "Unified"}, {"level", 2}, {"size", d.l2_bytes}, {"num_sharing", d.sm_count}});
  c["caches"] = std::move(caches);
  c["load_avg"] = ojson::array();
  c["library_build_type"] = "release";
  // Extra keys (readers ignore what they do not know): what the numbers were measured on.
  c["gpu_name"] = d.name;
  c["gpu_uuid"] = d.uuid;
  c["gpubench_version"] = p.prov.gpubench_version;
  c["git_sha"] = p.prov.git_sha;
  return c;
}

}  // namespace

std::string export_gbench(const profile& p) {
  ojson out = ojson::object();
  out["context"] = context_json(p);
  ojson rows = ojson::array();

  // family (chapter, pair, variant) -> {family_index, instances so far}, in order of appearance
  std::map<std::tuple<int, std::string, std::string>, std::pair<std::int64_t, std::int64_t>> families;
  for (const record& r : p.records) {
    if (r.status != record_status::passed || r.timing.samples_s.empty()) continue;
    auto [it, added] = families.try_emplace({r.chapter, r.pair, r.variant},
                                            static_cast<std::int64_t>(families.size()), 0);
    const std::int64_t family_index = it->second.first;
    const std::int64_t instance_index = it->second.second++;

    const std::string id = r.id();
    const time_unit unit = unit_for(r);
    const auto& samples = r.timing.samples_s;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double s = samples[i];
      ojson row = ojson::object();
      row["name"] = id;
      row["family_index"] = family_index;
      row["per_family_instance_index"] = instance_index;
      row["run_name"] = id;
      row["run_type"] = "iteration";
      row["repetitions"] = static_cast<std::int64_t>(samples.size());
      row["repetition_index"] = static_cast<std::int64_t>(i);
      row["threads"] = 1;
      row["iterations"] = 1;
      row["real_time"] = num(s * unit.per_second);
      row["cpu_time"] = num(s * unit.per_second);
      row["time_unit"] = unit.name;
      // Flat counters, per sample, as Google Benchmark's SetBytesProcessed/SetItemsProcessed
      // write them. A zero-time sample has no finite rate: the counter is left out.
      if (s > 0) {
        if (r.declared.bytes > 0) row["bytes_per_second"] = num(r.declared.bytes / s);
        if (r.declared.items > 0) row["items_per_second"] = num(r.declared.items / s);
        if (r.declared.flops > 0) row["flops_per_second"] = num(r.declared.flops / s);
      }
      // The record's median-based figure, repeated on each of its rows.
      if (r.floor) row["gpubench_fraction_of_floor"] = num(r.floor->fraction);
      rows.push_back(std::move(row));
    }
  }
  out["benchmarks"] = std::move(rows);
  return out.dump(2) + "\n";
}

}  // namespace gpubench
