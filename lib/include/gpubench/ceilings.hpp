#pragma once
/// Measured device ceilings: `gpubench device --ceilings`. Measured once per GPU (by UUID) and
/// cached (gpubench/ceilings_cache.hpp), then embedded in every run's profile so floors and
/// rooflines use measured numbers.
#include <functional>
#include <string>

#include "gpubench/device_info.hpp"

namespace gpubench {

/// Measures every ceiling on the current device (cudaSetDevice done by the caller): DRAM and L2
/// bandwidth (float4 copy kernels, read+write counted) with cudaMemcpy D2D as reference, FP32 and
/// FP64 FMA peaks (register-resident FMA loops), TF32/FP16/BF16 (and FP8 on cc >= 8.9) tensor
/// peaks through cuBLAS/cuBLASLt at 8192^3, host<->device pinned and pageable bandwidth, and
/// kernel launch latency on a stream vs in a graph. Returns source "measured" with `table`
/// filled and the floor fields set from it. `progress` is told each step's name.
/// Throws runtime_error on CUDA failures. Takes a few seconds (2.7 s wall on an H100:
/// docs/results/h100.md, "Measured ceilings").
ceilings measure_ceilings(const device_info& d, const std::function<void(const std::string&)>& progress);

}  // namespace gpubench
