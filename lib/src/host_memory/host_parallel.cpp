// See gpubench/host_parallel.hpp.
#include "gpubench/host_parallel.hpp"

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace gpubench {

namespace {

constexpr std::size_t kMinBytes = std::size_t(64) << 20;
constexpr std::size_t kPage = 4096;
constexpr unsigned kMaxThreads = 8;  // more adds little: the faults contend in the kernel

// Runs body(offset, length) over `threads` page-aligned slices of [0, bytes).
template <class Body>
void split(std::size_t bytes, unsigned threads, Body body) {
  if (threads <= 1) {
    body(0, bytes);
    return;
  }
  const std::size_t slice = (bytes / threads + kPage - 1) / kPage * kPage;
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) {
    const std::size_t begin = std::min(bytes, t * slice);
    const std::size_t end = std::min(bytes, begin + slice);
    if (begin < end) pool.emplace_back(body, begin, end - begin);
  }
  body(0, std::min(bytes, slice));
  for (auto& th : pool) th.join();
}

}  // namespace

unsigned parallel_threads(std::size_t bytes) {
  if (bytes < kMinBytes) return 1;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return std::min({hw, kMaxThreads, static_cast<unsigned>(bytes / (kMinBytes / 4))});
}

void parallel_copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  split(bytes, parallel_threads(bytes), [d, s](std::size_t at, std::size_t n) { std::memcpy(d + at, s + at, n); });
}

void parallel_fill(void* dst, unsigned char value, std::size_t bytes) {
  if (bytes == 0) return;
  auto* d = static_cast<std::byte*>(dst);
  split(bytes, parallel_threads(bytes), [d, value](std::size_t at, std::size_t n) { std::memset(d + at, value, n); });
}

}  // namespace gpubench
