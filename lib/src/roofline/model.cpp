// The roofline model built from profiles: roofs from the first profile's ceilings, one point per
// placeable record, arrows baseline → variant per size. Pure arithmetic over saved profiles, so
// it is tested on the CPU and rebuilt from any profile without the GPU that produced it.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gpubench/compute_peaks.hpp"
#include "gpubench/error.hpp"
#include "gpubench/roofline.hpp"

namespace gpubench {

namespace {

// Compute roofs, one per precision. Measured ceilings: every measured FLOP/s peak (they include
// the tensor-core peaks). Theoretical ones: FP32 and FP64. Either way, the roof of every other
// kind a point uses, from the theoretical peaks the profile's reader fills in, so each point has
// its own precision's roof without listing precisions nobody ran. Zero means "unknown", never a
// roof.
std::vector<roof> compute_roofs(const ceilings& c, const std::vector<roof_point>& points) {
  const bool measured = c.source == "measured";
  const auto measured_value = [&](const std::string& name) {
    for (const ceiling& e : c.table)
      if (e.name == name && e.unit == "FLOP/s" && e.value > 0) return e.value;
    return 0.0;
  };
  std::vector<roof> out, known;
  for (const flop_kind k : kAllFlopKinds) {
    const std::string name = to_string(k);
    const double from_table = measured ? measured_value(name) : 0.0;
    const roof r{name, from_table > 0 ? from_table : compute_peak(c, k), from_table > 0 ? "measured" : "theoretical"};
    if (r.value <= 0) continue;
    known.push_back(r);
    const bool used =
        std::any_of(points.begin(), points.end(), [&](const roof_point& p) { return p.flops_kind == name; });
    if (used || from_table > 0 || (!measured && (k == flop_kind::fp32 || k == flop_kind::fp64))) out.push_back(r);
  }
  return out.empty() ? known : out;  // only peaks of kinds no point uses: list them all rather than none
}

// Memory roofs: DRAM first (points are judged against it), then L2 when it was measured.
std::vector<roof> memory_roofs(const ceilings& c) {
  auto measured = [&](const char* name) -> double {
    for (const ceiling& e : c.table)
      if (e.name == name && e.unit == "B/s" && e.value > 0) return e.value;
    return 0;
  };
  std::vector<roof> out;
  // The same DRAM ceiling the records' floors were judged against (lib/src/device/ceilings_measure.cu
  // keeps the faster of the copy kernel and cudaMemcpy): on an H200 the two differ by 3%, and a
  // roof other than the floors' put a point at 86% of the roof and 84% of its floor.
  const double dram = c.dram_bytes_per_s > 0 ? c.dram_bytes_per_s : measured("dram");
  if (dram <= 0) return out;  // without DRAM there is no slope to judge any point against
  out.push_back({"dram", dram});
  if (measured("l2") > 0) out.push_back({"l2", measured("l2")});
  return out;
}

// Why a record cannot be placed, or "" when it can. Checked in this order so a PCIe transfer
// (no FLOPs and PCIe bytes) gets the more telling reason.
std::string skip_reason(const record& r) {
  if (r.status != record_status::passed) {
    std::string s = std::string("status ") + to_string(r.status);
    return r.reason.empty() ? s : s + " (" + r.reason + ")";
  }
  if (!r.stats || r.stats->median <= 0) return "not timed: no median";
  if (r.declared.flops <= 0) return "no FLOPs (a transfer): not on a roofline";
  if (r.declared.path == bytes_path::peer || r.declared.path == bytes_path::peer_duplex)
    return "bytes cross the link between GPUs, not DRAM";
  if (r.declared.path != bytes_path::dram) return "bytes cross PCIe, not DRAM";
  if (r.declared.bytes <= 0) return "no DRAM bytes: arithmetic intensity undefined";
  return "";
}

std::string file_name(const std::string& source) { return std::filesystem::path(source).filename().string(); }

double derived_value(const record& r, const char* key) {
  if (!r.metrics || r.metrics->status != metrics_status::collected) return 0;
  const auto it = r.metrics->derived.find(key);
  return it != r.metrics->derived.end() && std::isfinite(it->second) && it->second > 0 ? it->second : 0;
}

// The compute roof of the kind that did most of the counted work. Tensor-core ops go to their
// precision's tensor roof; SIMT half-precision FMA has no roof of its own and is judged against
// fp16's.
std::string counted_kind(const record& r, const std::string& declared) {
  const std::pair<const char*, const char*> kinds[] = {{"flops_fp32", "fp32"},
                                                       {"flops_fp64", "fp64"},
                                                       {"flops_fp16", "fp16"},
                                                       {"flops_tensor_fp16", "fp16"},
                                                       {"flops_tensor_bf16", "bf16"},
                                                       {"flops_tensor_tf32", "tf32"},
                                                       {"flops_tensor_fp64", "fp64_tensor"},
                                                       {"flops_tensor_fp8", "fp8"}};
  std::string best = declared;
  double most = 0;
  for (const auto& [key, kind] : kinds)
    if (const double v = derived_value(r, key); v > most) most = v, best = kind;
  return best;
}

// Places `p` from the record's counters where they allow it; leaves the model placement otherwise.
void place_from_counters(const record& r, roof_point& p) {
  const double flops = derived_value(r, "flops"), dram = derived_value(r, "dram_bytes"), l2 = derived_value(r, "l2_bytes");
  if (dram <= 0) return;  // no counted DRAM traffic: nothing measured to place by
  const double used_flops = flops > 0 ? flops : r.declared.flops;
  p.source = flops > 0 ? point_source::counters : point_source::counted_bytes;
  if (flops > 0) p.flops_kind = counted_kind(r, p.flops_kind);
  p.intensity = used_flops / dram;
  p.flops_per_s = used_flops / r.stats->median;
  p.bytes_per_s = dram / r.stats->median;
  p.l2_intensity = l2 > 0 ? used_flops / l2 : 0;
}

}  // namespace

const char* to_string(point_source s) {
  switch (s) {
    case point_source::model: return "model";
    case point_source::counters: return "counters";
    case point_source::counted_bytes: return "counted bytes";
  }
  return "?";
}

double ridge_point(double compute_flops_per_s, double memory_bytes_per_s) {
  return memory_bytes_per_s > 0 ? compute_flops_per_s / memory_bytes_per_s : 0;
}

roof_bound bound_of(const roofline_model& m, const roof_point& p) {
  roof_bound b;
  if (m.compute.empty() || m.memory.empty()) return b;
  // The point's own kind's roof; a kind the ceilings lack (a precision whose rate on this
  // architecture is unknown) is judged against the highest roof, the only bound that is certainly
  // physical.
  auto it = std::find_if(m.compute.begin(), m.compute.end(), [&](const roof& r) { return r.name == p.flops_kind; });
  if (it == m.compute.end())
    it = std::max_element(m.compute.begin(), m.compute.end(), [](const roof& a, const roof& c) { return a.value < c.value; });
  const double memory_term = m.memory[0].value * p.intensity;
  b.memory_bound = memory_term < it->value;
  b.roof = b.memory_bound ? m.memory[0].name : it->name;
  b.compute_roof = it->name;
  b.attainable = std::min(it->value, memory_term);
  b.fraction = b.attainable > 0 ? p.flops_per_s / b.attainable : 0;
  return b;
}

roofline_model build_roofline(const std::vector<profile>& profiles, const std::vector<std::string>& sources,
                              const roofline_options& o) {
  if (profiles.empty()) throw usage_error("roofline: no profile given");
  auto source_of = [&](std::size_t i) { return i < sources.size() ? sources[i] : "profile " + std::to_string(i + 1); };
  const bool several = profiles.size() > 1;

  roofline_model m;
  m.placement = o.points;
  const ceilings& c = profiles[0].ceil;
  m.memory = memory_roofs(c);
  m.ceilings_source = c.source.empty() ? "theoretical" : c.source;
  const auto no_ceilings = [&](const char* what) {
    return usage_error(source_of(0) + ": profile has no ceilings (" + what +
                       "): run `gpubench device --ceilings` on the GPU, then re-run");
  };
  if (m.memory.empty()) throw no_ceilings("no DRAM bandwidth");
  if (compute_roofs(c, {}).empty()) throw no_ceilings("no FLOP/s peak");

  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const std::string prefix = several ? std::filesystem::path(source_of(i)).stem().string() + ":" : "";
    // Baseline of each size = the first record of that pair+size in profile order; arrows start
    // there only when it was placed (a failed baseline has no position to start from).
    std::map<std::string, std::optional<std::size_t>> baseline_of;
    std::set<std::string> seen;
    for (const record& r : profiles[i].records) {
      const std::string key = std::to_string(r.chapter) + "/" + r.pair + "[" + r.size.to_string() + "]";
      const bool first_of_size = seen.insert(key).second;
      const std::string reason = skip_reason(r);
      if (!reason.empty()) {
        m.skipped.push_back(prefix + r.id() + ": " + reason);
        if (first_of_size) baseline_of[key] = std::nullopt;
        continue;
      }
      roof_point p;
      p.id = prefix + r.id();
      p.chapter = r.chapter;
      p.pair = r.pair;
      p.variant = r.variant;
      p.size = r.size.to_string();
      p.flops_kind = to_string(r.declared.flops_kind);
      p.intensity = p.model_intensity = r.declared.flops / r.declared.bytes;
      p.flops_per_s = p.model_flops_per_s = r.declared.flops / r.stats->median;
      p.bytes_per_s = r.declared.bytes / r.stats->median;
      if (o.points != points_mode::model) place_from_counters(r, p);
      m.points.push_back(p);
      const std::size_t index = m.points.size() - 1;
      if (first_of_size)
        baseline_of[key] = index;
      else if (const auto& b = baseline_of[key])
        m.arrows.emplace_back(*b, index);
    }
  }
  m.compute = compute_roofs(c, m.points);
  if (m.points.empty())
    throw usage_error("no record of these profiles has both FLOPs and DRAM bytes: nothing to place on a roofline" +
                      std::string(m.skipped.empty() ? "" : " (e.g. " + m.skipped.front() + ")"));

  // Title: the GPU the roofs belong to and the runs the points come from.
  const std::string gpu = profiles[0].prov.device.name.empty() ? "unknown GPU" : profiles[0].prov.device.name;
  std::string files;
  bool devices_differ = false;
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    files += (i ? ", " : "") + file_name(source_of(i));
    devices_differ = devices_differ || profiles[i].prov.device.name != profiles[0].prov.device.name;
  }
  m.title = "Roofline — " + gpu + " — " + files + ", ceilings " + m.ceilings_source;
  if (devices_differ) m.title += " (devices differ: ceilings of " + file_name(source_of(0)) + ")";
  return m;
}

}  // namespace gpubench
