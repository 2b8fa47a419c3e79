#pragma once
/// The measurement engine: for every selected pair and size, set up fresh random inputs, run each
/// variant once into a poisoned output and verify it against the baseline, then sample the
/// verified variants in interleaved rounds until each round's median is steady (sampling.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpubench/device_info.hpp"
#include "gpubench/observer.hpp"
#include "gpubench/record.hpp"
#include "gpubench/sampling.hpp"

namespace gpubench {

struct run_options {
  /// When a variant has sampled enough: the noise target of its median, the minimum samples and
  /// time, the time limit and the sample cap. The whole record's budget, shared by its rounds
  /// (stopping_criteria::per_round).
  stopping_criteria stopping;
  int warmup_runs = 1;        ///< untimed runs per variant and round (verification warms up too)
  /// Independent rounds per size (fresh buffers each, variants interleaved; gpubench/sampling.hpp).
  int rounds = 3;
  /// Up to this many rounds for device-timed sizes whose round medians still spread
  /// (schedule_options::max_rounds); host-timed sizes and bytes over PCIe or between GPUs get
  /// exactly `rounds` (rounds_redraw_process_noise). Below `rounds`: exactly `rounds`.
  int max_rounds = 8;
  /// After each sample of 50 us or more the GPU rests, awake and nearly idle, for this many times
  /// that sample's time, so power-hungry kernels are timed below the power cap, as on a fresh GPU
  /// (schedule_options::rest_ratio; pairs whose bytes cross PCIe do not rest). 0: back to back,
  /// the sustained figure.
  double rest_ratio = 1.0;
  /// Device-timed records report GPU busy time from CUPTI activity records (the events' span kept
  /// beside it) instead of the CUDA-event span. Off by default: on Hopper CUPTI timestamps kernels
  /// by instrumenting them, which slowed a 1M-block copy by 6.7% (docs/measurement.md, "GPU busy
  /// time").
  bool gpu_busy_time = false;
  /// Each fresh round's state is built behind a spacer of random size, so its buffers land on
  /// other pages than the last round's and rounds sample the placement effect (cuda_executor,
  /// begin_round). Off: the allocator's own placement, which hands freed memory back from the
  /// same few places.
  bool replace_memory = true;
  /// With replace_memory, each fresh round also moves to a stream drawn from a pool spanning
  /// several of the driver's blocks of streams, each of which draws once how fast its launches
  /// follow a flush (cuda_executor, begin_round). On in the workers of `ab` and `run --processes`,
  /// whose records take many rounds; a plain run's few rounds would need more of them to pin the
  /// center down (docs/measurement.md, "Re-streaming").
  bool restream = false;
  bool profile_mode = false;  ///< run each variant once (verified, NVTX-marked, untimed) for ncu/nsys
  bool smallest = false;      ///< each pair at its smallest size only (smoke tests, compute-sanitizer)
  /// Time only these variants (`run --variant`); empty = all. The baseline still runs once as the
  /// reference the others are verified against, untimed unless named; the variants not named are
  /// not run and their records say so (status skipped).
  std::vector<std::string> only_variants;
  std::uint64_t seed = 0;     ///< inputs' seed; each size derives its own
  std::vector<axis_override> axis_overrides;
  /// Hardware metrics to collect (raw CUPTI names, see resolve_metrics); empty = none. Collected
  /// after a size's timing, never in profile_mode.
  std::vector<std::string> metrics;
  bool metrics_per_kernel = false;  ///< also a per-kernel breakdown (a second, kernel-replay collection)

  /// The --quick preset: looser noise target, fewer samples, shorter limits.
  static run_options quick();
};

class runner {
 public:
  /// Opens `device_ordinal`; throws runtime_error (exit 1) when there is no usable device.
  runner(int device_ordinal, run_options options);
  ~runner();
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;

  [[nodiscard]] const device_info& device() const;
  [[nodiscard]] const ceilings& device_ceilings() const;
  /// The options in force, with the seed filled in when none was given.
  [[nodiscard]] const run_options& options() const;
  /// Why metrics were asked for but cannot be collected in this run (permissions, under ncu, ...);
  /// empty when they can be or were not asked for. Every record's metrics.reason says it too.
  [[nodiscard]] std::string metrics_unavailable() const;
  /// Why device-timed records fall back to CUDA events in this run (empty when GPU busy time works).
  [[nodiscard]] std::string gpu_busy_unavailable() const;

  /// Runs the pairs; records come back in order (pair, size, variant). One failing variant or
  /// size never stops the others. With more than one round, a host-timed pair's sizes take their
  /// later rounds in sweeps after the other pairs (sweep_rounds in gpubench/sampling.hpp), so the
  /// observer hears their pair_begin, size_begin and size_end last.
  std::vector<record> run(const std::vector<const pair_def*>& pairs, run_observer& observer);

  /// One size held open between calls, for `gpubench worker` (gpubench/worker_protocol.hpp):
  /// open_size sets it up and verifies every variant as run() does, and returns the records,
  /// untimed; measure_open_round times one round of the named (verified) variants, round 0 on the
  /// verified state and every later one on a fresh, re-placed state, with the record's budget split
  /// as one of `planned` rounds (without the minimum time when `added`: a round beyond the planned
  /// ones, as measure_rounds adds them), its warm-ups and samples held on `cpu` when that is not
  /// negative (schedule_options::sampling_cpu), its round-robin started at `turn` when given
  /// (schedule_options::turn), and returns their records holding that round alone;
  /// finish_open_size measures goodput and counters once the coordinator knows the medians;
  /// close_size frees the size. Opening a size closes the one before. With `hold_between_rounds`
  /// false the state is freed once verified and after every round, every round (the first too)
  /// on a fresh state: a worker then holds the size's memory only while it takes a round, so many
  /// workers of one GPU fit a size that only one can hold at a time. With `verify` false it sets
  /// the size up without running the variants: another worker of the same build verifies it, and
  /// the records come back passed, their check "not verified" with why.
  std::vector<record> open_size(const pair_def& def, const size_point& z, run_observer& observer,
                                bool hold_between_rounds = true, bool verify = true);
  /// Builds round `round`'s fresh state ahead of its measure_open_round, which then starts from it
  /// (`ab` has a cycle's two workers build theirs at the same time). Returns false, with the round
  /// left to build its own, when building failed; what failed is reported by that round.
  bool prepare_open_round(int round);
  std::vector<record> measure_open_round(int round, int planned, const std::vector<std::string>& variants, int cpu = -1,
                                         bool added = false, std::optional<int> turn = std::nullopt);
  std::vector<record> finish_open_size(const std::vector<std::pair<std::string, double>>& medians);
  void close_size();
  /// The open size's variants that this process verified and that are cheap for the build's other
  /// workers to run once, side by side, before their first round: the host time of a variant's first
  /// run in a process (a cuBLAS call choosing and loading its kernels) is then spent in every
  /// worker at once rather than in each one's first round, one after another (docs/measurement.md,
  /// "Warming the other workers"), as gpubench/warming.hpp judges them on their verifying run.
  /// Empty when the size was not verified here.
  [[nodiscard]] std::vector<std::string> cheap_to_warm() const;
  /// Runs each of `variants` that passed in this process once, untimed, on the open size's state,
  /// and returns how many ran; none when the state is not held between rounds.
  int warm_open_size(const std::vector<std::string>& variants);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace gpubench
