// Launch facts from the compiled kernel and the occupancy calculator, and the dynamic shared
// memory that caps residency (gpubench/cuda.hpp). Host calls only; pairs make them in setup.
#include <algorithm>

#include <fmt/format.h>

#include "gpubench/cuda.hpp"

namespace gpubench {

namespace {
int device_attribute(cudaDeviceAttr what) {
  int dev = 0, value = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&value, what, dev));
  return value;
}

// Shared memory is allocated per block in units of 128 bytes on sm_80 and newer, 256 before
// (cuda_occupancy.h, cudaOccSMemAllocationGranularity): round a per-block budget down to it.
std::size_t shared_granularity() { return device_attribute(cudaDevAttrComputeCapabilityMajor) >= 8 ? 128 : 256; }
}  // namespace

int sm_count() { return device_attribute(cudaDevAttrMultiProcessorCount); }

int blocks_per_sm(const void* kernel, int block_threads, std::size_t dynamic_shared_bytes) {
  int blocks = 0;
  GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, dynamic_shared_bytes));
  return blocks;
}

launch_facts kernel_facts(const void* kernel, int block_threads, std::size_t dynamic_shared_bytes,
                          std::size_t grid_blocks) {
  cudaFuncAttributes attr{};
  GPUBENCH_CUDA(cudaFuncGetAttributes(&attr, kernel));
  const int resident = blocks_per_sm(kernel, block_threads, dynamic_shared_bytes);
  const int threads_per_sm = device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor);
  launch_facts f;
  f["block_threads"] = block_threads;
  if (grid_blocks > 0) f["grid_blocks"] = static_cast<double>(grid_blocks);
  f["registers_per_thread"] = attr.numRegs;
  f["local_bytes_per_thread"] = static_cast<double>(attr.localSizeBytes);
  f["shared_bytes_per_block"] = static_cast<double>(attr.sharedSizeBytes + dynamic_shared_bytes);
  f["blocks_per_sm"] = resident;
  if (threads_per_sm > 0) f["theoretical_occupancy_pct"] = 100.0 * resident * block_threads / threads_per_sm;
  return f;
}

std::size_t residency_cap_bytes(const void* kernel, int block_threads, int blocks) {
  if (blocks < 1) throw runtime_error(fmt::format("residency cap of {} blocks per SM: must be at least 1", blocks));
  cudaFuncAttributes attr{};
  GPUBENCH_CUDA(cudaFuncGetAttributes(&attr, kernel));
  const auto per_sm = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  const auto reserved = static_cast<std::size_t>(device_attribute(cudaDevAttrReservedSharedMemoryPerBlock));
  const auto opt_in = static_cast<std::size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  const std::size_t max_dynamic = opt_in > attr.sharedSizeBytes ? opt_in - attr.sharedSizeBytes : 0;
  // The same attributes for every cap: the whole opt-in range allowed, and the carveout at its
  // maximum shared memory, so the L1 left beside it is the same whatever the cap.
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(max_dynamic)));
  GPUBENCH_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  // A block's shared memory is its static and dynamic bytes plus the driver's reserve. With
  // per_sm / blocks each (rounded down to the granularity), `blocks` fit; `blocks + 1` need
  // (blocks + 1) × (per_sm / blocks − granularity) > per_sm bytes whenever per_sm / blocks exceeds
  // (blocks + 1) × granularity: 233472 / 32 = 7296 > 33 × 128 on an H100.
  const std::size_t g = shared_granularity();
  const std::size_t per_block = per_sm / static_cast<std::size_t>(blocks) / g * g;
  const std::size_t fixed = reserved + attr.sharedSizeBytes;
  const std::size_t dynamic = std::min(per_block > fixed ? per_block - fixed : 0, max_dynamic);
  const int resident = blocks_per_sm(kernel, block_threads, dynamic);
  if (resident > blocks)
    throw runtime_error(fmt::format("capping residency at {} blocks of {} threads per SM with {} B of dynamic shared "
                                    "memory failed: the occupancy calculator allows {}",
                                    blocks, block_threads, dynamic, resident));
  return dynamic;
}

}  // namespace gpubench
