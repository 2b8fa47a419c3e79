#pragma once
/// The measurement engine for pairs that run one process per GPU (pair_def::one_process_per_gpu;
/// docs/fleet.md, "Collectives, one process per GPU"): every rank of a rank_group builds the same
/// State on its own GPU, verifies its own result against its own baseline, and samples in
/// lockstep (gpubench/rank_group.hpp), so every rank ends with the same records; rank 0 writes
/// them. Each size gains a `ranks` axis (the number of processes).
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "gpubench/device_info.hpp"
#include "gpubench/rank_group.hpp"
#include "gpubench/record.hpp"
#include "gpubench/sampling.hpp"

namespace gpubench {

struct rank_run_options {
  stopping_criteria stopping;  ///< the whole record's budget, shared by its rounds
  int rounds = 3;
  int warmup_runs = 1;
  std::uint64_t seed = 0;  ///< 0: rank 0 draws one and every rank uses it
  std::vector<axis_override> axis_overrides;
  bool smallest = false;
};

class rank_runner {
 public:
  /// Opens this rank's GPU: the group's local rank modulo the devices it sees (1 device per task
  /// under Slurm's GRES binding). Throws runtime_error on every rank when any rank has no device.
  rank_runner(rank_group& group, rank_run_options options);
  ~rank_runner();
  rank_runner(const rank_runner&) = delete;
  rank_runner& operator=(const rank_runner&) = delete;

  [[nodiscard]] const device_info& device() const;
  [[nodiscard]] const ceilings& device_ceilings() const;
  [[nodiscard]] const rank_run_options& options() const;

  /// Measures the pairs; `size_done` is called after each size with its records (on every rank).
  std::vector<record> run(const std::vector<const pair_def*>& pairs,
                          const std::function<void(const std::vector<record>&)>& size_done = {});

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace gpubench
