#pragma once
/// The JSON profile: one run's provenance, options, ceilings and records. Schema documented in
/// docs/profile-schema.md; bump kSchemaVersion on any incompatible change.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpubench/device_info.hpp"
#include "gpubench/record.hpp"

namespace gpubench {

inline constexpr const char* kProfileSchema = "gpubench-profile";
inline constexpr int kProfileSchemaVersion = 2;  ///< 2: timing.source, span_s, rounds (1 still reads)

struct provenance {
  std::string gpubench_version;
  std::string git_sha;
  std::vector<std::string> argv;
  std::string started_at;   ///< ISO 8601 UTC
  std::string finished_at;  ///< empty while the run is in progress
  std::string hostname;
  std::string os;
  device_info device;
};

struct profile {
  provenance prov;
  nlohmann::ordered_json options = nlohmann::ordered_json::object();  ///< the run options, as given
  ceilings ceil;
  bool complete = false;    ///< false while the run is in progress or if it was interrupted
  std::vector<record> records;
};

nlohmann::ordered_json to_json(const profile& p);
/// The device facts as they appear under provenance.device (also `gpubench device --json`).
nlohmann::ordered_json to_json(const device_info& d);
/// Ceilings as they appear under "ceilings" (also the per-GPU ceilings cache).
nlohmann::ordered_json to_json(const ceilings& c);
/// Reads ceilings back (from a profile's "ceilings" or the cache); throws usage_error naming `source`.
ceilings ceilings_from_json(const nlohmann::ordered_json& j, const std::string& source);
/// Validates and converts; throws usage_error naming `source` and the JSON path of the problem.
/// Takes ordered_json: a record's size axes keep their declaration order (part of its id).
profile profile_from_json(const nlohmann::ordered_json& j, const std::string& source);
/// A worker's reply (gpubench/worker_protocol.hpp): read as strictly, but its derived fields are
/// not checked, since a round's records carry one round's samples and the coordinator derives
/// every field again from all rounds.
profile worker_profile_from_json(const nlohmann::ordered_json& j, const std::string& source);

/// Writes atomically: a temporary file beside `path`, then rename. Throws runtime_error; refuses
/// (usage_error) a read-only file or a symbolic link unless `force` (gpubench/text_file.hpp).
void write_profile(const std::filesystem::path& path, const profile& p, bool force = false);
/// Reads and validates; throws usage_error (exit 2) naming the file and field.
profile read_profile(const std::filesystem::path& path);

/// gpubench version and the git sha it was built from.
std::string version_string();
std::string build_git_sha();
/// Current time, ISO 8601 UTC with seconds.
std::string now_utc_iso8601();

}  // namespace gpubench
