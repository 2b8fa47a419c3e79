#pragma once
// Shared by the chapter-5 pairs: the cuBLASLt workspace size, the compute-capability check and
// GEMM shape labels. The cuBLASLt RAII types, pick_algo and the FP32 -> low-precision conversion
// are the library's (gpubench/cublaslt.hpp, gpubench/convert.cuh).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "gpubench/convert.cuh"
#include "gpubench/cublaslt.hpp"

namespace ch05 {

/// cuBLASLt wants a workspace for split-K and stream-K kernels; one per State, reused by every call.
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

/// GEMM problem from a label: "4096" is 4096^3, "4096x11008x4096" is m x n x k.
struct gemm_shape {
  int m = 0, n = 0, k = 0;
};
inline gemm_shape parse_shape(const std::string& label) {
  const auto x1 = label.find('x');
  if (x1 == std::string::npos) {
    const int s = std::stoi(label);
    return {s, s, s};
  }
  const auto x2 = label.find('x', x1 + 1);
  if (x2 == std::string::npos) throw std::invalid_argument("GEMM shape label must be N or MxNxK: " + label);
  return {std::stoi(label.substr(0, x1)), std::stoi(label.substr(x1 + 1, x2 - x1 - 1)), std::stoi(label.substr(x2 + 1))};
}

// ---------------------------------------------------------------------------------------------
// Pointwise passes over a column-major GEMM output of 16-bit elements (FP16 or BF16), 8 elements
// (16 bytes) per access so each pass runs at DRAM speed: the honest unfused alternative to an
// epilogue. Need rows % 8 == 0 (the 8 elements of one access share a column). `in` may equal `out`.

__device__ inline float to_float(__half v) { return __half2float(v); }
__device__ inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

/// The tanh form of GELU, the one cuBLASLt's GELU epilogues compute.
__device__ inline float gelu_tanh(float x) {
  constexpr float k_sqrt_2_over_pi = 0.7978845608028654f;
  return 0.5f * x * (1.f + tanhf(k_sqrt_2_over_pi * (x + 0.044715f * x * x * x)));
}

/// out = in + bias broadcast along columns (bias[row]), or gelu(in) when Gelu, element by element.
template <class T, bool Gelu>
__global__ void pointwise8_kernel(const T* in, const T* __restrict__ bias, T* out, std::size_t n, int rows) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x * 8;
  for (std::size_t i = (std::size_t(blockIdx.x) * blockDim.x + threadIdx.x) * 8; i < n; i += stride) {
    uint4 v = *reinterpret_cast<const uint4*>(in + i);
    T* e = reinterpret_cast<T*>(&v);
    if constexpr (Gelu) {
#pragma unroll
      for (int j = 0; j < 8; ++j) e[j] = T(gelu_tanh(to_float(e[j])));
    } else {
      const uint4 bv = *reinterpret_cast<const uint4*>(bias + i % std::size_t(rows));
      const T* be = reinterpret_cast<const T*>(&bv);
#pragma unroll
      for (int j = 0; j < 8; ++j) e[j] = T(to_float(e[j]) + to_float(be[j]));
    }
    *reinterpret_cast<uint4*>(out + i) = v;
  }
}

inline unsigned pointwise8_blocks(std::size_t n) {
  const std::size_t b = (n / 8 + 255) / 256;
  return unsigned(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

/// out (rows x n/rows, column-major) = in + bias[row]. One read of in, one write of out.
template <class T>
void add_bias(const T* in, const T* bias, T* out, std::size_t n, int rows, gpubench::stream_t stream) {
  pointwise8_kernel<T, false><<<pointwise8_blocks(n), 256, 0, stream>>>(in, bias, out, n, rows);
  GPUBENCH_CHECK_LAUNCH();
}

/// out = gelu_tanh(in).
template <class T>
void gelu(const T* in, T* out, std::size_t n, gpubench::stream_t stream) {
  pointwise8_kernel<T, true><<<pointwise8_blocks(n), 256, 0, stream>>>(in, nullptr, out, n, 8);
  GPUBENCH_CHECK_LAUNCH();
}

}  // namespace ch05
