#pragma once
// Poisoning and reading back every region of a variant's result (gpubench/result_regions.hpp),
// wherever it lives: the run's GPU, another GPU, or the host.
#include <vector>

#include "gpubench/cuda.hpp"
#include "gpubench/verify.hpp"

namespace gpubench::detail {

/// Fills every region with 0xFF bytes (NaN in every float type). Regions on the run's GPU are
/// poisoned in `stream`'s order, as a single-GPU pair's always were; a region on another GPU is
/// poisoned on that GPU and waited for, so it is NaN before the variant starts. Host regions are
/// set directly. The caller synchronizes `stream` afterwards.
void poison_regions(const std::vector<output_view>& regions, cudaStream_t stream);

/// Copies every region, in order, into one host array (the first region's type). A region on
/// another GPU is copied with that GPU current. The variant must have joined all its work into
/// the engine's stream (which the caller synchronized); the copy does not wait for other streams.
void read_back_regions(const std::vector<output_view>& regions, host_array& into);

/// True when every region is device memory of the current GPU (so device_verify.cu can check it
/// where it is).
bool all_on_current_gpu(const std::vector<output_view>& regions);

/// Copies every region, in order, into `into` on the current GPU (at least result_bytes long), in
/// `stream`'s order. Every region must be on the current GPU.
void gather_on_device(const std::vector<output_view>& regions, std::byte* into, cudaStream_t stream);

}  // namespace gpubench::detail
