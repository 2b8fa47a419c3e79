#pragma once
/// Runs that span worker processes (gpubench/worker_protocol.hpp). CUDA-free: the coordinator
/// never touches the GPU; its workers do, one round at a time, so no two rounds ever overlap.
///
/// `run --processes K` spreads each record's rounds over K workers of one build, so the record's
/// rounds come from K processes and compare measures its between-process level from its own data
/// (Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013), instead of assuming
/// a fitted floor.
///
/// `gpubench ab` measures two builds side by side: K workers of each, every record's rounds
/// alternated in cycles of one base round and one new round, back to back, in ABBA order (AB, then
/// BA), so drift in the host or the clocks falls on both builds alike and cancels in each cycle's
/// difference; compare judges the record on those differences (lib/src/compare/noise_model.hpp,
/// paired_cycles).
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gpubench/profile.hpp"
#include "gpubench/worker_link.hpp"
#include "gpubench/worker_protocol.hpp"

namespace gpubench {

/// What a coordinator reports while it works (the console's progress line).
struct coordinator_progress {
  /// A size starts: its index among `total` and the item.
  std::function<void(std::size_t index, std::size_t total, const worker_item& item)> item_begin;
  /// What it is doing now ("setting up in 4 workers, verifying in one", "round 3 of 6 on worker 2").
  std::function<void(const std::string& what)> phase;
  /// A size is done; `records` holds every record measured so far (the file can be rewritten).
  std::function<void(const std::vector<record>& records)> item_end;
};

/// Says hello to every worker and checks that each speaks kWorkerProtocol; returns each worker's
/// provenance and ceilings (a profile without records). Throws usage_error (exit 2) naming a
/// worker that speaks another version or none, with what to do.
std::vector<profile> hello_workers(std::span<worker_link* const> workers);

/// How `run --processes` spreads rounds.
struct processes_plan {
  int rounds = 3;         ///< planned rounds per size, at least one per worker (rounded up to whole sweeps)
  int max_rounds = 8;     ///< up to this many (whole sweeps over the workers) while a center is unsettled
  double target = 0.005;  ///< a center's standard error (log units) below which no round is added
};

/// `run --processes`: every size set up in every worker and verified in the first (concurrently; no
/// timing then), then its rounds taken one at a time, round r on worker r mod K, each a fresh state
/// in that worker.
/// Sizes whose rounds redraw the between-process level (worker_item::redraws) get more whole
/// sweeps while a center's standard error (its process means' spread / sqrt(K)) exceeds the
/// target, each added round without a planned round's minimum time (worker_protocol.hpp). Returns
/// the records, each round tagged with its worker (round_info::process), derived with worker 0's
/// ceilings; `out` gets worker 0's provenance and ceilings.
/// `selections`: one per chapter asked for (a plan request names one chapter); the workers plan
/// and measure each in turn, started once for them all.
std::vector<record> measure_across_processes(std::span<worker_link* const> workers,
                                             std::span<const worker_selection> selections, const worker_timing& timing,
                                             const processes_plan& plan, const coordinator_progress& progress,
                                             profile& out);
inline std::vector<record> measure_across_processes(std::span<worker_link* const> workers,
                                                    const worker_selection& selection, const worker_timing& timing,
                                                    const processes_plan& plan, const coordinator_progress& progress,
                                                    profile& out) {
  return measure_across_processes(workers, std::span(&selection, 1), timing, plan, progress, out);
}

/// How `gpubench ab` alternates the builds.
struct ab_plan {
  int cycles = 16;  ///< planned cycles per size (rounded up to whole sweeps of both ABBA orders)
  /// Up to this many while more would narrow some record's interval; a size whose rounds, with one
  /// more sweep, fit in a quarter of size_budget_s goes on to twice as many.
  int max_cycles = 64;
  double target = 0.005;  ///< the cycles' share of a paired center's standard error (log units) worth no more cycles
  /// From twice `cycles` on (in whole sweeps), a size gets another sweep only while its rounds so
  /// far and one more sweep at their pace fit in this many seconds: the cheap sizes take the extra
  /// cycles. A size whose planned cycles would not fit it at its first cycle's pace gets only the
  /// whole sweeps that fit, at least one, over fewer pairs of workers where one sweep over all would
  /// not fit (ab_outcome::on_fewer_pairs), as many as fit and at least three.
  double size_budget_s = 20;
  /// The CPUs to hold rounds' samples on: worker pair w's on cpus[w mod size], both builds' rounds
  /// of a cycle on the same one (schedule_options::sampling_cpu). Empty: wherever the scheduler puts them.
  std::vector<int> cpus;
};

/// Where `gpubench ab`'s time went, in seconds of the coordinator's clock.
struct ab_cost {
  double starting_s = 0;   ///< greeting every worker and planning each selection with it
  double verifying_s = 0;  ///< opening each size: set-up in every worker, verification in each build's first
  double warming_s = 0;    ///< then the other workers' first runs of what their verifier found cheap to repeat
  double closing_s = 0;    ///< closing each size
  double preparing_s = 0;  ///< cycles' fresh states, both workers' built at the same time (prepare_cycle)
  int prepares = 0;        ///< cycles whose states were prepared so
  int rounds = 0;
  double rounds_s = 0;          ///< the rounds' requests, answer to answer
  int rounds_timed_inside = 0;  ///< rounds whose worker said how long it took (builds that report round_s)
  double in_worker_s = 0;       ///< of which inside the workers, over those rounds
  double sampling_s = 0;        ///< of which warming up, sampling and resting (the records' wall_s)
  int rounds_on_cpu = 0;        ///< rounds whose worker held its samples on the CPU asked (ab_plan::cpus)
  int rounds_turned = 0;        ///< rounds whose worker started its round-robin at the variant asked
};

/// A size measured on fewer pairs of workers than `ab` started, to fit ab_plan::size_budget_s.
struct ab_fewer_pairs {
  std::string size;  ///< worker_item::key()
  int pairs = 0;     ///< the pairs it was measured on
  int of = 0;        ///< the pairs started
};

struct ab_outcome {
  profile base, next;                                  ///< each build's records, rounds tagged with worker and cycle
  std::vector<std::string> only_in_base, only_in_new;  ///< sizes one build has and the other lacks
  std::vector<ab_fewer_pairs> on_fewer_pairs;          ///< sizes over their budget
  ab_cost cost;
};

/// The sizes ("ch02/aos_soa[particles=67108864]") that ran out of GPU memory in some worker of
/// either build, even opened one worker at a time beside the other workers' contexts; once each.
std::vector<std::string> sizes_out_of_memory(const ab_outcome& out);

/// `gpubench ab`: `base` and `next` are K workers of each build. Every size both builds plan is
/// set up in every worker and verified in each build's first, then measured in cycles: cycle c
/// uses worker c mod K of each build, each pair base first in one sweep and new first in the next
/// (AB then BA), the pairs of a sweep alternating which goes first, every round after a worker's
/// first on a fresh state; both rounds of a cycle, and a pair's two orders within a block of two
/// sweeps, start their variants at the same one (schedule_options::turn). A size whose planned cycles would take
/// longer than ab_plan::size_budget_s at its first cycle's pace gets the whole sweeps that fit, at
/// least one, and where one sweep would not fit, only the first P pairs, with P in place of K; its
/// rounds keep the share of each record's budget that one of the planned cycles has. Cycles are
/// added in whole sweeps while the cycles' part of some record's paired center's error (the spread
/// of the per-cycle differences within each pair of workers) is above the target; from twice
/// ab_plan::cycles on (in whole sweeps), only while the size's rounds with one more sweep fit
/// ab_plan::size_budget_s; past twice the planned cycles, only while twice the cycles would also
/// cut the center's variance, with the part the pairs' own offsets add (which no number of cycles
/// shrinks), by a tenth or more; past ab_plan::max_cycles, up to twice as many, only while they fit
/// a quarter of the budget. Only variants that passed verification in both builds are timed;
/// `session` goes into both profiles' options (ab_session) so that compare pairs their cycles.
/// `selections`: one per chapter asked for; the workers plan each in turn, started once for them
/// all (each start opens a CUDA context per worker, one at a time in the driver).
ab_outcome measure_ab(std::span<worker_link* const> base, std::span<worker_link* const> next,
                      std::span<const worker_selection> selections, const worker_timing& timing, const ab_plan& plan,
                      const std::string& session, const coordinator_progress& progress);
inline ab_outcome measure_ab(std::span<worker_link* const> base, std::span<worker_link* const> next,
                             const worker_selection& selection, const worker_timing& timing, const ab_plan& plan,
                             const std::string& session, const coordinator_progress& progress) {
  return measure_ab(base, next, std::span(&selection, 1), timing, plan, session, progress);
}

}  // namespace gpubench
