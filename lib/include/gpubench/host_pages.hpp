#pragma once
/// Where a worker's host buffers lie: drawn afresh with each state, as its device buffers are
/// (docs/measurement.md, "Host pages"). CUDA-free.
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

/// The glibc tunable that gives every host buffer of 64 KiB or more a mapping of its own.
inline constexpr std::string_view kFreshHostPagesTunable = "glibc.malloc.mmap_threshold=65536";

/// The GLIBC_TUNABLES value a worker starts with: `current` (this process's value, empty when
/// unset) with kFreshHostPagesTunable added, unless `current` already sets the mmap threshold (the
/// user's value stands). glibc reads it before the first allocation, so the threshold holds from
/// the start: set later (mallopt), it is only consulted when the heap cannot serve a request, and a
/// heap that has grown hands a freed buffer's pages to the next.
std::string tunables_for_fresh_host_pages(std::string_view current);

/// The environment entries (NAME=VALUE) for a measuring worker: GLIBC_TUNABLES as above, read
/// from this process's environment.
std::vector<std::string> fresh_host_pages_environment();

}  // namespace gpubench
