// `run --processes K`; see run_processes.hpp.
#include "run_processes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "gpubench/error.hpp"
#include "gpubench/host_pages.hpp"
#include "gpubench/registry.hpp"

namespace gpubench::app {

worker_timing worker_timing_of(const run_options& o) {
  worker_timing t;
  t.total = o.stopping;
  t.warmup_runs = o.warmup_runs;
  t.rest_ratio = o.rest_ratio;
  t.gpu_busy = o.gpu_busy_time;
  t.replace_memory = o.replace_memory;
  t.seed = o.seed;
  t.metrics = o.metrics;
  t.metrics_per_kernel = o.metrics_per_kernel;
  return t;
}

process_pool::process_pool(int processes, int device, const run_options& options,
                           std::vector<worker_selection> selections)
    : options_(options), selections_(std::move(selections)) {
  // This very binary, by the kernel's name for it: a relative argv[0] would break after a chdir.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw runtime_error("run --processes: cannot find this gpubench's own binary (/proc/self/exe): " + ec.message());
  const std::vector<std::string> args{"worker", "--device", std::to_string(device)};
  // With re-placement, workers start with fresh host pages (gpubench/host_pages.hpp).
  const std::vector<std::string> env =
      options.replace_memory ? fresh_host_pages_environment() : std::vector<std::string>{};
  for (int w = 0; w < processes; ++w) links_.push_back(&owned_.start(self, args, fmt::format("worker {}", w), env));
  hello_ = hello_workers(links_).front();
}

process_pool::~process_pool() = default;

std::vector<record> process_pool::run(const std::vector<const pair_def*>& pairs, run_observer& observer) {
  // The workers plan what this binary would, so every item is one of these pairs' sizes.
  const pair_def* current = nullptr;
  std::size_t first_of_item = 0;
  coordinator_progress progress;
  progress.item_begin = [&](std::size_t, std::size_t, const worker_item& item) {
    const auto it = std::find_if(pairs.begin(), pairs.end(), [&](const pair_def* p) { return p->id() == item.pair; });
    if (it == pairs.end()) throw runtime_error("a worker planned " + item.pair + ", which this run did not select");
    if (*it != current) {
      if (current != nullptr) observer.pair_end(*current);
      current = *it;
      observer.pair_begin(*current);
    }
    for (const size_point& z : planned_sizes(current->axes, options_.smallest, options_.axis_overrides, current->id()))
      if (z.to_string() == item.size) {
        observer.size_begin(*current, z, current->work_model(z), hello_.ceil);
        break;
      }
  };
  progress.phase = [&](const std::string& what) { observer.phase(what); };
  progress.item_end = [&](const std::vector<record>& all) {
    observer.size_end(*current,
                      std::vector<record>(all.begin() + static_cast<std::ptrdiff_t>(first_of_item), all.end()));
    first_of_item = all.size();
  };
  processes_plan plan;
  plan.rounds = options_.rounds;
  plan.max_rounds = std::max(options_.rounds, options_.max_rounds);
  plan.target = options_.stopping.max_noise;
  profile out;
  std::vector<record> records =
      measure_across_processes(links_, selections_, worker_timing_of(options_), plan, progress, out);
  if (current != nullptr) observer.pair_end(*current);
  return records;
}

}  // namespace gpubench::app
