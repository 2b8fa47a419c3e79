// Page-locked host memory through a cache of released blocks (gpubench/block_cache.hpp).
//
// Why: pinning is slow on the VMs we measure on (1 GiB took 1.1–1.5 s on the H100s, each time), and
// the engine rebuilds a State for every round, so `run --chapter 1` pinned pinned_transfers' 1 GiB
// six times (two directions, three rounds). Reusing the pages changes what a round re-draws: a
// rebuilt State gets fresh device buffers and fresh pageable memory but the same pinned pages
// (docs/measurement.md, "Rounds", pinned memory).
#include <cuda_runtime.h>

#include "gpubench/block_cache.hpp"
#include "gpubench/cuda.hpp"
#include "cuda/pinned_cache.hpp"

namespace gpubench::detail {

namespace {

// Enough for the largest set of pinned buffers one pair holds (chapter 4's 1 GiB pipeline, in and
// out) to come back whole for the next round.
constexpr std::size_t kMaxIdleBytes = std::size_t(4) << 30;

block_cache& cache() {
  // Never destroyed: at exit the CUDA runtime may already be gone, and the OS reclaims the pages.
  // runner's destructor trims it while CUDA is still up.
  static auto* c = new block_cache(
      [](std::size_t bytes) -> void* {
        void* p = nullptr;
        const cudaError_t status = cudaMallocHost(&p, bytes);
        if (status == cudaErrorMemoryAllocation) {
          cudaGetLastError();
          return nullptr;
        }
        GPUBENCH_CUDA(status);
        return p;
      },
      [](void* p) { cudaFreeHost(p); }, kMaxIdleBytes);
  return *c;
}

int current_device() {
  int d = 0;
  return cudaGetDevice(&d) == cudaSuccess ? d : -1;
}

}  // namespace

void* pinned_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = cache().take(bytes, current_device());
  if (p == nullptr) GPUBENCH_CUDA(cudaErrorMemoryAllocation);  // throws, with the usual hint
  return p;
}

void pinned_release(void* p) noexcept {
  if (p == nullptr) return;
  // cudaFreeHost waits for the device; a cached block must not reach its next owner while a copy
  // into or out of it is still in flight either. After an error, free it for good.
  if (cudaDeviceSynchronize() != cudaSuccess || !cache().give_back(p)) cudaFreeHost(p);
}

void pinned_trim() noexcept { cache().trim(); }

}  // namespace gpubench::detail
