// See gpubench/host_pages.hpp.
#include "gpubench/host_pages.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gpubench {

// glibc serves a buffer of 128 KiB to 32 MiB from a mapping of its own only until such a mapping is
// freed: its threshold then rises to the freed size, and from there on buffers of that size come
// from the heap, each on the pages the last one freed. A process's pageable copies then kept the
// host pages of its first state, and their cost was a level of the process: `ab`'s worker pairs
// disagreed by 3.4-12% (sd) on a 1 MiB pageable copy to the host (docs/measurement.md, "Fresh host
// pages"). A fixed threshold also stops it rising.
bool draw_host_pages_per_buffer() {
#if defined(__GLIBC__)
  return mallopt(M_MMAP_THRESHOLD, static_cast<int>(kFreshHostPagesBytes)) == 1;
#else
  return false;
#endif
}

}  // namespace gpubench
