// A pair's id, and the names of its timing and cache modes as they appear in profiles and on the
// console. The names are part of the profile schema: renaming one is an incompatible change
// (docs/profile-schema.md).
#include <fmt/format.h>

#include "gpubench/registry.hpp"

namespace gpubench {

const char* to_string(timing_method m) {
  switch (m) {
    case timing_method::cuda_events: return "cuda_events";
    case timing_method::host_wall: return "host_wall";
  }
  return "?";
}

const char* to_string(cache_mode m) {
  switch (m) {
    case cache_mode::cold: return "cold";
    case cache_mode::hot: return "hot";
  }
  return "?";
}

std::string pair_def::id() const { return fmt::format("ch{:02d}/{}", chapter, name); }
std::string absent_pair::id() const { return fmt::format("ch{:02d}/{}", chapter, name); }

}  // namespace gpubench
