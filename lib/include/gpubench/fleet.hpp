#pragma once
/// The fleet report (docs/fleet.md): every GPU of a Slurm job ranked against the fleet's median,
/// record by record, and the GPUs outside a band flagged with confidence. CUDA-free.
///
/// GPUs are grouped by model (the device name their profile records); a GPU of another model is
/// kept apart in its own group, never averaged into the fleet's. Within a group, for each record:
///   * each GPU's center is the mean of its rounds' log medians, with the variance its rounds
///     show (at least its samples' noise), as compare's sides are (gpubench/compare.hpp);
///   * the fleet's median m is the median of those centers, and its spread s = 1.4826 × MAD of
///     them, robust to the few GPUs the report is looking for;
///   * the between-process term, which compare takes from a fitted floor or from --history, is
///     measured here from the fleet itself: s² less the typical within-run variance (every GPU of
///     the group ran the same build on the same model, so the fleet is that record's history);
///   * GPU g's log ratio d = c_g − m has sd² = its center's variance + that term + the median's
///     variance (π/2 · s² / n), and its interval is d ± t·sd, t at alpha Bonferroni-corrected over
///     every (GPU, record) cell of the group, on n − 1 degrees of freedom (simultaneous intervals).
/// A cell is flagged slow when d > log(1 + band) and the whole interval lies above 0 (the GPU is
/// beyond the band and confidently not the fleet's), fast symmetrically. A flat fleet's GPUs sit
/// band/s standard deviations inside the band, so none is flagged; a record whose GPUs spread
/// widely flags only deviations its spread cannot explain.
#include <cstddef>
#include <string>
#include <vector>

#include "gpubench/fleet_store.hpp"

namespace gpubench {

struct fleet_options {
  double band = 0.05;   ///< flag GPUs beyond ±band (relative) of the fleet median
  double alpha = 0.05;  ///< family-wise error over a group's cells
  /// A group needs this many GPUs with a record for a median and a spread to rank against.
  std::size_t min_gpus = 5;
};

enum class fleet_flag { none, slow, fast };
const char* to_string(fleet_flag f);

/// One GPU on one record.
struct fleet_cell {
  bool present = false;      ///< the GPU timed this record (passed, with samples)
  bool ranked = false;       ///< present, with enough samples, in a group large enough to rank
  double median_s = 0;       ///< the GPU's median
  double ratio = 1;          ///< exp(d): the GPU's center over the fleet median (> 1 is slower)
  double low = 1, high = 1;  ///< the interval of `ratio`
  fleet_flag flag = fleet_flag::none;
  /// In a group too small to rank (2 GPUs up to min_gpus): `ratio` is to the median of those few
  /// GPUs, with no interval (low = high = ratio) and never a flag; it orders them, nothing more.
  bool relative = false;
};

struct fleet_gpu {
  fleet_task_tags tags;
  std::string source;  ///< where its profile was read from
};

/// One record across the group.
struct fleet_record {
  std::string id;        ///< "ch02/coalescing/copy[n=268435456]"
  double median_s = 0;   ///< the fleet median (exp of the median log center)
  double spread = 0;     ///< robust sd of the log centers across the group's GPUs
  std::size_t gpus = 0;  ///< GPUs that timed it
  std::string bound;     ///< what bounds it ("dram", "pcie", "fp32", ...), from the first GPU's floor
};

/// The GPUs of one model.
struct fleet_group {
  std::string model;
  std::vector<fleet_gpu> gpus;                 ///< by task
  std::vector<fleet_record> records;           ///< in the first GPU's record order, then any others
  std::vector<std::vector<fleet_cell>> cells;  ///< [gpu][record]
  double t = 0;                                ///< the interval's quantile
  std::string not_ranked;                      ///< why the group is not ranked (too few GPUs), else empty

  [[nodiscard]] std::size_t flagged_cells() const;
  /// Indices of GPUs with a flagged cell.
  [[nodiscard]] std::vector<std::size_t> flagged_gpus() const;
  /// The geometric mean of a GPU's ranked (or, in a group too small to rank, relative) ratios (1
  /// when it has none): its overall rank.
  [[nodiscard]] double overall_ratio(std::size_t gpu) const;
  /// A GPU of a group too small to rank, and the records where it is farthest from the others.
  struct listed_gpu {
    std::size_t gpu = 0;
    std::vector<std::size_t> farthest;  ///< record indices, farthest first
  };
  /// Its GPUs slowest first by overall_ratio, each with up to `farthest` records; unflagged, no
  /// interval. Empty when no cell holds a ratio (what the console and the HTML report list).
  [[nodiscard]] std::vector<listed_gpu> slowest_first(std::size_t farthest = 3) const;
};

/// A task the job ran that stored nothing.
struct fleet_missing {
  int task = 0;
  std::string node;  ///< where Slurm's block distribution put it ("" when the manifest says too little)
};

struct fleet_ranking {
  std::string job_id;
  fleet_options options;
  int expected_tasks = 0;           ///< from the manifest (0: no manifest)
  std::size_t stored = 0;           ///< profiles stored (a GPU stored twice counts twice here, once in groups)
  std::vector<std::string> nodes;   ///< the allocation, from the manifest
  std::vector<fleet_group> groups;  ///< the most GPUs first: groups[0] is the fleet's own model
  std::vector<fleet_failure> failures;
  std::vector<fleet_missing> missing;
  std::vector<std::string> unreadable;
  /// Nodes of the allocation with no stored result at all (every task missing or failed).
  std::vector<std::string> silent_nodes;

  [[nodiscard]] std::size_t gpu_count() const;
};

/// Ranks a stored job (see the header comment). Throws usage_error for options out of range.
fleet_ranking rank_fleet(const fleet_job& job, const fleet_options& options = {});

/// Where task `task` ran under Slurm's default block distribution of a manifest's tasks over its
/// nodes ("" when the manifest does not say).
std::string node_of_task(const fleet_manifest& m, int task);

}  // namespace gpubench
