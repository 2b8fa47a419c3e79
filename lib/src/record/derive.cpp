// Derived quantities of a record: throughput, the physical floor and speedup. Pure arithmetic
// over the work model, so it is tested on the CPU and recomputable from any saved profile.
#include <algorithm>
#include <cmath>

#include "gpubench/compute_peaks.hpp"
#include "gpubench/record.hpp"

namespace gpubench {

std::optional<floor_info> floor_of(const record& r, const ceilings& c, double suspect_slack) {
  if (!r.stats || r.stats->median <= 0) return std::nullopt;
  const double t = r.stats->median;
  // Peer bytes, one way or each way at once, cross a full-duplex link at its per-direction rate.
  const double bw = r.declared.path == bytes_path::pcie          ? c.pcie_bytes_per_s
                    : r.declared.path == bytes_path::pcie_duplex ? c.pcie_duplex_bytes_per_s
                    : r.declared.path == bytes_path::peer || r.declared.path == bytes_path::peer_duplex
                        ? c.peer_bytes_per_s
                        : c.dram_bytes_per_s;
  // The roof of the record's own kind of operations (a bf16 GEMM against the BF16 tensor peak).
  const double peak = compute_peak(c, r.declared.flops_kind);
  const double t_bytes = (bw > 0 && r.declared.bytes > 0) ? r.declared.bytes / bw : 0;
  const double t_flops = (peak > 0 && r.declared.flops > 0) ? r.declared.flops / peak : 0;
  if (t_bytes <= 0 && t_flops <= 0) return std::nullopt;
  floor_info f;
  f.time_s = std::max(t_bytes, t_flops);
  f.bound = t_bytes >= t_flops ? to_string(r.declared.path) : to_string(r.declared.flops_kind);
  f.fraction = f.time_s / t;
  f.suspect = t < f.time_s * (1.0 - suspect_slack);
  return f;
}

void derive(record& r, const ceilings& c, const record* baseline, double suspect_slack) {
  r.bytes_per_s = r.flops_per_s = r.s_per_item = 0;
  r.floor.reset();
  r.speedup.reset();
  if (!r.stats || r.stats->median <= 0) return;
  const double t = r.stats->median;
  r.bytes_per_s = r.declared.bytes / t;
  r.flops_per_s = r.declared.flops / t;
  if (r.declared.items > 0) r.s_per_item = t / r.declared.items;

  r.floor = floor_of(r, c, suspect_slack);
  if (baseline != nullptr && baseline->stats && baseline->stats->median > 0 && r.status == record_status::passed &&
      baseline->status == record_status::passed)
    r.speedup = baseline->stats->median / t;
}

}  // namespace gpubench
