// Which variants the other workers warm (gpubench/warming.hpp).
#include "gpubench/warming.hpp"

#include <algorithm>

namespace gpubench {

bool worth_warming(const run_split& s, bytes_path path) {
  return path == bytes_path::dram && s.host_s + s.gpu_wait_s <= kWarmLongestS &&
         s.gpu_wait_s <= std::max(kWarmGpuWaitS, s.host_s / 4);
}

}  // namespace gpubench
