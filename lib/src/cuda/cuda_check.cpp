// Turns CUDA runtime errors into gpubench errors whose message says what to do.
#include <fmt/format.h>

#include "gpubench/cuda.hpp"

namespace gpubench {

void cuda_check(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::string hint;
  switch (status) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage: {
      int dev = 0, major = 0, minor = 0;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
      hint = fmt::format(" — this binary has no code for this GPU (sm_{}{}); rebuild with GPUBENCH_CUDA_ARCHS={}{}",
                         major, minor, major, minor);
      break;
    }
    case cudaErrorMemoryAllocation: hint = " — not enough memory for this size; choose a smaller one with --axis"; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: hint = " — no usable CUDA device or driver on this machine"; break;
    default: break;
  }
  throw cuda_error(status, fmt::format("CUDA error {} ({}) in {} at {}:{}{}", cudaGetErrorName(status),
                                       cudaGetErrorString(status), what, file, line, hint));
}

}  // namespace gpubench
