#pragma once
/// FP32 -> low-precision copies of inputs (FP16, BF16, FP8, ...), for .cu files: the ceilings'
/// tensor-core measurement and the tensor-core pairs make their GEMM operands with it.
#include <cstddef>

#include "gpubench/cuda.hpp"

namespace gpubench {

namespace detail {
template <class To>
__global__ void convert_from_float_kernel(const float* __restrict__ in, To* __restrict__ out, std::size_t n) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = To(in[i]);
}
}  // namespace detail

/// out[i] = To(in[i]) (To's conversion from float: round to nearest), enqueued on `stream`.
template <class To>
void convert_from_float(const float* in, To* out, std::size_t n, stream_t stream) {
  detail::convert_from_float_kernel<To><<<1024, 256, 0, stream>>>(in, out, n);
  GPUBENCH_CHECK_LAUNCH();
}

}  // namespace gpubench
