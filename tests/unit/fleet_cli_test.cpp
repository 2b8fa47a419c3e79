/// The fleet commands driven through the real binary with Slurm's environment set by hand (no
/// Slurm needed): `fleet begin` records the allocation, `fleet task` stores a recorded profile or
/// the reason its measurement failed, `fleet report` names missing tasks and gates on request,
/// `fleet submit --dry-run` prints the script; bad input is refused with exit 2.
#include <fstream>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

const std::string kExe = GPUBENCH_EXE;
const std::string kRecorded = std::string(GPUBENCH_SOURCE_DIR) + "/profiles/reference/h200-ch01.json";

// Slurm's variables for task `task` of a 3-task job 500 on node n1 (and nothing from the caller's
// own Slurm, if it has one).
std::string slurm_env(int task) {
  return "env -u SLURM_ARRAY_JOB_ID -u SLURM_ARRAY_TASK_ID SLURM_JOB_ID=500 SLURM_PROCID=" + std::to_string(task) +
         " SLURM_NTASKS=3 SLURMD_NODENAME=n1 SLURM_JOB_NODELIST=n1 SLURM_TASKS_PER_NODE=3 CUDA_VISIBLE_DEVICES=" +
         std::to_string(task) + " ";
}

TEST(fleetCli, TasksStoreAndTheReportNamesWhatIsMissing) {
  temp_dir d;
  const std::string store = d.path.string();
  auto r = run_shell(slurm_env(0) + kExe + " fleet begin --store " + store + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  for (int t = 0; t < 2; ++t) {
    r = run_shell(slurm_env(t) + kExe + " fleet task --store " + store + " --recorded-profile " + kRecorded + " 2>&1");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("fleet: task " + std::to_string(t) + " on n1: stored"), std::string::npos) << r.output;
  }
  EXPECT_TRUE(std::filesystem::exists(d.path / "job-500" / "task-00001.json"));
  r = run_shell(kExe + " fleet report --store " + store + " --html " + store + "/fleet.html 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("fleet: job 500, the newest of 1 in folder"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fleet job 500: 2 GPU profiles stored of 3 tasks, 0 failed, 1 missing"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("  task 2 on n1"), std::string::npos) << r.output;
  // Both tasks stored the same recorded GPU: it counts once, and the second is named.
  EXPECT_NE(r.output.find("already reported by another task"), std::string::npos) << r.output;
  EXPECT_TRUE(std::filesystem::exists(d.path / "fleet.html"));
  r = run_shell(kExe + " fleet report --store " + store + " --job 500 --fail-on-flag >/dev/null 2>&1");
  EXPECT_EQ(r.status, 4);
}

TEST(fleetCli, AFailedMeasurementStoresItsReason) {
  temp_dir d;
  const auto r = run_shell(slurm_env(1) + kExe + " fleet task --store " + d.path.string() + " -- --chapter 99 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;  // the run's own exit code
  std::ifstream in(d.path / "job-500" / "task-00001.failed.json");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("gpubench run exited 2 without a profile: gpubench: error: no chapter 99"), std::string::npos)
      << text;
}

TEST(fleetCli, RefusesBadInput) {
  temp_dir d;
  const std::string store = d.path.string();
  auto r = run_shell("env -u SLURM_JOB_ID " + kExe + " fleet task --store " + store + " 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("SLURM_JOB_ID is not set"), std::string::npos) << r.output;
  r = run_shell(slurm_env(0) + kExe + " fleet task --store " + store + " -- --chapter 1 --out x.json 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("drop --out"), std::string::npos) << r.output;
  r = run_shell(kExe + " fleet report --store " + store + " 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("holds no fleet job"), std::string::npos) << r.output;
  r = run_shell(kExe + " fleet report --store " + store + "/nope 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no such folder"), std::string::npos) << r.output;
  r = run_shell(kExe + " fleet submit --store " + store + " --recorded-profile " + store +
                "/missing.json --dry-run 2>&1");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(run_shell(kExe + " fleet 2>&1").status, 2);  // a fleet command is required
}

TEST(fleetCli, DryRunPrintsTheScriptAndSubmitsNothing) {
  temp_dir d;
  const auto r = run_shell(kExe + " fleet submit --store " + d.path.string() +
                           " --nodes 2 --gpus-per-node 4 --partition gpu --dry-run -- --chapter 2 --pair 'a b' 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n#SBATCH --gpus-per-task=1\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("#SBATCH --partition=gpu\n"), std::string::npos);
  EXPECT_NE(r.output.find("fleet task --store \"$store\" -- --chapter 2 --pair 'a b'\n"), std::string::npos)
      << r.output;
  EXPECT_TRUE(d.empty());
}

}  // namespace
