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

/// Owning device allocation of `count` elements of T (cudaMalloc).
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    void* p = nullptr;
    GPUBENCH_CUDA(cudaMalloc(&p, count * sizeof(T)));
    ptr_ = static_cast<T*>(p);
  }
  device_buffer(device_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~device_buffer() { if (ptr_ != nullptr) cudaFree(ptr_); }
  [[nodiscard]] T* get() const { return ptr_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Owning page-locked host allocation (cudaMallocHost): the DMA engines read it directly.
template <class T>
class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t count) : count_(count) {
    void* p = nullptr;
    GPUBENCH_CUDA(cudaMallocHost(&p, count * sizeof(T)));
    ptr_ = static_cast<T*>(p);
  }
  pinned_buffer(pinned_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~pinned_buffer() { if (ptr_ != nullptr) cudaFreeHost(ptr_); }
  [[nodiscard]] T* get() const { return ptr_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Fills `count` floats with uniform values in [lo, hi) from a counter-based hash of (seed, i):
/// fresh, reproducible for a given seed, never zeros, and fast enough for GiB-sized inputs.
void fill_uniform(float* device_data, std::size_t count, std::uint64_t seed, float lo, float hi, stream_t stream);

/// Seed for one named input of a size, derived from the size's seed (distinct inputs differ).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t salt);

}  // namespace gpubench
