#pragma once
/// The per-GPU cache of measured ceilings (gpubench/ceilings.hpp): plain JSON files keyed by the
/// GPU's UUID, read by every run to embed measured numbers in its profile. CUDA-free.
#include <filesystem>
#include <optional>
#include <string>

#include "gpubench/device_info.hpp"

namespace gpubench {

/// Where the cache lives: $GPUBENCH_CACHE_DIR, else $XDG_CACHE_HOME/gpubench, else ~/.cache/gpubench.
std::filesystem::path ceilings_cache_dir();
/// The cached ceilings of this GPU (by UUID), if any and readable. Never throws: a damaged cache
/// is ignored (and reported through `problem` when given).
std::optional<ceilings> load_cached_ceilings(const device_info& d, std::string* problem = nullptr);
/// Stores them atomically as <cache dir>/ceilings-<uuid>.json. Throws runtime_error on failure.
void store_cached_ceilings(const device_info& d, const ceilings& c);

}  // namespace gpubench
