// A record's id and the names of its enums as they appear in profiles and on the console. The
// names are part of the profile schema: renaming one is an incompatible change
// (docs/profile-schema.md).
#include <fmt/format.h>

#include "gpubench/record.hpp"

namespace gpubench {

const char* to_string(record_status s) {
  switch (s) {
    case record_status::passed: return "passed";
    case record_status::failed: return "failed";
    case record_status::error: return "error";
    case record_status::skipped: return "skipped";
    case record_status::profiled: return "profiled";
  }
  return "?";
}

const char* to_string(stop_reason r) {
  switch (r) {
    case stop_reason::converged: return "converged";
    case stop_reason::max_samples: return "max_samples";
    case stop_reason::timeout: return "timeout";
    case stop_reason::single_run: return "single_run";
  }
  return "?";
}

const char* to_string(time_source s) {
  switch (s) {
    case time_source::gpu_busy: return "gpu_busy";
    case time_source::cuda_events: return "cuda_events";
    case time_source::host_wall: return "host_wall";
    case time_source::cuda_events_net: return "cuda_events_net";
  }
  return "?";
}

std::string record::id() const { return fmt::format("ch{:02d}/{}/{}[{}]", chapter, pair, variant, size.to_string()); }

record_id_parts split_record_id(const std::string& id) {
  // The variant runs from the last '/' before the size's '[' to that '['.
  const std::size_t bracket = id.find('[');
  const std::string head = id.substr(0, bracket);
  const std::size_t slash = head.rfind('/');
  if (slash == std::string::npos || slash + 1 == head.size()) return {id, ""};
  const std::string size = bracket == std::string::npos ? "" : " " + id.substr(bracket);
  return {head.substr(0, slash) + size, head.substr(slash + 1)};
}

}  // namespace gpubench
