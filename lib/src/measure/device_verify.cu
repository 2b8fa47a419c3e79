// See device_verify.hpp. One pass over both arrays: each thread tallies a grid-stride slice, CUB
// reduces each block, and the host adds the blocks' partials in block order. The grid depends on n
// alone, so the same outputs always sum in the same order.
#include <climits>
#include <cstdint>
#include <vector>

#include <cub/block/block_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpubench/cuda.hpp"
#include "measure/device_verify.hpp"

namespace gpubench::detail {

namespace {

constexpr int kThreads = 256;
constexpr std::size_t kMaxBlocks = 1024;

struct partial {
  unsigned long long non_finite, mismatches, first_bad;
  double diff2, ref2, max_abs;
};

struct combine {
  __device__ partial operator()(const partial& a, const partial& b) const {
    return {a.non_finite + b.non_finite, a.mismatches + b.mismatches, a.first_bad < b.first_bad ? a.first_bad : b.first_bad,
            a.diff2 + b.diff2, a.ref2 + b.ref2, a.max_abs > b.max_abs ? a.max_abs : b.max_abs};
  }
};

// Storage bits and value of each element type; non-finite is an all-ones exponent, as on the host.
template <class Bits, Bits Exponent>
struct ieee {
  using bits = Bits;
  __device__ static bool non_finite(Bits b) { return (b & Exponent) == Exponent; }
};
struct f32 : ieee<std::uint32_t, 0x7f800000u> {
  __device__ static double value(bits b) { return __uint_as_float(b); }
};
struct f64 : ieee<unsigned long long, 0x7ff0000000000000ull> {
  __device__ static double value(bits b) { return __longlong_as_double(static_cast<long long>(b)); }
};
struct f16 : ieee<unsigned short, 0x7c00u> {
  __device__ static double value(bits b) { return __half2float(__ushort_as_half(b)); }
};
struct bf16 : ieee<unsigned short, 0x7f80u> {
  __device__ static double value(bits b) { return __uint_as_float(static_cast<std::uint32_t>(b) << 16); }
};

template <class T>
__global__ void __launch_bounds__(kThreads) tally_kernel(const typename T::bits* out, const typename T::bits* ref,
                                                           std::size_t n, partial* partials) {
  partial p{0, 0, ULLONG_MAX, 0, 0, 0};
  for (std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * kThreads) {
    const typename T::bits ob = out[i];
    if (T::non_finite(ob)) {
      ++p.non_finite;
      if (i < p.first_bad) p.first_bad = i;
      continue;
    }
    if (ref == nullptr) continue;
    const double a = T::value(ob), b = T::value(ref[i]);
    const double d = fabs(a - b);
    if (d != 0 || signbit(a) != signbit(b)) {
      ++p.mismatches;
      if (i < p.first_bad) p.first_bad = i;
    }
    p.diff2 += d * d;
    p.ref2 += b * b;
    p.max_abs = d > p.max_abs ? d : p.max_abs;
  }
  using reduce = cub::BlockReduce<partial, kThreads>;
  __shared__ typename reduce::TempStorage scratch;
  const partial sum = reduce(scratch).Reduce(p, combine{});
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <class T>
void launch(const void* out, const void* ref, std::size_t n, unsigned blocks, partial* partials, cudaStream_t stream) {
  using bits = typename T::bits;
  tally_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const bits*>(out), static_cast<const bits*>(ref), n, partials);
  GPUBENCH_CHECK_LAUNCH();
}

}  // namespace

comparison_tally tally_on_device(const void* out, const void* ref, std::size_t n, element_type t, cudaStream_t stream) {
  comparison_tally result;
  result.elements = n;
  result.first_bad = n;
  if (n == 0) return result;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  device_buffer<partial> partials(blocks);
  switch (t) {
    case element_type::f32: launch<f32>(out, ref, n, blocks, partials.get(), stream); break;
    case element_type::f64: launch<f64>(out, ref, n, blocks, partials.get(), stream); break;
    case element_type::f16: launch<f16>(out, ref, n, blocks, partials.get(), stream); break;
    case element_type::bf16: launch<bf16>(out, ref, n, blocks, partials.get(), stream); break;
  }
  std::vector<partial> host(blocks);
  GPUBENCH_CUDA(cudaMemcpyAsync(host.data(), partials.get(), partials.bytes(), cudaMemcpyDeviceToHost, stream));
  GPUBENCH_CUDA(cudaStreamSynchronize(stream));
  unsigned long long first = ULLONG_MAX;
  for (const partial& p : host) {
    result.non_finite += p.non_finite;
    result.mismatches += p.mismatches;
    result.diff2 += p.diff2;
    result.ref2 += p.ref2;
    result.max_abs_error = std::max(result.max_abs_error, p.max_abs);
    first = std::min(first, p.first_bad);
  }
  if (first != ULLONG_MAX) result.first_bad = first;
  return result;
}

double device_element(const void* data, element_type t, std::size_t i) {
  std::byte bytes[8];
  const std::size_t size = size_of(t);
  GPUBENCH_CUDA(cudaMemcpy(bytes, static_cast<const std::byte*>(data) + i * size, size, cudaMemcpyDeviceToHost));
  return element_value(bytes, t, 0);
}

}  // namespace gpubench::detail
