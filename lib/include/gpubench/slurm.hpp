#pragma once
/// Fleet runs through Slurm (docs/fleet.md): the batch script `gpubench fleet submit` writes, the
/// checks that Slurm is there and configured before anything is submitted, and what a task reads
/// from the environment Slurm gives it. CUDA-free. Slurm's programs are started without a shell.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

struct fleet_submit_options {
  std::string gpubench;               ///< absolute path of the gpubench binary every node runs
  std::string store;                  ///< absolute path of the shared folder the tasks store into
  std::vector<std::string> run_args;  ///< passed to `gpubench run` on every GPU
  int nodes = 1;
  int gpus_per_node = 1;  ///< one task per GPU, each with GRES gpu:1
  std::string partition;  ///< "" = the cluster's default
  std::string account;    ///< "" = the user's default
  std::string time_limit = "01:00:00";
  std::string job_name = "gpubench-fleet";
  std::vector<std::string> nodelist;  ///< nodes to run on ("" = any)
  /// Replaces each task's measurement step with this recorded profile (absolute path): for a
  /// cluster without GPUs, such as CI; everything else (Slurm, tags, the store) is real.
  std::string recorded_profile;
};

/// Throws usage_error naming the first option that cannot go into a batch script (a newline or
/// other control character, a relative path, counts out of range, a malformed time limit).
void check_submit_options(const fleet_submit_options& o);

/// The batch script: #SBATCH lines (nodes, tasks per node, --gpus-per-task=1, time, name, output
/// into the store), then `gpubench fleet begin` (records the allocation) and one `srun gpubench
/// fleet task` step that runs a task per GPU. Every value is single-quoted for the shell.
std::string sbatch_script(const fleet_submit_options& o);

/// `s` as one shell word: unchanged when it holds only [A-Za-z0-9_./:=@%+,-], else in single quotes.
std::string shell_quote(std::string_view s);

/// Why Slurm cannot take a job here ("" when it can): sbatch or scontrol missing from PATH, no
/// controller answering (`scontrol ping`), the partition unknown, no node with GRES gpu.
std::string slurm_problem(const std::string& partition);

/// `sbatch --test-only SCRIPT`: "" when Slurm would accept the job, else what sbatch said.
std::string sbatch_test_only(const std::string& script_path);
/// `sbatch --parsable SCRIPT`: the job id. Throws runtime_error with sbatch's message.
std::string sbatch_submit(const std::string& script_path);

/// What a task learns from Slurm's environment.
struct slurm_task_env {
  std::string job_id;          ///< SLURM_JOB_ID, or SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID for an array task
  int task = 0;                ///< SLURM_PROCID
  int tasks = 1;               ///< SLURM_NTASKS
  std::string node;            ///< SLURMD_NODENAME
  std::string node_list;       ///< SLURM_JOB_NODELIST, compressed ("gpu[01-04]")
  std::string tasks_per_node;  ///< SLURM_TASKS_PER_NODE ("8(x4)")
  std::string visible_gpus;    ///< CUDA_VISIBLE_DEVICES
};
/// Reads it from `env` (name → value; the process environment when empty). Throws usage_error
/// when SLURM_JOB_ID is unset (not inside a Slurm job) or a value is malformed.
slurm_task_env read_slurm_env(const std::map<std::string, std::string>& env = {});

/// SLURM_TASKS_PER_NODE expanded: "2(x3),1" → {2, 2, 2, 1}; nullopt when malformed.
std::optional<std::vector<int>> expand_tasks_per_node(std::string_view s);

/// The node names of a compressed node list, through `scontrol show hostnames`; the list as one
/// name when scontrol cannot expand it.
std::vector<std::string> expand_node_list(const std::string& node_list);

}  // namespace gpubench
