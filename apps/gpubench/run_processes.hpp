#pragma once
// `run --processes K`: the run's rounds spread over K `gpubench worker` processes of this very
// binary (gpubench/coordinator.hpp), behind the same face as the in-process runner, so `run`
// prints, saves and confirms what they measured as it does its own.
#include <memory>
#include <vector>

#include "gpubench/coordinator.hpp"
#include "gpubench/observer.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/worker_link.hpp"

namespace gpubench::app {

class process_pool {
 public:
  /// Starts `processes` workers on `device` and greets them (exit 1 when they cannot start or
  /// find no GPU; the workers' own message says why).
  /// `selections`: one per chapter (worker_selections), measured in turn by the same workers.
  process_pool(int processes, int device, const run_options& options, std::vector<worker_selection> selections);
  ~process_pool();
  process_pool(const process_pool&) = delete;
  process_pool& operator=(const process_pool&) = delete;

  [[nodiscard]] const device_info& device() const { return hello_.prov.device; }
  [[nodiscard]] const ceilings& device_ceilings() const { return hello_.ceil; }
  /// Measures `pairs` (the selection given to the constructor) and reports to `observer` as the
  /// runner does: pair_begin, size_begin, phase, size_end, pair_end.
  std::vector<record> run(const std::vector<const pair_def*>& pairs, run_observer& observer);

 private:
  worker_processes owned_;
  std::vector<worker_link*> links_;
  profile hello_;
  run_options options_;
  std::vector<worker_selection> selections_;
};

/// What a worker needs of the run's options.
worker_timing worker_timing_of(const run_options& o);

}  // namespace gpubench::app
