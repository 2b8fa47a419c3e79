#pragma once
// The engine's side of the pinned-memory cache (pinned_allocate and pinned_release are declared in
// gpubench/cuda.hpp, for the chapters' pinned_buffer).

namespace gpubench::detail {

/// Frees every idle cached block (the runner does at its end, while CUDA is still up).
void pinned_trim() noexcept;

}  // namespace gpubench::detail
