#pragma once
// What chapter 8's pairs share: the two GPUs they use, per-device streams, events and buffers,
// the barrier and join that let the engine's events time work on both GPUs, and the L2 flush of
// the GPU the engine does not flush itself. docs/chapters.md, "Chapter 8", says why.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpubench/cuda.hpp"

namespace ch08 {

/// The GPUs a chapter-8 pair uses: the run's device (`--device`, current while a State is built
/// and while a variant runs) and the next one, wrapping around. Two GPUs, whatever the machine
/// has, so a record means the same on every host.
struct gpu_pair {
  int run = 0;
  int peer = 1;
};

/// Throws gpubench::not_supported (the record is skipped with the reason, exit 0) on a machine
/// with fewer than two GPUs.
inline gpu_pair two_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  if (count < 2)
    throw gpubench::not_supported("needs 2 GPUs: this machine has " + std::to_string(count) +
                                  " CUDA device(s); chapter 8 uses the run's device and the next one");
  gpu_pair g;
  GPUBENCH_CUDA(cudaGetDevice(&g.run));
  g.peer = (g.run + 1) % count;
  return g;
}

/// Lets `from` read and write `to`'s memory directly (NVLink or PCIe peer-to-peer). Returns false
/// when the two GPUs cannot (cudaDeviceCanAccessPeer = 0). Idempotent: "already enabled" (another
/// State, or NCCL, did it) is not an error, and is cleared so the engine's cudaGetLastError()
/// after a variant does not see it. Peer access then stays enabled for the process: it is a
/// property of the two contexts, and no variant here depends on it being off.
inline bool enable_peer_access(int from, int to) {
  int can = 0;
  GPUBENCH_CUDA(cudaDeviceCanAccessPeer(&can, from, to));
  if (can == 0) return false;
  const gpubench::device_guard on(from);
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
  else GPUBENCH_CUDA(e);
  return true;
}

/// GPU memory that may belong to either GPU: freed with its own GPU current, whichever GPU is
/// current when the State is destroyed (UVA lets cudaFree find it anyway; this does not rely on it).
struct any_gpu_memory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GPUBENCH_CUDA(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept {
    cudaPointerAttributes attr{};
    int current = 0;
    if (cudaPointerGetAttributes(&attr, p) == cudaSuccess && cudaGetDevice(&current) == cudaSuccess &&
        attr.type == cudaMemoryTypeDevice && attr.device != current) {
      cudaSetDevice(attr.device);
      cudaFree(p);
      cudaSetDevice(current);
      return;
    }
    cudaFree(p);
  }
};
template <class T>
using gpu_buffer = gpubench::owned_buffer<T, any_gpu_memory>;

/// GPU memory on `device` (cudaMalloc allocates on the current device).
template <class T>
gpu_buffer<T> buffer_on(int device, std::size_t count) {
  const gpubench::device_guard on(device);
  return gpu_buffer<T>(count);
}

/// Page-locked host memory pinned for every GPU's context (cudaHostAllocPortable), not only the
/// one current at allocation: both GPUs' copy engines DMA the staging buffers.
struct portable_pinned_memory {
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    GPUBENCH_CUDA(cudaHostAlloc(&p, bytes, cudaHostAllocPortable));
    return p;
  }
  static void release(void* p) noexcept { cudaFreeHost(p); }
};
template <class T>
using portable_pinned_buffer = gpubench::owned_buffer<T, portable_pinned_memory>;

/// A non-blocking stream of `device`, optionally at a priority (lower numbers run first).
class device_stream {
 public:
  explicit device_stream(int device, int priority = 0) : device_(device) {
    const gpubench::device_guard on(device);
    GPUBENCH_CUDA(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority));
  }
  ~device_stream() {
    int current = 0;
    if (cudaGetDevice(&current) == cudaSuccess && current != device_) cudaSetDevice(device_);
    cudaStreamDestroy(s_);
    if (current != device_) cudaSetDevice(current);
  }
  device_stream(const device_stream&) = delete;
  device_stream& operator=(const device_stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return s_; }

 private:
  int device_;
  cudaStream_t s_ = nullptr;
};

/// The highest stream priority `device` offers (the most negative number).
inline int highest_priority(int device) {
  const gpubench::device_guard on(device);
  int least = 0, greatest = 0;
  GPUBENCH_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return greatest;
}

/// An event of `device` used only to order streams (no timing: cheaper to record and wait on).
/// cudaEventRecord needs the event and the stream on one device; a wait may cross devices.
class sync_event {
 public:
  explicit sync_event(int device) {
    const gpubench::device_guard on(device);
    GPUBENCH_CUDA(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming));
  }
  ~sync_event() { cudaEventDestroy(e_); }
  sync_event(const sync_event&) = delete;
  sync_event& operator=(const sync_event&) = delete;
  [[nodiscard]] cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// Makes `waiter` wait for everything enqueued on `source` so far; `e` belongs to `source`'s device.
inline void order_after(cudaStream_t waiter, cudaStream_t source, const sync_event& e) {
  GPUBENCH_CUDA(cudaEventRecord(e.get(), source));
  GPUBENCH_CUDA(cudaStreamWaitEvent(waiter, e.get(), 0));
}

/// The barrier that opens every chapter-8 sample: an event recorded on the engine's stream (just
/// after its start event) that every other stream waits for, so no GPU starts the sample's work
/// before the engine's clock does. `on_run` belongs to the run's device.
template <class... Streams>
void barrier(cudaStream_t engine, const sync_event& on_run, Streams... others) {
  GPUBENCH_CUDA(cudaEventRecord(on_run.get(), engine));
  (GPUBENCH_CUDA(cudaStreamWaitEvent(others, on_run.get(), 0)), ...);
}

/// The join that closes it: the engine's stream waits for everything enqueued on `other`, so its
/// stop event comes after the slowest GPU's last operation. `done` belongs to `other`'s device.
inline void join(cudaStream_t engine, cudaStream_t other, const sync_event& done) { order_after(engine, other, done); }

namespace detail {
// A template, so every file that includes this header shares one kernel (no duplicate symbols).
template <int = 0>
__global__ void read_flush_kernel(const uint4* in, std::size_t n, unsigned long long* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // almost never taken; keeps the loads from being removed
}
}  // namespace detail

/// The L2 flush of a GPU other than the run's, done as the engine does its own: reading (not
/// writing) twice the L2 leaves it full of clean lines, so no write-back lands in the next sample.
class l2_flusher {
 public:
  explicit l2_flusher(int device) : device_(device), done_(device) {
    const gpubench::device_guard on(device);
    int l2 = 0;
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    buffer_ = gpu_buffer<uint4>(std::max<std::size_t>(2 * std::size_t(l2), 8u << 20) / sizeof(uint4));
    GPUBENCH_CUDA(cudaMemset(buffer_.get(), 0, buffer_.bytes()));
    sink_ = gpu_buffer<unsigned long long>(1);
    GPUBENCH_CUDA(cudaDeviceSynchronize());
  }
  /// Flushes the GPU's L2 on `own` (a stream of that GPU) and makes `engine` wait for it; called
  /// from a State's flush_other_gpus(), outside the timed span.
  void flush(cudaStream_t own, cudaStream_t engine) {
    {
      const gpubench::device_guard on(device_);
      detail::read_flush_kernel<><<<4096, 256, 0, own>>>(buffer_.get(), buffer_.size(), sink_.get());
      GPUBENCH_CHECK_LAUNCH();
    }
    order_after(engine, own, done_);
  }

 private:
  int device_;
  gpu_buffer<uint4> buffer_;
  gpu_buffer<unsigned long long> sink_;
  sync_event done_;
};

}  // namespace ch08
