// The batch script of a fleet job (gpubench/slurm.hpp): a plain file a cluster admin can read and
// edit. Every value that reaches it is checked first (no control characters, no relative paths)
// and quoted for the shell, since run arguments and paths come from the command line.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/slurm.hpp"
#include "text/untrusted_text.hpp"

namespace gpubench {

namespace {

bool safe_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
}

// A value of an #SBATCH line: sbatch reads those lines itself, not a shell, so only plain words.
void check_sbatch_value(const std::string& what, const std::string& v, std::string_view extra = "") {
  if (v.empty()) throw usage_error(fmt::format("{}: empty", what));
  if (v.size() > detail::kMaxShortTextBytes)
    throw usage_error(fmt::format("{}: longer than {} bytes", what, detail::kMaxShortTextBytes));
  for (const char c : v)
    if (!(std::isalnum(static_cast<unsigned char>(c)) != 0 ||
          std::string_view("_.-").find(c) != std::string_view::npos || extra.find(c) != std::string_view::npos))
      throw usage_error(fmt::format("{} '{}': '{}' cannot go into an #SBATCH line; use [A-Za-z0-9_.-{}]", what,
                                    detail::clean_text(v, 64), detail::clean_text(std::string(1, c), 4), extra));
}

void check_path(const std::string& what, const std::string& v) {
  if (v.empty() || v.front() != '/')
    throw usage_error(
        fmt::format("{} '{}': an absolute path is needed (every node resolves it)", what, detail::clean_text(v, 256)));
  if (const std::string p = detail::text_problem(v, detail::kMaxLongTextBytes); !p.empty())
    throw usage_error(fmt::format("{}: {}", what, p));
}

}  // namespace

std::string shell_quote(std::string_view s) {
  if (!s.empty() && std::all_of(s.begin(), s.end(), safe_word_char)) return std::string(s);
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

void check_submit_options(const fleet_submit_options& o) {
  check_path("gpubench", o.gpubench);
  check_path("--store", o.store);
  // The store also names the job's output file in an #SBATCH line, read by sbatch, not a shell.
  for (const char c : o.store)
    if (!safe_word_char(c))
      throw usage_error(fmt::format("--store {}: the path names the job's output in an #SBATCH line, which cannot "
                                    "quote; use a path of [A-Za-z0-9_./:=@%+,-]",
                                    detail::clean_text(o.store, 256)));
  if (!o.recorded_profile.empty()) check_path("--recorded-profile", o.recorded_profile);
  if (o.nodes < 1 || o.nodes > 100000) throw usage_error(fmt::format("--nodes {}: expected 1..100000", o.nodes));
  if (o.gpus_per_node < 1 || o.gpus_per_node > 64)
    throw usage_error(fmt::format("--gpus-per-node {}: expected 1..64", o.gpus_per_node));
  check_sbatch_value("--job-name", o.job_name);
  check_sbatch_value("--time", o.time_limit, ":");
  if (!std::isdigit(static_cast<unsigned char>(o.time_limit.front())))
    throw usage_error(
        fmt::format("--time {}: expected Slurm's form, such as 30, 01:00:00 or 1-00:00:00", o.time_limit));
  if (!o.partition.empty()) check_sbatch_value("--partition", o.partition, ",");
  if (!o.account.empty()) check_sbatch_value("--account", o.account);
  for (const auto& n : o.nodelist) check_sbatch_value("--nodelist", n, "[]");
  if (!o.nodelist.empty() && int(o.nodelist.size()) != o.nodes)
    throw usage_error(fmt::format("--nodelist names {} node(s) and --nodes is {}: give as many nodes as --nodes",
                                  o.nodelist.size(), o.nodes));
  for (const auto& a : o.run_args)
    if (const std::string p = detail::text_problem(a, detail::kMaxLongTextBytes); !p.empty())
      throw usage_error(fmt::format("run argument '{}': {}", detail::clean_text(a, 64), p));
}

std::string sbatch_script(const fleet_submit_options& o) {
  check_submit_options(o);
  std::string s;
  s += "#!/bin/bash\n";
  s += "# A gpubench fleet job: one Slurm task per GPU. Each task runs `gpubench run` on its GPU and\n";
  s += "# stores the profile, tagged with its host, GPU UUID, PCI bus id, driver and this job's id, in the\n";
  s += "# store below; `gpubench fleet report --store STORE` then ranks every GPU against the fleet.\n";
  s += "# Written by `gpubench fleet submit`: an ordinary batch script, to read, edit and sbatch.\n";
  s += fmt::format("#SBATCH --job-name={}\n", o.job_name);
  s += fmt::format("#SBATCH --nodes={}\n", o.nodes);
  s += fmt::format("#SBATCH --ntasks-per-node={}\n", o.gpus_per_node);
  s += "#SBATCH --gpus-per-task=1\n";
  s += fmt::format("#SBATCH --time={}\n", o.time_limit);
  s += fmt::format("#SBATCH --output={}/slurm-%j.out\n", o.store);
  if (!o.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", o.partition);
  if (!o.account.empty()) s += fmt::format("#SBATCH --account={}\n", o.account);
  if (!o.nodelist.empty()) s += fmt::format("#SBATCH --nodelist={}\n", fmt::join(o.nodelist, ","));
  s += "\n";
  s += fmt::format("gpubench={}\n", shell_quote(o.gpubench));
  s += fmt::format("store={}\n", shell_quote(o.store));
  s += "\n# The allocation (its nodes and tasks per node), so that the report names the nodes that stored nothing.\n";
  s += "\"$gpubench\" fleet begin --store \"$store\" || exit 1\n";
  if (!o.recorded_profile.empty()) {
    s += "\n# No GPU measures here: each task stores this recorded profile in place of running\n";
    s += "# `gpubench run` (the measurement step only; Slurm, the tags and the store are real).\n";
  } else {
    s += "\n# One task per GPU (Slurm sets CUDA_VISIBLE_DEVICES to the task's GPU). A task that fails\n";
    s += "# stores its reason; the other tasks go on.\n";
  }
  s += "srun --kill-on-bad-exit=0 \"$gpubench\" fleet task --store \"$store\"";
  if (!o.recorded_profile.empty()) s += " --recorded-profile " + shell_quote(o.recorded_profile);
  s += " --";
  for (const auto& a : o.run_args) s += " " + shell_quote(a);
  s += "\n";
  return s;
}

}  // namespace gpubench
