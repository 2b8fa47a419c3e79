// One fleet task (gpubench/fleet_task.hpp): the measurement is `gpubench run` in a process of its
// own, writing into a private folder, so the task stores only a profile that was written whole,
// and a run that crashes still leaves the task able to say why.
#include <unistd.h>

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/fleet_task.hpp"
#include "process/spawn.hpp"
#include "text/untrusted_text.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return {};
  return detail::clean_text(buf, detail::kMaxShortTextBytes);
}

// The last non-empty line of a file, for a failure's reason.
std::string last_line(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  const auto nl = text.find_last_of('\n');
  return detail::clean_text(nl == std::string::npos ? text : text.substr(nl + 1), 600);
}

}  // namespace

fleet_task_outcome run_fleet_task(fleet_store& store, const slurm_task_env& env, const fleet_task_options& o) {
  for (const auto& arg : o.run_args)
    if (arg == "--out" || arg.rfind("--out=", 0) == 0)
      throw usage_error(
          "the run arguments hold --out: each fleet task writes its own profile into the store; drop --out");
  fleet_task_outcome out;
  fleet_task_tags& tags = out.tags;
  tags.job_id = env.job_id;
  tags.task = env.task;
  tags.tasks = env.tasks;
  tags.node = env.node;
  tags.host = hostname();
  tags.visible_gpus = env.visible_gpus;
  const auto fail = [&](const std::string& reason, int code) {
    tags.stored_at = now_utc_iso8601();
    store.put_failure({tags, reason});
    out.failure = reason;
    out.exit_code = code;
    return out;
  };

  std::optional<profile> measured;
  if (!o.recorded_profile.empty()) {
    tags.measured_by = "recorded profile " + detail::clean_text(fs::path(o.recorded_profile).filename().string(), 200);
    try {
      measured = read_profile(o.recorded_profile);
    } catch (const error& e) {
      return fail(std::string("the recorded profile cannot be read: ") + e.what(), 2);
    }
  } else {
    tags.measured_by = "gpubench run";
    detail::private_dir dir;
    const fs::path profile_path = dir.path() / "profile.json", log = dir.path() / "run.log";
    std::vector<std::string> args{"run"};
    args.insert(args.end(), o.run_args.begin(), o.run_args.end());
    args.insert(args.end(), {"--out", profile_path.string(), "--quiet"});
    const detail::program_result r = detail::run_program(o.gpubench, args, log);
    if (!r.started) return fail("gpubench run could not be started: " + r.error, 1);
    tags.run_exit = r.exit_code;
    std::error_code ec;
    if (!fs::exists(profile_path, ec)) {
      const std::string how =
          r.signal != 0 ? fmt::format("was killed by signal {}", r.signal) : fmt::format("exited {}", r.exit_code);
      return fail(fmt::format("gpubench run {} without a profile: {}", how, last_line(log)),
                  r.exit_code > 0 ? r.exit_code : 1);
    }
    try {
      measured = read_profile(profile_path);
    } catch (const error& e) {
      return fail(fmt::format("gpubench run exited {} and left an unreadable profile: {}", r.exit_code, e.what()), 1);
    }
  }
  const device_info& d = measured->prov.device;
  tags.gpu_uuid = d.uuid;
  tags.pci_bus_id = d.pci_bus_id;
  tags.gpu_name = d.name;
  tags.driver =
      !d.driver_string.empty() ? d.driver_string : (d.driver_version > 0 ? std::to_string(d.driver_version) : "");
  tags.stored_at = now_utc_iso8601();
  store.put_result(tags, *measured);
  out.stored_profile = true;
  out.records = measured->records.size();
  out.exit_code = tags.run_exit;
  return out;
}

fleet_manifest manifest_from_env(const slurm_task_env& env) {
  fleet_manifest m;
  m.job_id = env.job_id;
  m.tasks = env.tasks;
  m.nodes = expand_node_list(env.node_list);
  if (const auto per = expand_tasks_per_node(env.tasks_per_node); per && per->size() == m.nodes.size()) {
    long long sum = 0;
    for (const int n : *per) sum += n;
    if (sum == m.tasks) m.tasks_per_node = *per;
  }
  m.started_at = now_utc_iso8601();
  return m;
}

}  // namespace gpubench
