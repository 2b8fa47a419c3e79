// Random inputs (gpubench/cuda.hpp): a counter-based hash of (seed, index), so a fill is fresh,
// reproducible for a given seed and never zero, and a seed per named input derived from the size's.
#include <algorithm>
#include <cstdint>

#include "gpubench/cuda.hpp"

namespace gpubench {

namespace {

// splitmix64's finaliser: decorrelates nearby inputs (counters, seeds and salts).
__host__ __device__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__global__ void fill_uniform_kernel(float* out, std::size_t n, std::uint64_t seed, float lo, float span) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const auto bits = static_cast<std::uint32_t>(mix(seed + i * 0x9e3779b97f4a7c15ULL) >> 40);  // 24 bits
    out[i] = lo + span * (static_cast<float>(bits) * (1.0f / 16777216.0f));
  }
}

}  // namespace

void fill_uniform(float* device_data, std::size_t count, std::uint64_t seed, float lo, float hi, stream_t stream) {
  if (count == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((count + 255) / 256, 65536));
  fill_uniform_kernel<<<blocks, 256, 0, stream>>>(device_data, count, seed, lo, hi - lo);
  GPUBENCH_CHECK_LAUNCH();
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t salt) {
  return mix(seed + 0x9e3779b97f4a7c15ULL * (salt + 1));
}

}  // namespace gpubench
