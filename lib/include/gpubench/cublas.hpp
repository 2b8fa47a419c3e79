#pragma once
/// cuBLAS helpers for pairs: a status check that throws, and an owning handle bound to a stream.
#include <string>

#include <cublas_v2.h>

#include "gpubench/cuda.hpp"

namespace gpubench {

inline void cublas_check(cublasStatus_t status, const char* what, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  // An allocation failure inside cuBLAS is an out-of-memory like any other: the size is skipped.
  const cudaError_t as_cuda = status == CUBLAS_STATUS_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
  throw cuda_error(as_cuda, std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" +
                                cublasGetStatusString(status) + ") in " + what + " at " + file + ":" +
                                std::to_string(line));
}

/// Owning cuBLAS handle, bound to the pair's stream, pure FP32 math unless told otherwise.
class cublas_handle {
 public:
  explicit cublas_handle(stream_t stream, cublasMath_t math = CUBLAS_DEFAULT_MATH) {
    cublas_check(cublasCreate(&h_), "cublasCreate", __FILE__, __LINE__);
    cublas_check(cublasSetStream(h_, stream), "cublasSetStream", __FILE__, __LINE__);
    cublas_check(cublasSetMathMode(h_, math), "cublasSetMathMode", __FILE__, __LINE__);
  }
  ~cublas_handle() { cublasDestroy(h_); }
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  [[nodiscard]] cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace gpubench

#define GPUBENCH_CUBLAS(call) ::gpubench::cublas_check((call), #call, __FILE__, __LINE__)
