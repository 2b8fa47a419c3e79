// See output_regions.hpp.
#include "measure/output_regions.hpp"

#include "gpubench/host_parallel.hpp"
#include "gpubench/result_regions.hpp"

namespace gpubench::detail {

namespace {

/// The GPU whose device memory `p` is, or -1 (host memory, or not a CUDA pointer: treated as
/// before, as the run's GPU would be by the callers below).
int device_of(const void* p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return attr.type == cudaMemoryTypeDevice ? attr.device : -1;
}

int current_gpu() {
  int current = 0;
  GPUBENCH_CUDA(cudaGetDevice(&current));
  return current;
}

/// The GPU that holds `p` when it is device memory of a GPU other than the current one, else -1.
int other_gpu_of(const void* p) {
  const int gpu = device_of(p);
  return gpu >= 0 && gpu != current_gpu() ? gpu : -1;
}

}  // namespace

bool all_on_current_gpu(const std::vector<output_view>& regions) {
  for (const auto& r : regions)
    if (r.where != memory_space::device || (r.count > 0 && device_of(r.data) != current_gpu())) return false;
  return !regions.empty();
}

void gather_on_device(const std::vector<output_view>& regions, std::byte* into, cudaStream_t stream) {
  for (const auto& r : regions) {
    const std::size_t bytes = r.count * size_of(r.type);
    if (bytes == 0) continue;
    GPUBENCH_CUDA(cudaMemcpyAsync(into, r.data, bytes, cudaMemcpyDeviceToDevice, stream));
    into += bytes;
  }
}

void poison_regions(const std::vector<output_view>& regions, cudaStream_t stream) {
  for (const auto& r : regions) {
    const std::size_t bytes = r.count * size_of(r.type);
    if (bytes == 0) continue;
    if (r.where == memory_space::host) {
      parallel_fill(r.data, 0xff, bytes);
    } else if (const int gpu = other_gpu_of(r.data); gpu >= 0) {
      const device_guard on(gpu);
      GPUBENCH_CUDA(cudaMemset(r.data, 0xff, bytes));
      GPUBENCH_CUDA(cudaDeviceSynchronize());  // the variant's streams do not order after cudaMemset's
    } else {
      GPUBENCH_CUDA(cudaMemsetAsync(r.data, 0xff, bytes, stream));
    }
  }
}

void read_back_regions(const std::vector<output_view>& regions, host_array& into) {
  into.type = regions.front().type;
  into.bytes.resize(result_bytes(regions));
  std::byte* at = into.bytes.data();
  for (const auto& r : regions) {
    const std::size_t bytes = r.count * size_of(r.type);
    if (bytes == 0) continue;
    if (r.where == memory_space::host) {
      parallel_copy(at, r.data, bytes);
    } else if (const int gpu = other_gpu_of(r.data); gpu >= 0) {
      const device_guard on(gpu);
      GPUBENCH_CUDA(cudaMemcpy(at, r.data, bytes, cudaMemcpyDeviceToHost));
    } else {
      GPUBENCH_CUDA(cudaMemcpy(at, r.data, bytes, cudaMemcpyDeviceToHost));
    }
    at += bytes;
  }
}

}  // namespace gpubench::detail
