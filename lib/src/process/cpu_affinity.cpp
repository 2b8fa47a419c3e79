// CPU affinity through sched_getaffinity and sched_setaffinity (gpubench/cpu_affinity.hpp).
#include "gpubench/cpu_affinity.hpp"

#include <fmt/format.h>

namespace gpubench {

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

thread_on_cpu::thread_on_cpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  CPU_ZERO(&before_);
  if (::sched_getaffinity(0, sizeof before_, &before_) != 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  // pid 0: the calling thread alone, never the rest of the process.
  pinned_ = ::sched_setaffinity(0, sizeof one, &one) == 0;
}

thread_on_cpu::~thread_on_cpu() {
  if (pinned_) ::sched_setaffinity(0, sizeof before_, &before_);
}

}  // namespace gpubench
