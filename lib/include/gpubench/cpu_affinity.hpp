#pragma once
/// Which CPUs this process may run on, and holding the calling thread on one of them for a while
/// (Linux sched_setaffinity). CUDA-free.
#include <sched.h>

#include <string>
#include <vector>

namespace gpubench {

/// The CPUs the calling thread may run on (its affinity mask: the process's, which a cgroup or
/// `taskset` narrows, unless the thread is held), in increasing order; empty when the mask cannot
/// be read.
std::vector<int> allowed_cpus();

/// "0-3,8,10-11": `cpus` (increasing) as ranges, as taskset and /proc print them.
std::string cpu_list(const std::vector<int>& cpus);

/// Holds the calling thread on one CPU while it lives, then gives the thread back the mask it had.
/// A negative `cpu` does nothing. Threads started meanwhile inherit the one CPU, so hold it around
/// work that starts none (timing samples), not around set-up that fills memory in parallel.
class thread_on_cpu {
 public:
  explicit thread_on_cpu(int cpu);
  ~thread_on_cpu();
  thread_on_cpu(const thread_on_cpu&) = delete;
  thread_on_cpu& operator=(const thread_on_cpu&) = delete;
  /// Whether the thread is on `cpu` now (false: none asked, or the system refused).
  [[nodiscard]] bool pinned() const { return pinned_; }

 private:
  cpu_set_t before_{};
  bool pinned_ = false;
};

}  // namespace gpubench
