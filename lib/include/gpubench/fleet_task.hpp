#pragma once
/// One fleet task's work inside its Slurm job step (docs/fleet.md): measure this task's GPU with
/// `gpubench run`, or take a recorded profile in that step's place, and store the outcome, tagged,
/// in the fleet's store. CUDA-free: the measurement is another gpubench process.
#include <string>
#include <vector>

#include "gpubench/fleet_store.hpp"
#include "gpubench/slurm.hpp"

namespace gpubench {

struct fleet_task_options {
  std::string gpubench;               ///< the binary that runs `gpubench run`
  std::vector<std::string> run_args;  ///< its arguments (no --out: the task chooses where)
  /// Replaces the measurement with this profile (a cluster without GPUs, such as CI); every
  /// other step is the same.
  std::string recorded_profile;
};

struct fleet_task_outcome {
  fleet_task_tags tags;         ///< what was stored
  bool stored_profile = false;  ///< a profile was stored (else a failure, with `failure`)
  std::size_t records = 0;
  std::string failure;
  int exit_code = 0;  ///< the task's: the run's exit code, 2 for an unreadable recorded profile
};

/// Runs the task and stores its outcome in `store`: the profile, tagged with the task (`env`), the
/// host and the GPU the profile names, or a failure with its reason (the run's exit code or
/// signal and the last line it printed). Throws only when the store itself cannot be written.
fleet_task_outcome run_fleet_task(fleet_store& store, const slurm_task_env& env, const fleet_task_options& o);

/// The job's manifest from the batch step's environment: its tasks, its nodes (expanded through
/// `scontrol show hostnames`) and the tasks per node when Slurm's counts add up.
fleet_manifest manifest_from_env(const slurm_task_env& env);

}  // namespace gpubench
