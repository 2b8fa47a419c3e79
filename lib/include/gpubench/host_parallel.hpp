#pragma once
/// memcpy and memset over GiB-sized host buffers, split across threads. What makes them slow on the
/// VMs we measure on is the first touch of fresh pages (~0.4 s per GiB from one thread); page
/// faults on different pages proceed in parallel. Below 64 MiB, or with one hardware thread, they
/// are plain memcpy/memset. CUDA-free.
#include <cstddef>

namespace gpubench {

/// Copies `bytes` from `src` to `dst` (which must not overlap).
void parallel_copy(void* dst, const void* src, std::size_t bytes);
/// Sets `bytes` at `dst` to `value`.
void parallel_fill(void* dst, unsigned char value, std::size_t bytes);

/// How many threads a buffer of `bytes` is split over (1 when not worth it).
unsigned parallel_threads(std::size_t bytes);

}  // namespace gpubench
