#pragma once
/// CUDA helpers for pairs: error checks that throw, RAII buffers, random inputs. Include from
/// .cu files in chapters/. Every CUDA call and every launch is checked: a binary without code
/// for this GPU must fail loudly instead of timing an empty stream.
#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda_runtime_api.h>

#include "gpubench/error.hpp"
#include "gpubench/registry.hpp"

namespace gpubench {

/// A failed CUDA runtime call. Out-of-memory is recognisable so the engine can skip one size.
class cuda_error : public error {
 public:
  cuda_error(cudaError_t status, const std::string& message) : error(exit_code::runtime_failure, message), status_(status) {}
  [[nodiscard]] cudaError_t status() const noexcept { return status_; }
  [[nodiscard]] bool out_of_memory() const noexcept { return status_ == cudaErrorMemoryAllocation; }

 private:
  cudaError_t status_;
};

/// Throws cuda_error (with a hint for the usual causes) unless status is cudaSuccess.
void cuda_check(cudaError_t status, const char* what, const char* file, int line);

}  // namespace gpubench

/// Checks a CUDA runtime call.
#define GPUBENCH_CUDA(call) ::gpubench::cuda_check((call), #call, __FILE__, __LINE__)
/// Checks the launch just made (bad configuration, no kernel image for this GPU, ...).
#define GPUBENCH_CHECK_LAUNCH() ::gpubench::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

namespace gpubench {

namespace detail {
struct device_memory {  // cudaMalloc: GPU memory
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GPUBENCH_CUDA(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { cudaFree(p); }
};
/// cudaMallocHost through the engine's cache of released blocks (gpubench/block_cache.hpp): a
/// State rebuilt for the next round or direction gets the same pages back instead of pinning them
/// anew. Throws cuda_error (out of memory) when none can be had.
void* pinned_allocate(std::size_t bytes);
void pinned_release(void* p) noexcept;
struct pinned_memory {  // page-locked host memory the DMA engines read directly
  static void* allocate(std::size_t bytes) { return pinned_allocate(bytes); }
  static void release(void* p) noexcept { pinned_release(p); }
};
}  // namespace detail

/// Owning allocation of `count` elements of T from `Memory` (move-only; freed on destruction).
template <class T, class Memory>
class owned_buffer {
 public:
  owned_buffer() = default;
  explicit owned_buffer(std::size_t count)
      : ptr_(static_cast<T*>(Memory::allocate(count * sizeof(T)))), count_(count) {}
  owned_buffer(owned_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  owned_buffer& operator=(owned_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~owned_buffer() { if (ptr_ != nullptr) Memory::release(ptr_); }
  [[nodiscard]] T* get() const { return ptr_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// GPU memory (cudaMalloc).
template <class T>
using device_buffer = owned_buffer<T, detail::device_memory>;
/// Page-locked host memory (cudaMallocHost, reused from the engine's cache: see pinned_allocate).
template <class T>
using pinned_buffer = owned_buffer<T, detail::pinned_memory>;

/// Makes `device` current for the guard's lifetime and restores the device that was current
/// before. cudaSetDevice is per host thread: code that drives several GPUs (chapter 8) must
/// hand the engine back its own device, or the engine's next call lands on the wrong GPU.
class device_guard {
 public:
  explicit device_guard(int device) {
    GPUBENCH_CUDA(cudaGetDevice(&previous_));
    if (device != previous_) GPUBENCH_CUDA(cudaSetDevice(device));
  }
  ~device_guard() { cudaSetDevice(previous_); }
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;

 private:
  int previous_ = 0;
};

/// Owning non-blocking CUDA stream.
class cuda_stream {
 public:
  cuda_stream() { GPUBENCH_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~cuda_stream() { cudaStreamDestroy(s_); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

/// Owning CUDA event (timing enabled).
class cuda_event {
 public:
  cuda_event() { GPUBENCH_CUDA(cudaEventCreate(&e_)); }
  /// With flags, e.g. cudaEventDisableTiming for an event that only orders streams (cheaper to record).
  explicit cuda_event(unsigned flags) { GPUBENCH_CUDA(cudaEventCreateWithFlags(&e_, flags)); }
  ~cuda_event() { cudaEventDestroy(e_); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  [[nodiscard]] cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// An owning CUDA graph and its executable instance, captured from what `enqueue` puts on
/// `stream`, instantiated and uploaded once (outside any timing). A throw during the capture
/// ends it, so the stream is usable again, and frees what was captured.
class cuda_graph {
 public:
  template <class F>
  cuda_graph(cudaStream_t stream, F&& enqueue) {
    GPUBENCH_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue();
    } catch (...) {
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(stream, &partial);
      if (partial != nullptr) cudaGraphDestroy(partial);
      throw;
    }
    GPUBENCH_CUDA(cudaStreamEndCapture(stream, &graph_));
    try {
      GPUBENCH_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
      GPUBENCH_CUDA(cudaGraphUpload(exec_, stream));
    } catch (...) {
      release();
      throw;
    }
  }
  ~cuda_graph() { release(); }
  cuda_graph(const cuda_graph&) = delete;
  cuda_graph& operator=(const cuda_graph&) = delete;
  /// One replay of the whole graph on `stream`.
  void launch(cudaStream_t stream) const { GPUBENCH_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  void release() noexcept {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// Compute capability of the current device as 10 * major + minor.
inline int compute_capability() {
  int dev = 0, major = 0, minor = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return 10 * major + minor;
}

/// Fills `count` floats with uniform values in [lo, hi) from a counter-based hash of (seed, i):
/// fresh, reproducible for a given seed, never zeros, and fast enough for GiB-sized inputs.
void fill_uniform(float* device_data, std::size_t count, std::uint64_t seed, float lo, float hi, stream_t stream);

/// Seed for one named input of a size, derived from the size's seed (distinct inputs differ).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t salt);

/// What the compiled kernel and the occupancy calculator say about launching `kernel` on the
/// current device with `block_threads` threads and `dynamic_shared_bytes` of dynamic shared memory
/// per block, as launch facts (pair_state::facts): block_threads, grid_blocks (when given),
/// registers_per_thread (cudaFuncAttributes::numRegs), local_bytes_per_thread (localSizeBytes:
/// register spills plus local arrays), shared_bytes_per_block (static + dynamic), blocks_per_sm
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor) and theoretical_occupancy_pct (blocks_per_sm ×
/// block_threads / the SM's thread limit). Host calls: build it in a State's constructor.
launch_facts kernel_facts(const void* kernel, int block_threads, std::size_t dynamic_shared_bytes = 0,
                          std::size_t grid_blocks = 0);
template <class... Args>
launch_facts kernel_facts(void (*kernel)(Args...), int block_threads, std::size_t dynamic_shared_bytes = 0,
                          std::size_t grid_blocks = 0) {
  return kernel_facts(reinterpret_cast<const void*>(kernel), block_threads, dynamic_shared_bytes, grid_blocks);
}

/// Resident blocks per SM that the occupancy calculator allows for this launch.
int blocks_per_sm(const void* kernel, int block_threads, std::size_t dynamic_shared_bytes = 0);
template <class... Args>
int blocks_per_sm(void (*kernel)(Args...), int block_threads, std::size_t dynamic_shared_bytes = 0) {
  return blocks_per_sm(reinterpret_cast<const void*>(kernel), block_threads, dynamic_shared_bytes);
}

/// Dynamic shared memory per block that caps residency at `blocks` blocks per SM, the usual way to
/// sweep occupancy without touching the kernel (which need not use the memory): the largest
/// amount (at the allocation granularity) with which `blocks` blocks still fit, so `blocks + 1` do
/// not. It first raises the kernel's dynamic shared memory limit to the device's opt-in maximum and
/// sets its carveout preference to the maximum shared memory, the same for every cap, so that the
/// L1/shared split does not change with the cap. Throws runtime_error when the occupancy
/// calculator still allows more than `blocks` (other limits may allow fewer: read blocks_per_sm).
std::size_t residency_cap_bytes(const void* kernel, int block_threads, int blocks);
template <class... Args>
std::size_t residency_cap_bytes(void (*kernel)(Args...), int block_threads, int blocks) {
  return residency_cap_bytes(reinterpret_cast<const void*>(kernel), block_threads, blocks);
}

/// Streaming multiprocessors of the current device.
int sm_count();

}  // namespace gpubench
