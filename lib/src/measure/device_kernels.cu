// The engine's own kernels: the SM-clock probe used when NVML is absent, the L2 flush and the rest.
#include <cstdint>

#include "gpubench/cuda.hpp"
#include "measure/device_kernels.hpp"

namespace gpubench {

namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins for ~`spin_ns` and reports SM cycles and nanoseconds elapsed: cycles/ns is the SM clock.
__global__ void clock_probe_kernel(std::uint64_t spin_ns, unsigned long long* out) {
  const std::uint64_t t0 = global_ns();
  const long long c0 = clock64();
  std::uint64_t t1 = t0;
  while (t1 - t0 < spin_ns) t1 = global_ns();
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

__global__ void read_flush_kernel(const uint4* in, std::size_t n, unsigned long long* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u && threadIdx.x == 0x3ff) *sink = acc;  // never in practice; keeps the loads
}

// One thread napping until `ns` have passed: the schedule's rest between samples. A kernel, not a
// host sleep, because an idle GPU lowers its clocks: the first GEMM after 200 ms of host sleep ran
// 13% slower than the fifth (docs/measurement.md, "Samples rest").
__global__ void rest_kernel(std::uint64_t ns) {
  const std::uint64_t t0 = global_ns();
  while (global_ns() - t0 < ns) __nanosleep(1000);
}

}  // namespace

namespace detail {

double probe_sm_clock_mhz(stream_t stream, unsigned long long* scratch_device, unsigned long long* scratch_host) {
  // 20 µs is long against globaltimer's ~1 µs granularity on recent GPUs, short against a sample.
  clock_probe_kernel<<<1, 1, 0, stream>>>(20000, scratch_device);
  GPUBENCH_CHECK_LAUNCH();
  GPUBENCH_CUDA(cudaMemcpyAsync(scratch_host, scratch_device, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  if (scratch_host[1] == 0) return 0;
  return static_cast<double>(scratch_host[0]) / static_cast<double>(scratch_host[1]) * 1000.0;
}

void read_flush(const void* buffer, std::size_t bytes, unsigned long long* sink, stream_t stream) {
  const std::size_t n = bytes / sizeof(uint4);
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 4096));
  read_flush_kernel<<<blocks, 256, 0, stream>>>(static_cast<const uint4*>(buffer), n, sink);
  GPUBENCH_CHECK_LAUNCH();
}

void rest_on_device(double seconds, stream_t stream) {
  if (!(seconds > 0)) return;
  rest_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(seconds * 1e9));
  GPUBENCH_CHECK_LAUNCH();
}

}  // namespace detail
}  // namespace gpubench
