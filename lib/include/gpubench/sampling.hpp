#pragma once
/// The measurement schedule, CUDA-free, so that every stop and every round is testable on a CPU.
///
/// One size of one pair is measured in `rounds` independent rounds. Before each round after the
/// first the executor builds a fresh state (new buffers, the same inputs), so placement and other
/// per-allocation effects vary between rounds as they do between processes. Inside a round the
/// variants are sampled round-robin, one sample each in turn, so slow drift (clocks, power,
/// temperature) falls on baseline and optimized alike; each (variant, round) samples until its own
/// stopping rule is met. The levels (samples within a round, rounds within a run) follow
/// Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013: compare uses the
/// spread of the round medians, not the samples alone (lib/src/compare/compare.cpp).
///
/// The CUDA executor is lib/src/measure/cuda_executor.cpp; tests/unit/sampling_test.cpp scripts one.
#include <cstddef>
#include <cstdint>
#include <vector>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "gpubench/record.hpp"

namespace gpubench {

/// When one (variant, round) has sampled enough.
struct stopping_criteria {
  double max_noise = 0.005;  ///< relative standard error of the median (median_rel_noise) to reach
  int min_samples = 10;      ///< before the noise rule may stop
  double min_time_s = 0.05;  ///< sampling time before the noise rule may stop
  double timeout_s = 1.0;    ///< stop after this long, once there are at least min_samples_timeout samples
  int max_samples = 10000;
  int min_samples_timeout = 3;

  /// The share of a whole-record budget that one of `rounds` rounds gets: time and counts split
  /// evenly (at least 3 samples a round before the noise rule may stop it, at least one before a
  /// timeout), and the noise target widened by sqrt(rounds), since the record pools the rounds.
  [[nodiscard]] stopping_criteria per_round(int rounds) const;
  /// A round added after the `rounds` planned ones: a planned round's noise target, counts and
  /// timeout, but no minimum time. It is there because the record's rounds disagree, so its worth
  /// is one more draw of the placement, not a longer look at one: a short kernel, which the
  /// minimum time holds far past its noise target, adds a round for a few milliseconds (the fresh
  /// state, the empty span, a few samples), while a noisy one still samples until its round median
  /// is as sharp as a planned round's.
  [[nodiscard]] stopping_criteria added_round(int rounds) const;
};

/// The stopping rule of one (variant, round): converged once the noise target, the minimum count
/// and the minimum time are all met; else max_samples; else timeout (with min_samples_timeout).
class stopping_rule {
 public:
  explicit stopping_rule(stopping_criteria c) : c_(c) {}
  /// After each sample: why to stop now, or nothing to go on. `samples`: this round's samples of
  /// this variant, in order; `elapsed_s`: the time this (variant, round) has spent sampling.
  std::optional<stop_reason> after_sample(std::span<const double> samples, double elapsed_s);
  /// The last noise estimate (+inf before three samples).
  [[nodiscard]] double noise() const { return noise_; }

 private:
  stopping_criteria c_;
  double noise_ = std::numeric_limits<double>::infinity();
};

/// One timed execution as the executor saw it.
struct sample_reading {
  double time_s = 0;               ///< the record's figure (timing_data::source says what it is)
  std::optional<double> span_s;    ///< the CUDA-event span, kept beside a GPU-busy figure
  double sm_clock_mhz = 0;         ///< 0 when not read
  bool throttled = false;
};

/// What the schedule drives: one size of one pair, its variants numbered as in the pair.
class sample_executor {
 public:
  virtual ~sample_executor() = default;
  /// Called before each round; round 0 runs on the state that verification used, a later round
  /// on a fresh one. Throwing ends the schedule: the rounds already measured are kept.
  virtual void begin_round(int round) = 0;
  /// Untimed runs that settle clocks, caches and TLBs for `variant` after a fresh state.
  virtual void warm_up(std::size_t variant, int runs) = 0;
  /// One timed execution. Throwing fails this variant only.
  virtual sample_reading sample(std::size_t variant) = 0;
  /// Monotonic seconds (the schedule's time limits; a scripted clock in tests).
  virtual double now_s() = 0;
  /// Lets the device rest (awake, drawing little power) for `seconds` before the next sample,
  /// outside its timing, and returns once it has; schedule_options::rest_ratio says why. The
  /// schedule charges the time to the variant whose sample the rest follows. Throwing fails the
  /// next variant.
  virtual void rest(double seconds) { (void)seconds; }
  /// What this round's samples had subtracted from them (the empty CUDA-event span, measured in
  /// begin_round), 0 when nothing; the schedule stores it in the round (round_info).
  [[nodiscard]] virtual double round_offset_s() const { return 0.0; }
  /// The spacer allocated before this round's fresh state (round_info::placement_bytes), 0 when none.
  [[nodiscard]] virtual std::uint64_t round_placement_bytes() const { return 0; }
};

struct schedule_options {
  int rounds = 3;
  /// Up to this many rounds (0, or anything below `rounds`: exactly `rounds`). After `rounds`
  /// rounds the schedule adds one round at a time while some variant's center, the mean of its
  /// round log medians, is known to be worse than `total.max_noise` (the sd of those log medians over
  /// sqrt(rounds so far)): rounds that land on different placements then give the record more
  /// rounds instead of a wide interval in compare. An added round has total.added_round(rounds):
  /// a planned round's budget without the minimum time. The caller decides
  /// where rounds can help: for device-timed work a round is a fresh draw of what varies between
  /// processes; for host-driven work or bytes over PCIe it is not (docs/measurement.md, "Rounds
  /// until the center is known").
  int max_rounds = 0;
  int warmup_runs = 1;          ///< per variant and round (at least 1 after a fresh state, see below)
  /// A variant whose samples take this long gets no warm-up after the first round: a run that
  /// long costs as much as a sample, and what a warm-up settles (clocks, TLBs) is a small part of it.
  double long_sample_s = 0.05;
  stopping_criteria total;      ///< the whole record's budget; each round gets total.per_round(rounds)
  /// Before each sample the device rests for rest_ratio times the previous sample's time (any
  /// variant's: it is the GPU's power state that matters), so the samples keep at most
  /// 1/(1 + rest_ratio) of the GPU busy. Back to back (0), a tensor-core GEMM soon runs at the power
  /// cap, 9-19% slower than on a fresh GPU and by a different amount in each process; resting
  /// keeps it at the fresh GPU's speed (docs/measurement.md, "Samples rest"). A rest counts
  /// toward the time limits of the variant whose sample it follows, as that sample's wall time does.
  double rest_ratio = 0;
  /// No rest follows a sample shorter than this: the flush and the host's turnaround before the
  /// next sample (~50 us) already idle the GPU about as long, and resting after chains of a few
  /// microseconds made their rounds spread on both GPUs (docs/measurement.md, "Samples rest").
  double rest_after_s = 50e-6;
  /// Warm-ups and samples of a round run with the measuring thread held on this CPU (negative:
  /// wherever the scheduler puts it); the round's fresh state is built before, unheld, since it may
  /// fill memory from several threads. `gpubench ab` holds both builds' rounds of a cycle on the same
  /// CPU, so what that core does to host-side timing cancels in their difference (docs/measurement.md,
  /// "Samples held on one CPU").
  int sampling_cpu = -1;
  /// Where the round-robin starts: sample turn k of a round takes variant (k + turn) mod n. Empty:
  /// the round's own index, so that no variant always follows the same neighbour. The first
  /// samples of a round can read slow (on an H200, a 550 us copy's first one or two by about 55 us
  /// in the first round after a cycle's fresh states were built), and that falls on whichever
  /// variant starts; `gpubench ab` names one turn for both rounds of a cycle and for a pair's cycles
  /// of both orders, so that it falls on the same variant in both builds and cancels in ABBA
  /// (docs/measurement.md, "A round's first samples").
  std::optional<int> turn;
};

/// One variant to measure and where its timing goes.
struct measure_slot {
  std::size_t variant = 0;
  timing_data* timing = nullptr;  ///< samples, spans, clocks and rounds are appended here
  std::string error;              ///< set when the variant failed while sampling (then not timed)
  /// The variant's last sample in an earlier round that `timing` no longer holds (a worker answers
  /// each round with that round's samples alone), 0 when none: the warm-up rule reads it when
  /// `timing` has no sample yet.
  double earlier_sample_s = 0;
};

/// Progress: slot index, samples of this round so far, the round, its noise, seconds in this round.
using sampling_progress = std::function<void(std::size_t slot, std::size_t samples, int round, double noise, double elapsed_s)>;

/// Whether a fresh round redraws what makes a record's time differ between processes, so that
/// extra rounds (schedule_options::max_rounds) narrow its interval in compare: yes for device-timed
/// work in one GPU's memory (buffer placement; compare's device class has no process term beyond
/// its floor), no for host-timed work (the host's speed drifts over seconds, shared by every
/// host-driven record of a process) and for bytes over PCIe or between GPUs (their rounds agree
/// while processes differ). docs/measurement.md, "Rounds until the center is known".
bool rounds_redraw_process_noise(bool host_timed, bytes_path path);

/// The size of the spacer allocated before a round's fresh state (re-placement), from a uniform
/// 64-bit `draw`: 0 to 63 blocks of 2 MiB (the granule in which CUDA maps device memory) plus 0 to
/// 31 pieces of 64 KiB (so that buffers smaller than a granule move inside it too), at most 130 MiB.
std::uint64_t placement_spacer_bytes(std::uint64_t draw);

/// The standard error of a center from its round log medians: their sd over sqrt(count); 0 with
/// fewer than two rounds. schedule_options::max_rounds adds rounds while it exceeds the target.
double round_center_error(std::span<const double> round_log_medians);

/// One round of the schedule, as measure_rounds runs each: the executor's begin_round(round), a
/// warm-up per variant (schedule_options::warmup_runs; at least one after a fresh state unless
/// the variant's samples are long), then round-robin samples until each slot's `criteria` stop it,
/// resting as schedule_options says. Appends the round's samples, spans, clocks and one round_info
/// to each live slot's timing; a slot that fails gets its `error` (its partial samples stay until
/// drop_failed_slots). Returns why the round could not begin (begin_round threw), else nothing.
/// `gpubench worker` runs rounds one at a time for `run --processes` and `gpubench ab`.
std::optional<std::string> measure_round(sample_executor& ex, std::span<measure_slot> slots,
                                         const schedule_options& options, int round, const stopping_criteria& criteria,
                                         const sampling_progress& progress = {});

/// Clears the samples of every slot that failed: a partial sample set would read as a measurement.
void drop_failed_slots(std::span<measure_slot> slots);

/// The log median of each of a timing's rounds, in order (rounds whose median is not positive left out).
std::vector<double> round_log_medians_of(const timing_data& t);

/// Measures every slot over the rounds (see the header comment). Fills each slot's timing:
/// samples_s (and span_s when the executor gives spans), sm_clock_mhz, throttled, rounds (with the
/// executor's round_offset_s),
/// stopped (the most telling reason over the rounds: timeout, then max_samples, then converged)
/// and wall_s. Returns a note when the schedule ended before its last round (empty otherwise).
std::string measure_rounds(sample_executor& ex, std::span<measure_slot> slots, const schedule_options& options,
                           const sampling_progress& progress = {});

/// measure_rounds one round at a time, for a caller that takes a size's rounds at different
/// moments (runner::run takes host-timed sizes' later rounds in sweeps, sweep_rounds). It keeps
/// what measure_rounds keeps between rounds: which rounds are still wanted (the planned ones, then
/// added ones while a center is unsettled), each round's budget, and why the schedule stopped.
/// `slots` must outlive it.
class round_sequence {
 public:
  round_sequence(std::span<measure_slot> slots, const schedule_options& options);
  /// Whether round `round` (the one after the last taken) is still to be taken: some slot is
  /// alive, no earlier round failed to begin, and the round is planned or a center is unsettled.
  [[nodiscard]] bool wants(int round) const;
  /// Takes round `round` on `ex` (measure_round with the round's budget). Returns false when the
  /// round could not begin: the first round's failure fails every slot; a later one keeps the
  /// rounds before it and sets the note.
  bool take(sample_executor& ex, int round, const sampling_progress& progress = {});
  /// Clears the failed slots' samples and returns the note (empty when every round began).
  std::string finish();
  [[nodiscard]] const schedule_options& options() const { return options_; }

 private:
  std::span<measure_slot> slots_;
  schedule_options options_;
  int rounds_, max_rounds_;
  stopping_criteria per_round_, added_;
  bool stopped_ = false;
  std::string note_;
};

/// Takes rounds `first_round` and later of several sizes in sweeps: round r of every size that
/// wants it, in order, before round r + 1 of any. A size's rounds then lie a whole sweep apart
/// instead of back to back, so a slow spell of the host shorter than a sweep reaches at most one
/// of them: the record's rounds disagree and compare widens its interval, where back-to-back
/// rounds would agree on the slow moment (docs/measurement.md, "Host-timed rounds in sweeps").
/// `visit(i, r)` takes round r of size i: it makes the size's executor, calls sizes[i]->take and
/// frees what it built.
void sweep_rounds(std::span<round_sequence* const> sizes, int first_round,
                  const std::function<void(std::size_t size, int round)>& visit);

/// One thing `gpubench device --ceilings` times: a callable that runs it once and returns the
/// seconds it took (CUDA events or the host clock: the caller knows which fits).
struct timed_candidate {
  std::function<double()> time_once;
  int warmup_runs = 1;  ///< untimed runs before the first sample (module load, clocks, TLBs)
};

/// The ceilings' schedule, through measure_rounds: every candidate warmed up, then sampled
/// exactly `repetitions` times, round-robin, so a drift in clocks or temperature falls on every
/// candidate alike (a kernel and its library reference, or the shapes a ceiling picks from).
/// Returns each candidate's samples in candidate order. An exception thrown by a candidate is
/// rethrown as it was, once the schedule has stopped. `clock` (monotonic seconds) is for tests.
std::vector<std::vector<double>> measure_candidates(std::span<const timed_candidate> candidates, int repetitions,
                                                    const std::function<double()>& clock = {});

}  // namespace gpubench
