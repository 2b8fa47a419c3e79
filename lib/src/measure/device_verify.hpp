#pragma once
// Verification on the GPU: the count gpubench::tally_host makes on the host (gpubench/verify.hpp),
// made by a kernel over outputs that never leave the device. Bringing a 1 GiB output back to the
// host took 0.3–0.5 s per variant on the H100 VMs, most of `run --chapter 1 --quick`'s
// verification time (docs/adding-a-pair.md, "How verification works").
#include <cstddef>

#include <cuda_runtime.h>

#include "gpubench/verify.hpp"

namespace gpubench::detail {

/// Counts `n` elements of type `t` at `out` against `ref`, both on the current GPU, element for
/// element as tally_host does (sums in a fixed order for a given n, so repeatable). With `ref` null,
/// counts only out's non-finite elements (first_bad: the first of them): the baseline's own check.
/// Synchronizes `stream`.
comparison_tally tally_on_device(const void* out, const void* ref, std::size_t n, element_type t, cudaStream_t stream);

/// Element `i` of the device array `data` of type `t`, as a double (for a message).
double device_element(const void* data, element_type t, std::size_t i);

}  // namespace gpubench::detail
