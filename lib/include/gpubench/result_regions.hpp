#pragma once
/// Every region of a variant's result, as the engine verifies it: output() followed by
/// extra_outputs() (a result that lives on several GPUs). CUDA-free, so it is tested on the CPU.
#include <string_view>
#include <vector>

#include "gpubench/registry.hpp"

namespace gpubench {

/// output(variant), then extra_outputs(variant). Throws gpubench::error (exit 1: a broken pair,
/// not a user mistake) when a region's element type differs from the first one's, since the
/// regions are compared as one array.
std::vector<output_view> result_regions(const pair_state& state, std::string_view variant);

/// Total bytes of `regions`.
std::size_t result_bytes(const std::vector<output_view>& regions);

}  // namespace gpubench
