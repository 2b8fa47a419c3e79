#pragma once
/// Where a fleet's results go (docs/fleet.md): one entry per Slurm task, tagged with the host, the
/// GPU (UUID, PCI bus id, model, driver) and the Slurm job, plus the job's allocation and the
/// tasks that failed with their reasons. CUDA-free.
///
/// fleet_store is the seam to the run store: `open_fleet_store(location)` picks the backend from
/// the location, and today the one backend is a shared folder (folder_store below). A database
/// backend implements the same five calls.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpubench/profile.hpp"

namespace gpubench {

/// Who measured what, where: one Slurm task on one GPU.
struct fleet_task_tags {
  std::string job_id;    ///< SLURM_JOB_ID ("JOB_INDEX" for an array task): [A-Za-z0-9_.-]+
  int task = 0;          ///< SLURM_PROCID, 0-based, unique within the job
  int tasks = 0;         ///< SLURM_NTASKS
  std::string node;      ///< SLURMD_NODENAME (the node's name in Slurm)
  std::string host;      ///< the host name the task's process saw
  std::string gpu_uuid;  ///< from the profile's device: "GPU-..." (empty when it has none)
  std::string pci_bus_id;
  std::string gpu_name;      ///< the GPU model, "NVIDIA H100 80GB HBM3"
  std::string driver;        ///< NVML's driver string, else the CUDA driver version number
  std::string visible_gpus;  ///< CUDA_VISIBLE_DEVICES as Slurm set it for the task
  /// "gpubench run" when the task measured, or "recorded profile NAME" when the measurement step
  /// was replaced by a recorded profile (CI without a GPU; docs/fleet.md).
  std::string measured_by;
  int run_exit = 0;       ///< the exit code of the measurement (`gpubench run`), 0 for a recorded profile
  std::string stored_at;  ///< ISO 8601 UTC
};

/// What the job was asked to do and what Slurm gave it, written when the job starts.
struct fleet_manifest {
  std::string job_id;
  int tasks = 0;                    ///< tasks the job runs (SLURM_NTASKS)
  std::vector<std::string> nodes;   ///< the allocation's nodes, in Slurm's order
  std::vector<int> tasks_per_node;  ///< per node of `nodes` (block distribution), empty when unknown
  std::string started_at;           ///< ISO 8601 UTC
};

/// A task that produced no profile, and why.
struct fleet_failure {
  fleet_task_tags tags;
  std::string reason;  ///< one line: what failed, the exit code, the last line the measurement printed
};

/// One task's stored profile.
struct fleet_result {
  fleet_task_tags tags;
  profile prof;
  std::string source;  ///< where it was read from (a file, a row)
};

/// Everything stored for one job. Entries that could not be read are listed with the reason, so
/// a damaged file never hides silently.
struct fleet_job {
  std::string job_id;
  std::optional<fleet_manifest> manifest;
  std::vector<fleet_result> results;    ///< by task
  std::vector<fleet_failure> failures;  ///< by task
  std::vector<std::string> unreadable;  ///< "NAME: why"
};

class fleet_store {
 public:
  virtual ~fleet_store() = default;
  virtual void put_manifest(const fleet_manifest& m) = 0;
  /// Stores one task's profile; a task's entry is written whole or not at all, and replaces an
  /// earlier entry of the same (job, task), a failure included (a requeued task).
  virtual void put_result(const fleet_task_tags& tags, const profile& p) = 0;
  virtual void put_failure(const fleet_failure& f) = 0;
  /// The stored jobs, oldest first.
  [[nodiscard]] virtual std::vector<std::string> jobs() const = 0;
  /// Throws usage_error when the store has no such job.
  [[nodiscard]] virtual fleet_job load(const std::string& job_id) const = 0;
  /// "folder /shared/fleet", for messages.
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// A shared folder: DIR/job-JOB/manifest.json, DIR/job-JOB/task-NNNNN.json (the tags and the
/// profile) and DIR/job-JOB/task-NNNNN.failed.json. Task numbers are unique within a job and job ids
/// unique within a cluster, so tasks never write the same file; each file is written atomically
/// (a temporary file beside it, then rename), so a reader never sees half of one.
class folder_store final : public fleet_store {
 public:
  /// `create`: make DIR when it is missing (its parent must exist). Throws usage_error when DIR
  /// is not a writable folder (reading needs only a readable one).
  explicit folder_store(std::filesystem::path dir, bool create = false);
  void put_manifest(const fleet_manifest& m) override;
  void put_result(const fleet_task_tags& tags, const profile& p) override;
  void put_failure(const fleet_failure& f) override;
  [[nodiscard]] std::vector<std::string> jobs() const override;
  [[nodiscard]] fleet_job load(const std::string& job_id) const override;
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

 private:
  [[nodiscard]] std::filesystem::path job_dir(const std::string& job_id) const;
  std::filesystem::path dir_;
};

/// The store at `location`: today a folder path. `create` as for folder_store.
std::unique_ptr<fleet_store> open_fleet_store(const std::string& location, bool create = false);

/// Whether `id` may name a job: [A-Za-z0-9_.-]+, at most 64 bytes, not "." or "..".
bool valid_job_id(const std::string& id);

/// The task's tags and profile as one JSON document (schema "gpubench-fleet-task"), and back;
/// the reader validates as read_profile does and throws usage_error naming `source`.
nlohmann::ordered_json fleet_result_to_json(const fleet_task_tags& tags, const profile& p);
fleet_result fleet_result_from_json(const nlohmann::ordered_json& j, const std::string& source);
nlohmann::ordered_json to_json(const fleet_failure& f);
fleet_failure fleet_failure_from_json(const nlohmann::ordered_json& j, const std::string& source);
nlohmann::ordered_json to_json(const fleet_manifest& m);
fleet_manifest fleet_manifest_from_json(const nlohmann::ordered_json& j, const std::string& source);

}  // namespace gpubench
