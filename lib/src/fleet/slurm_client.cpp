// Talking to Slurm (gpubench/slurm.hpp): its programs started without a shell, their output read
// back, and every way a cluster can refuse turned into a message that says what to do, before a
// job is submitted.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/slurm.hpp"
#include "process/spawn.hpp"
#include "text/untrusted_text.hpp"

namespace gpubench {

namespace {

struct captured {
  bool started = false;
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together, cleaned of control characters, bounded
};

// Runs a Slurm program found on PATH and keeps what it printed (stdout and stderr in one log).
captured capture(const std::string& program, const std::vector<std::string>& args) {
  captured c;
  const auto path = detail::find_program(program);
  if (path.empty()) return c;
  detail::private_dir dir;
  const auto log = dir.path() / "out.txt";
  const detail::program_result r = detail::run_program(path, args, log);
  c.started = r.started;
  c.exit_code = r.exit_code;
  std::ifstream in(log, std::ios::binary);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& ch : text)
    if (ch == '\n') ch = ' ';
  c.output = detail::clean_text(text, 1000);
  if (!r.started) c.output = r.error;
  return c;
}

std::string getenv_or(const std::map<std::string, std::string>& env, const char* name) {
  if (!env.empty()) {
    const auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  }
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::optional<long long> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 9) return std::nullopt;
  long long n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace

std::string slurm_problem(const std::string& partition) {
  for (const char* p : {"sbatch", "srun", "scontrol", "sinfo"})
    if (detail::find_program(p).empty())
      return fmt::format("Slurm's {} is not on PATH: run `gpubench fleet submit` on a Slurm login node (Debian: "
                         "apt-get install slurm-client), or write the script with --dry-run and submit it there",
                         p);
  // An explicit configuration that is not there makes every Slurm command retry for a minute.
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && *conf != '\0') {
    struct stat st {};
    if (::stat(conf, &st) != 0 || !S_ISREG(st.st_mode) || ::access(conf, R_OK) != 0)
      return fmt::format("SLURM_CONF={} is not a readable file: point SLURM_CONF at the cluster's slurm.conf, or "
                         "unset it",
                         detail::clean_text(conf, 256));
  }
  const captured ping = capture("scontrol", {"ping"});
  if (!ping.started || ping.exit_code != 0 || ping.output.find("UP") == std::string::npos)
    return fmt::format("no Slurm controller answers (`scontrol ping`: {}): check slurm.conf (SLURM_CONF) and that "
                       "slurmctld runs",
                       ping.output.empty() ? fmt::format("exit {}", ping.exit_code) : ping.output);
  const captured parts = capture("sinfo", {"-h", "-o", "%P %G"});
  if (!parts.started || parts.exit_code != 0) return fmt::format("`sinfo` failed: {}", parts.output);
  if (!partition.empty()) {
    const captured p = capture("sinfo", {"-h", "-p", partition, "-o", "%P"});
    if (p.exit_code != 0 || p.output.empty())
      return fmt::format("--partition {}: Slurm has no such partition (`sinfo -s` lists them)", partition);
  }
  if (parts.output.find("gpu") == std::string::npos)
    return fmt::format("no Slurm node offers GRES gpu (sinfo: {}): the job asks for one GPU per task and would never "
                       "start; configure GresTypes=gpu and the nodes' Gres in slurm.conf and gres.conf",
                       parts.output.empty() ? std::string("no partition") : parts.output);
  return {};
}

std::string sbatch_test_only(const std::string& script_path) {
  const captured c = capture("sbatch", {"--test-only", script_path});
  if (!c.started) return "sbatch could not be started: " + c.output;
  return c.exit_code == 0 ? std::string() : (c.output.empty() ? fmt::format("exit {}", c.exit_code) : c.output);
}

std::string sbatch_submit(const std::string& script_path) {
  const captured c = capture("sbatch", {"--parsable", script_path});
  if (!c.started || c.exit_code != 0)
    throw runtime_error(
        fmt::format("sbatch refused the job: {}", c.output.empty() ? fmt::format("exit {}", c.exit_code) : c.output));
  // --parsable prints "JOBID" or "JOBID;CLUSTER", possibly after warnings.
  std::string id =
      c.output.substr(c.output.find_last_of(' ') == std::string::npos ? 0 : c.output.find_last_of(' ') + 1);
  id = id.substr(0, id.find(';'));
  if (!parse_count(id)) throw runtime_error(fmt::format("sbatch printed no job id: {}", c.output));
  return id;
}

slurm_task_env read_slurm_env(const std::map<std::string, std::string>& env) {
  slurm_task_env e;
  const std::string job = getenv_or(env, "SLURM_JOB_ID");
  if (job.empty())
    throw usage_error("SLURM_JOB_ID is not set: `gpubench fleet begin` and `fleet task` run inside a Slurm job (the "
                      "batch script `gpubench fleet submit` writes)");
  const std::string array_job = getenv_or(env, "SLURM_ARRAY_JOB_ID"),
                    array_task = getenv_or(env, "SLURM_ARRAY_TASK_ID");
  e.job_id = !array_job.empty() && !array_task.empty() ? array_job + "_" + array_task : job;
  for (const char c : e.job_id)
    if (!((c >= '0' && c <= '9') || c == '_'))
      throw usage_error(fmt::format("SLURM_JOB_ID '{}': not a job id", detail::clean_text(e.job_id, 64)));
  const auto procid = parse_count(getenv_or(env, "SLURM_PROCID"));
  const auto ntasks = parse_count(getenv_or(env, "SLURM_NTASKS"));
  e.task = procid ? int(*procid) : 0;
  e.tasks = ntasks ? int(*ntasks) : 1;
  if (e.task >= e.tasks)
    throw usage_error(fmt::format("SLURM_PROCID {} is not below SLURM_NTASKS {}", e.task, e.tasks));
  e.node = detail::clean_text(getenv_or(env, "SLURMD_NODENAME"), detail::kMaxShortTextBytes);
  e.node_list = detail::clean_text(getenv_or(env, "SLURM_JOB_NODELIST"), detail::kMaxLongTextBytes);
  e.tasks_per_node = detail::clean_text(getenv_or(env, "SLURM_TASKS_PER_NODE"), detail::kMaxShortTextBytes);
  e.visible_gpus = detail::clean_text(getenv_or(env, "CUDA_VISIBLE_DEVICES"), detail::kMaxShortTextBytes);
  return e;
}

std::optional<std::vector<int>> expand_tasks_per_node(std::string_view s) {
  std::vector<int> out;
  if (s.empty()) return std::nullopt;
  std::size_t at = 0;
  while (at <= s.size()) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    const std::string_view part = s.substr(at, comma - at);
    const std::size_t paren = part.find("(x");
    const auto count = parse_count(part.substr(0, paren));
    long long repeat = 1;
    if (paren != std::string_view::npos) {
      if (part.back() != ')') return std::nullopt;
      const auto r = parse_count(part.substr(paren + 2, part.size() - paren - 3));
      if (!r) return std::nullopt;
      repeat = *r;
    }
    if (!count || repeat < 1 || out.size() + std::size_t(repeat) > 100000) return std::nullopt;
    out.insert(out.end(), std::size_t(repeat), int(*count));
    at = comma + 1;
  }
  return out;
}

std::vector<std::string> expand_node_list(const std::string& node_list) {
  if (node_list.empty()) return {};
  const captured c = capture("scontrol", {"show", "hostnames", node_list});
  if (!c.started || c.exit_code != 0 || c.output.empty()) return {node_list};
  std::vector<std::string> out;
  std::istringstream words(c.output);
  for (std::string w; words >> w;) out.push_back(w);
  return out;
}

}  // namespace gpubench
