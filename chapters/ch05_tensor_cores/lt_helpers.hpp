#pragma once
// Shared by the chapter-5 pairs: RAII for cuBLASLt objects, a one-time algorithm pick, the
// FP32 -> low-precision conversion the States use to make their inputs, and GEMM shape labels.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "gpubench/cublas.hpp"

namespace ch05 {

struct lt_handle {
  cublasLtHandle_t h = nullptr;
  lt_handle() { GPUBENCH_CUBLAS(cublasLtCreate(&h)); }
  ~lt_handle() { cublasLtDestroy(h); }
  lt_handle(const lt_handle&) = delete;
  lt_handle& operator=(const lt_handle&) = delete;
};

struct lt_matmul_desc {
  cublasLtMatmulDesc_t d = nullptr;
  lt_matmul_desc(cublasComputeType_t compute, cudaDataType_t scale, cublasOperation_t ta, cublasOperation_t tb) {
    GPUBENCH_CUBLAS(cublasLtMatmulDescCreate(&d, compute, scale));
    GPUBENCH_CUBLAS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    GPUBENCH_CUBLAS(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
  }
  ~lt_matmul_desc() { cublasLtMatmulDescDestroy(d); }
  lt_matmul_desc(const lt_matmul_desc&) = delete;
  lt_matmul_desc& operator=(const lt_matmul_desc&) = delete;
  template <class T>
  void set(cublasLtMatmulDescAttributes_t attr, const T& value) {
    GPUBENCH_CUBLAS(cublasLtMatmulDescSetAttribute(d, attr, &value, sizeof(value)));
  }
};

/// Column-major `rows` x `cols` with leading dimension `ld`, as stored (before any transpose op).
struct lt_layout {
  cublasLtMatrixLayout_t l = nullptr;
  lt_layout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld) {
    GPUBENCH_CUBLAS(cublasLtMatrixLayoutCreate(&l, type, rows, cols, ld));
  }
  ~lt_layout() { cublasLtMatrixLayoutDestroy(l); }
  lt_layout(const lt_layout&) = delete;
  lt_layout& operator=(const lt_layout&) = delete;
};

/// cuBLASLt's first heuristic choice for this problem and workspace, picked once (in a State
/// constructor: the heuristic query costs host time an application would not pay per call).
/// nullopt when this library/GPU has no kernel for the combination.
inline std::optional<cublasLtMatmulAlgo_t> pick_algo(cublasLtHandle_t h, cublasLtMatmulDesc_t op,
                                                     cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                     cublasLtMatrixLayout_t c, std::size_t workspace_bytes) {
  cublasLtMatmulPreference_t pref = nullptr;
  GPUBENCH_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                           &workspace_bytes, sizeof(workspace_bytes));
  if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulAlgoGetHeuristic(h, op, a, b, c, c, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || (st == CUBLAS_STATUS_SUCCESS && found == 0)) return std::nullopt;
  GPUBENCH_CUBLAS(st);
  return result.algo;
}

/// cuBLASLt wants a workspace for split-K and stream-K kernels; one per State, reused by every call.
constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;

/// Compute capability of the current device as 10 * major + minor.
inline int compute_capability() {
  int dev = 0, major = 0, minor = 0;
  GPUBENCH_CUDA(cudaGetDevice(&dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  GPUBENCH_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return 10 * major + minor;
}

template <class To>
__global__ void convert_kernel(const float* __restrict__ in, To* __restrict__ out, std::size_t n) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = To(in[i]);
}

/// out[i] = To(in[i]) (round to nearest): the low-precision copy of an FP32 input.
template <class To>
void convert(const float* in, To* out, std::size_t n, gpubench::stream_t stream) {
  convert_kernel<To><<<1024, 256, 0, stream>>>(in, out, n);
  GPUBENCH_CHECK_LAUNCH();
}

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

}  // namespace ch05
