#pragma once
/// The result of one (pair, variant, size): what the profile stores and the console shows.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpubench/device_info.hpp"
#include "gpubench/metrics.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/stats.hpp"
#include "gpubench/verify.hpp"
#include "gpubench/work.hpp"

namespace gpubench {

enum class record_status {
  passed,    ///< verified (or the baseline, complete) and timed
  failed,    ///< verification failed: not timed, never reported as a speedup
  error,     ///< a CUDA or library error in this variant
  skipped,   ///< not run at this size (out of memory, ...); `reason` says why
  profiled,  ///< --profile: ran once for an external profiler, verified, not timed
};
const char* to_string(record_status s);

/// Why sampling stopped.
enum class stop_reason { converged, max_samples, timeout, single_run };
const char* to_string(stop_reason r);

/// What a record's samples_s hold.
///   gpu_busy     the union of the GPU intervals of the variant's own kernels, copies and memsets
///                (CUPTI activity records): free of launch gaps and of the events' own span, and
///                what Nsight Compute's summed gpu__time_duration measures (docs/measurement.md)
///   cuda_events  CUDA events around the variant's work: the span between the two timestamps,
///                the events' own ~1 us included (profiles before the empty span was subtracted)
///   cuda_events_net  the event span less the empty span: two events with nothing between them,
///                measured the same way before each round (round_info::event_overhead_s). The
///                default for device work; the raw spans are kept in span_s
///   host_wall    the host clock around the call and a synchronize (host-driven work)
enum class time_source { gpu_busy, cuda_events, host_wall, cuda_events_net };
const char* to_string(time_source s);

/// One round of a record: a consecutive block of its samples (sampling.hpp).
struct round_info {
  std::size_t samples = 0;
  stop_reason stopped = stop_reason::converged;
  double wall_s = 0;  ///< time the round spent on this variant (its samples and their overhead)
  /// Which process measured the round: 0 the run's own (or its first worker), k >= 1 the k-th
  /// worker of `run --processes`, or the k-th process `run --confirm` started to re-measure this
  /// record alone. compare takes rounds of different processes as draws of the between-process
  /// level (lib/src/compare/noise_model.hpp, estimate_side).
  int process = 0;
  /// The empty event span subtracted from each of this round's samples (cuda_events_net), 0 when
  /// nothing was: a sample's raw span is its time plus this.
  double event_overhead_s = 0;
  /// `gpubench ab`: the cycle this round belongs to, -1 outside ab. A cycle holds one round of the
  /// base build and one of the new, measured back to back, so compare judges the record on the
  /// per-cycle differences, which cancel what both builds shared at that moment (host speed,
  /// clocks).
  int cycle = -1;
  /// The spacer allocated before the round's fresh state was built, so that its buffers landed at
  /// another place in device memory than the round before (0: none, e.g. the verified state).
  std::uint64_t placement_bytes = 0;
};

struct timing_data {
  timing_method method = timing_method::cuda_events;
  cache_mode cache = cache_mode::cold;
  stop_reason stopped = stop_reason::converged;
  double wall_s = 0;                       ///< time spent warming up and sampling this record
  double setup_s = 0;                      ///< the size's setup (inputs, handles), shared by its variants
  double verify_s = 0;                     ///< this variant's verification: poison, run, copy back, compare
  time_source source = time_source::cuda_events;  ///< what samples_s holds
  std::vector<double> samples_s;           ///< every sample, seconds, in order (the record's figure)
  std::vector<double> span_s;              ///< per sample, the raw CUDA-event span when samples_s is gpu_busy or cuda_events_net; else empty
  std::vector<round_info> rounds;          ///< consecutive blocks of samples_s; empty = one round (schema 1)
  std::vector<double> sm_clock_mhz;        ///< SM clock read after each sample (empty if unavailable)
  std::vector<std::uint8_t> throttled;     ///< per sample: 1 if a thermal/HW slowdown was active
  std::string clock_source;                ///< "nvml", "clock64", or "" when not read
};

struct floor_info {
  double time_s = 0;        ///< max(bytes / bandwidth, flops / peak)
  std::string bound;        ///< "dram", "pcie", "fp32", ... whichever term is larger
  double fraction = 0;      ///< floor / median: 1.0 is the speed of light
  bool suspect = false;     ///< measured faster than the floor: unequal work, a stub or a cache artefact
  /// Faster than the floor at all: above the roof of `bound`, shown with a mark and
  /// above_roof_reason() wherever the fraction is shown.
  [[nodiscard]] bool above_roof() const { return fraction > 1.0; }
};

/// Why a result can sit above the roof named `roof` ("dram", "pcie", "bf16", ...): one sentence
/// naming the usual causes (the work model counting more than the variant does, data served from
/// L2, clocks above the roof's), for the note beside a fraction over 100%.
std::string above_roof_reason(const std::string& roof);

/// Goodput of a variant (pairs that declare `.goodput()`): the GPU time of its kernels over its
/// wall time. The kernel time comes from a pass after timing with CUPTI's kernel activity records
/// (the union of the kernels' [start, end] intervals, copies and memsets left out); the wall time is
/// the record's timed median, taken untraced. The host wall of the traced runs is kept beside it:
/// CUPTI's per-launch host overhead inflates it by up to a third on a graph-replayed step, so it
/// is not the denominator (docs/measurement.md, "Goodput").
struct goodput_info {
  double fraction = 0;       ///< kernel_s / wall_s
  double kernel_s = 0;       ///< median over the traced runs
  double wall_s = 0;         ///< the record's timed median (untraced)
  int runs = 0;              ///< traced runs
  std::string reason;        ///< why it could not be measured (the numbers are then 0)
  double wall_traced_s = 0;  ///< median host wall of the traced runs (0: not recorded, older profiles)
};

/// A tuning pair's record: which configuration it measured and where it ranks at its size.
struct tuning_result {
  tuning_config config;
  std::size_t rank = 0;  ///< 1 = the fastest median of the size's passed configurations; 0 = not ranked (not timed)
};

struct record {
  int chapter = 0;
  std::string pair;
  std::string variant;
  size_point size;
  record_status status = record_status::passed;
  std::string reason;                     ///< error / skip / failure explanation
  verification check;
  tolerance tol;
  work declared;
  timing_data timing;
  std::optional<summary> stats;           ///< absent when not timed
  // Derived (see derive()):
  double bytes_per_s = 0, flops_per_s = 0, s_per_item = 0;
  std::optional<floor_info> floor;
  std::optional<double> speedup;          ///< baseline median / this median, when both passed
  std::optional<metric_result> metrics;   ///< hardware counters (run --metrics), collected after timing
  std::optional<goodput_info> goodput;    ///< for pairs that declare it, measured after timing
  launch_facts facts;                     ///< how the variant launches (registers, occupancy, ...); empty if the pair says nothing
  std::optional<tuning_result> tuning;    ///< set for every record of a tuning pair

  /// "ch01/batched_gemm/optimized[batch=40,m=32,n=256,k=256]"
  [[nodiscard]] std::string id() const;
};

/// A record id split for tables that group their rows by pair and size: `group`
/// "ch01/batched_gemm [batch=40]" (whatever precedes the chapter, such as a profile's name, kept),
/// `variant` "optimized". An id of another shape is all group, with an empty variant.
struct record_id_parts {
  std::string group, variant;
};
record_id_parts split_record_id(const std::string& id);

/// Fills the derived fields of `r` from its stats, work and the ceilings; `baseline` is the
/// same size's baseline record (or null). A variant whose median beats the floor by more than
/// `suspect_slack` (relative) is marked suspect. 5%: a measured ceiling is the best of one access
/// pattern (a float4 copy, one-way PCIe), and honest kernels with another pattern beat it by a few
/// percent (on an H100: a read-mostly kernel at 102.0% of the copy ceiling); stubs and unequal work
/// miss the floor by factors, not percents.
void derive(record& r, const ceilings& c, const record* baseline, double suspect_slack = 0.05);
/// The floor part of derive(): max(bytes over the bandwidth of the work's path, operations over
/// the peak of its kind); nullopt without a median or without a ceiling for either term.
std::optional<floor_info> floor_of(const record& r, const ceilings& c, double suspect_slack = 0.05);

/// Ranks one size's records of a tuning pair: the passed records with a median get ranks 1, 2, ...
/// from the fastest median (ties keep declaration order), every other tuning record rank 0.
/// Records without `tuning` are left alone.
void rank_tuning(std::span<record> size_records);

/// What `run` reports for one size of a tuning pair.
struct tuning_summary {
  std::size_t ranked = 0;          ///< configurations that passed and were timed
  std::size_t configurations = 0;  ///< all of the size's tuning records
  const record* best = nullptr;    ///< rank 1
  const record* runner_up = nullptr;  ///< rank 2 (null with fewer than two ranked)
  const record* baseline = nullptr;   ///< the pair's default configuration (the first record), when it was ranked
  /// Configurations whose median is within `near` (relative) of the best, the best excluded, by rank:
  /// the grid's flat top, where run-to-run noise can reorder the ranking.
  std::vector<const record*> near_best;
};
/// Summarizes ranked records (rank_tuning first); nullopt when none is ranked.
std::optional<tuning_summary> summarize_tuning(std::span<const record> size_records, double near = 0.02);

}  // namespace gpubench
