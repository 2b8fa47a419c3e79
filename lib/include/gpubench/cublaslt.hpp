#pragma once
/// cuBLASLt helpers shared by the ceilings measurement and the tensor-core pairs: owning handle,
/// matmul descriptor and matrix layout, and a one-time algorithm pick.
#include <cstddef>
#include <cstdint>
#include <optional>

#include <cublasLt.h>

#include "gpubench/cublas.hpp"

namespace gpubench {

struct lt_handle {
  cublasLtHandle_t h = nullptr;
  lt_handle() { GPUBENCH_CUBLAS(cublasLtCreate(&h)); }
  ~lt_handle() { cublasLtDestroy(h); }
  lt_handle(const lt_handle&) = delete;
  lt_handle& operator=(const lt_handle&) = delete;
};

/// A matmul descriptor with its operand transposes; further attributes through set().
struct lt_matmul_desc {
  cublasLtMatmulDesc_t d = nullptr;
  lt_matmul_desc(cublasComputeType_t compute, cudaDataType_t scale, cublasOperation_t ta = CUBLAS_OP_N,
                 cublasOperation_t tb = CUBLAS_OP_N) {
    GPUBENCH_CUBLAS(cublasLtMatmulDescCreate(&d, compute, scale));
    set(CUBLASLT_MATMUL_DESC_TRANSA, ta);
    set(CUBLASLT_MATMUL_DESC_TRANSB, tb);
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

/// cuBLASLt's first heuristic choice for D = op(A) op(B) (+ C, laid out like D) within
/// `workspace_bytes`, picked once outside any timing: the query costs host time an application
/// would not pay per call. nullopt when this library/GPU has no kernel for the combination.
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

}  // namespace gpubench
