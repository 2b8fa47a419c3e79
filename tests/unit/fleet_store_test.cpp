/// Unit tests for the fleet's shared-folder store (gpubench/fleet_store.hpp), its batch script and
/// Slurm's environment (gpubench/slurm.hpp): entries round-trip, tasks never collide, a damaged or
/// hostile entry is reported and never read as data, the script quotes what it is given and
/// refuses what it cannot quote, and Slurm's compressed counts expand.
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "gpubench/fleet_store.hpp"
#include "gpubench/slurm.hpp"
#include "gpubench/stats.hpp"
#include "test_support.hpp"

namespace {

using namespace gpubench;
namespace fs = std::filesystem;

profile small_profile(const std::string& uuid) {
  profile p;
  p.complete = true;
  p.prov.device.name = "NVIDIA H100 80GB HBM3";
  p.prov.device.uuid = uuid;
  p.prov.hostname = "node01";
  record r{.chapter = 2,
           .pair = "copy",
           .variant = "baseline",
           .size = size_point({{"n", axis_value{std::int64_t(1024)}}})};
  r.timing.samples_s = {1e-5, 1.01e-5, 0.99e-5};
  r.stats = summarize(r.timing.samples_s);
  p.records.push_back(r);
  return p;
}

fleet_task_tags tags(int task) {
  fleet_task_tags t;
  t.job_id = "77";
  t.task = task;
  t.tasks = 4;
  t.node = "node01";
  t.host = "node01";
  t.gpu_uuid = "GPU-" + std::to_string(task);
  t.gpu_name = "NVIDIA H100 80GB HBM3";
  t.measured_by = "gpubench run";
  t.stored_at = "2026-01-01T00:00:00Z";
  return t;
}

TEST(fleetStore, TasksRoundTripIntoFilesOfTheirOwn) {
  temp_dir d;
  folder_store store(d.path);
  store.put_manifest({.job_id = "77", .tasks = 4, .nodes = {"node01"}, .tasks_per_node = {4}, .started_at = "t"});
  for (int t = 0; t < 3; ++t) store.put_result(tags(t), small_profile("GPU-" + std::to_string(t)));
  store.put_failure({tags(3), "gpubench run exited 1 without a profile: no CUDA device"});
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d.path / "job-77")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"manifest.json", "task-00000.json", "task-00001.json", "task-00002.json",
                                             "task-00003.failed.json"}));  // no temporary file left behind
  const fleet_job job = store.load("77");
  ASSERT_TRUE(job.manifest);
  EXPECT_EQ(job.manifest->tasks, 4);
  ASSERT_EQ(job.results.size(), 3u);
  EXPECT_EQ(job.results[1].tags.gpu_uuid, "GPU-1");
  EXPECT_EQ(job.results[1].prof.records.size(), 1u);
  ASSERT_EQ(job.failures.size(), 1u);
  EXPECT_EQ(job.failures[0].tags.task, 3);
  EXPECT_TRUE(job.unreadable.empty());
  EXPECT_EQ(store.jobs(), std::vector<std::string>{"77"});
}

TEST(fleetStore, AResultReplacesTheSameTasksFailure) {
  temp_dir d;
  folder_store store(d.path);
  store.put_failure({tags(0), "node lost"});
  store.put_result(tags(0), small_profile("GPU-0"));
  const fleet_job job = store.load("77");
  EXPECT_EQ(job.results.size(), 1u);
  EXPECT_TRUE(job.failures.empty());
}

TEST(fleetStore, DamagedAndHostileEntriesAreReportedNotRead) {
  temp_dir d;
  folder_store store(d.path);
  store.put_result(tags(0), small_profile("GPU-0"));
  const fs::path job = d.path / "job-77";
  std::ofstream(job / "task-00001.json") << "{\"schema\": \"gpubench-fleet-task\", ";  // cut short
  fs::create_symlink("/etc/passwd", job / "task-00002.json");
  std::ofstream(job / "notes.txt") << "hello";
  // A file whose name says task 3 but whose content is task 0's.
  fs::copy_file(job / "task-00000.json", job / "task-00003.json");
  const fleet_job loaded = store.load("77");
  EXPECT_EQ(loaded.results.size(), 1u);
  ASSERT_EQ(loaded.unreadable.size(), 4u);
  std::string all;
  for (const auto& u : loaded.unreadable) all += u + "\n";
  EXPECT_NE(all.find("task-00001.json: not valid JSON"), std::string::npos) << all;
  EXPECT_NE(all.find("task-00002.json: not a regular file"), std::string::npos) << all;
  EXPECT_NE(all.find("notes.txt: not a fleet entry"), std::string::npos) << all;
  EXPECT_NE(all.find("its name says job 77 task 3"), std::string::npos) << all;
}

TEST(fleetStore, RefusesBadJobIdsAndMissingFolders) {
  temp_dir d;
  folder_store store(d.path);
  fleet_task_tags t = tags(0);
  t.job_id = "../../etc";
  EXPECT_NE(usage_message([&] { store.put_result(t, small_profile("x")); }).find("job id"), std::string::npos);
  EXPECT_NE(usage_message([&] { (void)store.load("99"); }).find("no job 99"), std::string::npos);
  EXPECT_NE(usage_message([&] { folder_store s(d.path / "nope"); }).find("no such folder"), std::string::npos);
  EXPECT_NE(usage_message([] { (void)open_fleet_store("postgresql://db/fleet"); }).find("shared folder"),
            std::string::npos);
  EXPECT_TRUE(valid_job_id("123_4"));
  EXPECT_FALSE(valid_job_id(".."));
  EXPECT_FALSE(valid_job_id("a/b"));
}

TEST(fleetStore, ReaderRejectsMalformedTagsNamingTheField) {
  auto j = fleet_result_to_json(tags(0), small_profile("GPU-0"));
  j["tags"]["task"] = -3;
  EXPECT_NE(usage_message([&] { (void)fleet_result_from_json(j, "f.json"); }).find("f.json: $.tags.task"),
            std::string::npos);
  j = fleet_result_to_json(tags(0), small_profile("GPU-0"));
  j["tags"]["node"] = "evil\x1b[2J";
  EXPECT_NE(usage_message([&] {
              (void)fleet_result_from_json(j, "f.json");
            }).find("$.tags.node: contains a control character"),
            std::string::npos);
  j = fleet_result_to_json(tags(0), small_profile("GPU-0"));
  j["schema"] = "gpubench-profile";
  EXPECT_NE(usage_message([&] { (void)fleet_result_from_json(j, "f.json"); }).find("$.schema"), std::string::npos);
  auto m = to_json(fleet_manifest{.job_id = "1", .tasks = 3, .nodes = {"a", "b"}, .tasks_per_node = {1, 1}});
  EXPECT_NE(usage_message([&] { (void)fleet_manifest_from_json(m, "m.json"); }).find("adds up to 2"),
            std::string::npos);
}

fleet_submit_options submit_options() {
  fleet_submit_options o;
  o.gpubench = "/opt/gpubench/bin/gpubench";
  o.store = "/shared/fleet";
  o.nodes = 4;
  o.gpus_per_node = 8;
  o.run_args = {"--chapter", "2", "--quick"};
  return o;
}

TEST(fleetScript, AskForOneGpuPerTaskAndRunsEveryTaskThroughSrun) {
  const std::string s = sbatch_script(submit_options());
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line :
       {"#SBATCH --nodes=4\n", "#SBATCH --ntasks-per-node=8\n", "#SBATCH --gpus-per-task=1\n",
        "#SBATCH --time=01:00:00\n", "#SBATCH --output=/shared/fleet/slurm-%j.out\n",
        "\"$gpubench\" fleet begin --store \"$store\" || exit 1\n",
        "srun --kill-on-bad-exit=0 \"$gpubench\" fleet task --store \"$store\" -- --chapter 2 --quick\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  EXPECT_EQ(s.find("--partition"), std::string::npos);
}

TEST(fleetScript, QuotesHostileArgumentsAndRefusesWhatCannotBeQuoted) {
  fleet_submit_options o = submit_options();
  o.run_args = {"--pair", "$(touch /tmp/x)", "it's"};
  const std::string s = sbatch_script(o);
  EXPECT_NE(s.find("-- --pair '$(touch /tmp/x)' 'it'\\''s'\n"), std::string::npos) << s;
  EXPECT_EQ(shell_quote("plain-word_1.2"), "plain-word_1.2");
  EXPECT_EQ(shell_quote(""), "''");
  o = submit_options();
  o.run_args = {"a\nrm -rf /"};
  EXPECT_NE(usage_message([&] { (void)sbatch_script(o); }).find("control character"), std::string::npos);
  o = submit_options();
  o.store = "relative/dir";
  EXPECT_NE(usage_message([&] { (void)sbatch_script(o); }).find("absolute path"), std::string::npos);
  o = submit_options();
  o.store = "/shared/my fleet";
  EXPECT_NE(usage_message([&] { (void)sbatch_script(o); }).find("#SBATCH line"), std::string::npos);
  o = submit_options();
  o.partition = "gpu --wrap=x";
  EXPECT_NE(usage_message([&] { (void)sbatch_script(o); }).find("--partition"), std::string::npos);
  o = submit_options();
  o.time_limit = "soon";
  EXPECT_NE(usage_message([&] { (void)sbatch_script(o); }).find("--time"), std::string::npos);
  o = submit_options();
  o.nodelist = {"a"};
  EXPECT_NE(usage_message([&] { (void)sbatch_script(o); }).find("--nodelist"), std::string::npos);
}

TEST(fleetScript, RecordedProfileReplacesOnlyTheMeasurement) {
  fleet_submit_options o = submit_options();
  o.recorded_profile = "/shared/recorded.json";
  const std::string s = sbatch_script(o);
  EXPECT_NE(s.find("fleet task --store \"$store\" --recorded-profile /shared/recorded.json -- --chapter 2"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("#SBATCH --gpus-per-task=1\n"), std::string::npos);
}

TEST(slurmEnv, ReadsTheTaskAndRefusesOutsideAJob) {
  EXPECT_NE(usage_message([] {
              (void)read_slurm_env({{"HOME", "/root"}});
            }).find("SLURM_JOB_ID is not set"),
            std::string::npos);
  const slurm_task_env e = read_slurm_env({{"SLURM_JOB_ID", "12"},
                                           {"SLURM_PROCID", "3"},
                                           {"SLURM_NTASKS", "8"},
                                           {"SLURMD_NODENAME", "gpu07"},
                                           {"CUDA_VISIBLE_DEVICES", "3"}});
  EXPECT_EQ(e.job_id, "12");
  EXPECT_EQ(e.task, 3);
  EXPECT_EQ(e.tasks, 8);
  EXPECT_EQ(e.node, "gpu07");
  EXPECT_EQ(e.visible_gpus, "3");
  EXPECT_EQ(read_slurm_env({{"SLURM_JOB_ID", "13"}, {"SLURM_ARRAY_JOB_ID", "12"}, {"SLURM_ARRAY_TASK_ID", "4"}}).job_id,
            "12_4");
  EXPECT_NE(usage_message([] {
              (void)read_slurm_env({{"SLURM_JOB_ID", "1;rm"}});
            }).find("not a job id"),
            std::string::npos);
  EXPECT_NE(usage_message([] {
              (void)read_slurm_env({{"SLURM_JOB_ID", "1"}, {"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}});
            }).find("not below"),
            std::string::npos);
}

TEST(slurmEnv, ExpandsTasksPerNode) {
  EXPECT_EQ(expand_tasks_per_node("2(x3),1"), (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(expand_tasks_per_node("8"), (std::vector<int>{8}));
  EXPECT_FALSE(expand_tasks_per_node(""));
  EXPECT_FALSE(expand_tasks_per_node("2(x"));
  EXPECT_FALSE(expand_tasks_per_node("a,b"));
  EXPECT_FALSE(expand_tasks_per_node("1(x999999999)"));
}

}  // namespace
