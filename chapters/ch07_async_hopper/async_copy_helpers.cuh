#pragma once
// Shared by the chapter-7 pairs: device facts read once per State, and thin wrappers over the
// PTX of asynchronous copies (cp.async, sm_80+), mbarriers (sm_80+) and the Hopper bulk tensor
// copy (TMA, sm_90). Raw PTX rather than a library layer, so that each pair shows exactly which
// instruction does the work; every wrapper says what it waits for and what it makes visible.
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "gpubench/cuda.hpp"

namespace ch07 {

// ---------------------------------------------------------------------------------------------
// Host side.

/// Streaming multiprocessors of the current device.
inline int sm_count() {
  int dev = 0, sms = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

/// Throws not_supported (the runner records the pair as skipped, with this reason) below sm_90.
inline void require_sm90(const char* what) {
  if (gpubench::compute_capability() < 90) throw gpubench::not_supported(std::string("needs sm_90 (Hopper): ") + what);
}

/// Blocks of `kernel` that fit on one SM with `threads` threads and `smem` bytes of dynamic
/// shared memory (at least 1; a kernel that fits nowhere fails at launch instead).
template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads, std::size_t smem) {
  int n = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem));
  return n > 0 ? n : 1;
}

/// Raises a kernel's dynamic shared-memory limit (48 KB unless asked) to `bytes`.
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

// ---------------------------------------------------------------------------------------------
// Device side. Every asm statement that touches shared memory clobbers "memory", so the compiler
// never moves an ordinary shared-memory access across a copy, a wait or a barrier operation.

/// The 32-bit shared-window address PTX wants for a pointer into shared memory.
__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// cp.async (sm_80+): a copy from global to shared memory that the issuing thread does not wait
// for. Copies are grouped by commit_group; wait_group<N> blocks until at most N of this thread's
// groups are still in flight. Only the issuing thread is guaranteed to see the data after the
// wait: a __syncthreads() (or an mbarrier) is needed before other threads read it.

/// 16 bytes, bypassing L1 (.cg: the data are used once from shared memory, L1 would only evict).
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_u32(smem)), "l"(gmem) : "memory");
}
/// 16 bytes, or 16 zero bytes when !valid (the src-size operand: no source byte read, all 16
/// zero-filled; `gmem` must still be a valid address), so that zero padding is the same single
/// unconditional instruction as a real copy. Coalescing across the warp also wants the shared
/// address at the global address's offset within its 32-byte sector: see tile_pipeline.cu.
__device__ __forceinline__ void cp_async_16_zfill(void* smem, const void* gmem, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(smem)), "l"(gmem),
               "r"(valid ? 16 : 0)
               : "memory");
}
/// 4 bytes (.ca: 4-byte copies must go through L1; neighbouring copies of one sector hit it).
__device__ __forceinline__ void cp_async_4(void* smem, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_u32(smem)), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// mbarrier (sm_80+): a 64-bit barrier object in shared memory with an expected arrival count and
// a phase bit. A phase completes when `count` arrivals have happened (and, on sm_90, the expected
// transaction bytes have landed); it then flips parity and re-arms with the same count. Waiting
// on a parity returns once the phase of that parity has completed, with acquire semantics: what
// the arriving threads did before arriving (and the copies they attached) is visible.

__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
/// One arrival (release: this thread's earlier shared-memory reads and writes are ordered before it).
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(smem_u32(bar)) : "memory");
}
/// One arrival that happens when all of this thread's earlier cp.async copies have completed
/// (.noinc: it is one of the `count` arrivals the barrier was initialised with).
__device__ __forceinline__ void cp_async_arrive_noinc(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
/// Spins until the phase of parity `parity` has completed. On sm_90 try_wait suspends the warp in
/// hardware for a while before returning false; test_wait (sm_80) only polls.
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, std::uint32_t parity) {
  const std::uint32_t addr = smem_u32(bar);
  std::uint32_t done = 0;
  do {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(addr), "r"(parity)
        : "memory");
#else
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(addr), "r"(parity)
        : "memory");
#endif
  } while (done == 0);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Hopper only (compiled for sm_90 and newer; callers guard with the same condition).

/// Makes an mbarrier's initialisation visible to the async proxy (the TMA unit), and orders this
/// thread's earlier generic-proxy shared-memory accesses before later async-proxy ones.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
/// One arrival that also tells the barrier to expect `bytes` more transaction bytes in this phase
/// (the phase completes only when the TMA copies attached to it have delivered them).
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
                   smem_u32(bar)),
               "r"(bytes)
               : "memory");
}
/// TMA: one instruction copies a whole 2-D box of the tensor described by `tmap` (a CUtensorMap
/// passed as a __grid_constant__ kernel parameter) at element coordinates (x inner, y outer) into
/// shared memory, and counts its bytes against `bar`.
__device__ __forceinline__ void tma_load_2d(void* smem, const void* tmap, int x, int y, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          smem_u32(smem)),
      "l"(tmap), "r"(x), "r"(y), "r"(smem_u32(bar))
      : "memory");
}
#endif

}  // namespace ch07
