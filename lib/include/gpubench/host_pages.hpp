#pragma once
/// Where a pair's host buffers lie: drawn afresh for each state, as its device buffers are
/// (docs/measurement.md, "Fresh host pages"). CUDA-free.
#include <cstddef>

namespace gpubench {

/// Host allocations of this many bytes or more get pages of their own once
/// draw_host_pages_per_buffer has run.
inline constexpr std::size_t kFreshHostPagesBytes = std::size_t{64} << 10;

/// Makes every host allocation of kFreshHostPagesBytes or more a mapping of its own, handed back to
/// the system when it is freed, so that the next state's buffers get other pages. Process-wide, and
/// for good: it changes the C library's allocator. Returns false where the allocator has no such
/// switch (not glibc's, or a sanitizer's): then buffers keep its own placement.
bool draw_host_pages_per_buffer();

}  // namespace gpubench
