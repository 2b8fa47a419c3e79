// See gpubench/host_pages.hpp.
#include "gpubench/host_pages.hpp"

#include <cstdlib>

namespace gpubench {

// glibc serves a buffer of 128 KiB to 32 MiB from a mapping of its own only until such a mapping is
// freed: its threshold then rises to the freed size, and from there on buffers of that size come
// from the heap, each on pages an earlier state freed. A worker's pageable copies would keep their
// host pages round after round, and their cost would be a level of the process
// (docs/measurement.md, "Host pages").
std::string tunables_for_fresh_host_pages(std::string_view current) {
  for (std::size_t start = 0; start <= current.size();) {
    std::size_t end = current.find(':', start);
    if (end == std::string_view::npos) end = current.size();
    if (current.substr(start, end - start).starts_with("glibc.malloc.mmap_threshold=")) return std::string(current);
    start = end + 1;
  }
  std::string out(current);
  if (!out.empty()) out += ':';
  out += kFreshHostPagesTunable;
  return out;
}

std::vector<std::string> fresh_host_pages_environment() {
  const char* current = std::getenv("GLIBC_TUNABLES");
  return {"GLIBC_TUNABLES=" + tunables_for_fresh_host_pages(current != nullptr ? current : "")};
}

}  // namespace gpubench
