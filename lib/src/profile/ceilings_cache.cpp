// The per-GPU ceilings cache: `gpubench device --ceilings` measures once per GPU (keyed by its
// UUID) and every later run embeds the cached numbers in its profile. Pure C++ (CPU core): a
// cache file is plain JSON, readable and testable anywhere.
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "gpubench/ceilings_cache.hpp"
#include "gpubench/compute_peaks.hpp"
#include "gpubench/error.hpp"
#include "gpubench/input_file.hpp"
#include "gpubench/profile.hpp"
#include "gpubench/strict_json.hpp"
#include "gpubench/text_file.hpp"

namespace gpubench {

namespace fs = std::filesystem;

namespace {

constexpr const char* kCacheSchema = "gpubench-ceilings";
constexpr int kCacheSchemaVersion = 1;

/// An environment variable, when set and not empty.
std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

/// The UUID as a file-name part: anything but letters, digits, '-', '_' and '.' becomes '_', so
/// an odd UUID string can never name a path outside the cache directory.
std::string file_safe(const std::string& s) {
  std::string out = s;
  for (char& ch : out) {
    const bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                    ch == '_' || ch == '.';
    if (!ok) ch = '_';
  }
  return out;
}

fs::path cache_file(const device_info& d) { return ceilings_cache_dir() / ("ceilings-" + file_safe(d.uuid) + ".json"); }

}  // namespace

fs::path ceilings_cache_dir() {
  if (const auto dir = env("GPUBENCH_CACHE_DIR")) return fs::path(*dir);
  if (const auto xdg = env("XDG_CACHE_HOME")) return fs::path(*xdg) / "gpubench";
  if (const auto home = env("HOME")) return fs::path(*home) / ".cache" / "gpubench";
  // No HOME at all (a bare container): the working directory is the last place left.
  return fs::path(".cache") / "gpubench";
}

std::optional<ceilings> load_cached_ceilings(const device_info& d, std::string* problem) {
  auto fail = [&](const std::string& why) -> std::optional<ceilings> {
    if (problem != nullptr) *problem = why;
    return std::nullopt;
  };
  if (problem != nullptr) problem->clear();
  if (d.uuid.empty()) return fail("the device reports no UUID, so it has no ceilings cache");
  const fs::path path = cache_file(d);
  const std::string where = "ceilings cache '" + path.string() + "'";
  try {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      if (ec) return fail("cannot look for the " + where + ": " + ec.message());
      return std::nullopt;  // nothing cached yet: not a problem
    }
    // The gate every reader uses: a regular file of bounded size, strict JSON (no repeated keys).
    nlohmann::ordered_json j;
    try {
      j = parse_strict_json(read_input_file(path, "ceilings cache"), where);
    } catch (const error& e) {
      return fail(std::string(e.what()) + " (ignored; it will be measured again)");
    }
    if (!j.is_object()) return fail(where + " is not a JSON object (ignored)");
    if (!j.contains("schema") || !j["schema"].is_string() || j["schema"].get<std::string>() != kCacheSchema)
      return fail(where + " has no \"schema\": \"" + kCacheSchema + "\" (ignored)");
    if (!j.contains("schema_version") || !j["schema_version"].is_number_integer() ||
        j["schema_version"].get<long long>() != kCacheSchemaVersion)
      return fail(where + " has an unsupported schema_version (this gpubench reads " +
                  std::to_string(kCacheSchemaVersion) + "; ignored)");
    if (!j.contains("device") || !j["device"].is_object() || !j["device"].contains("uuid") ||
        !j["device"]["uuid"].is_string())
      return fail(where + " names no device UUID (ignored)");
    const std::string uuid = j["device"]["uuid"].get<std::string>();
    if (uuid != d.uuid) return fail(where + " belongs to GPU " + uuid + ", not " + d.uuid + " (ignored)");
    if (!j.contains("ceilings")) return fail(where + " holds no \"ceilings\" (ignored)");

    ceilings c = ceilings_from_json(j["ceilings"], path.string());
    if (c.source != "measured") return fail(where + " holds ceilings of source '" + c.source + "', not measured ones (ignored)");
    fill_missing_peaks(c, d);  // what was not measured (INT8, FP64 tensor) comes from the device facts
    return c;
  } catch (const std::exception& e) {
    return fail(where + " is damaged (ignored): " + e.what());
  }
}

void store_cached_ceilings(const device_info& d, const ceilings& c) {
  if (d.uuid.empty()) throw runtime_error("cannot cache ceilings: the device reports no UUID");
  const fs::path dir = ceilings_cache_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw runtime_error("cannot create the ceilings cache directory '" + dir.string() + "': " + ec.message() +
                              " (set GPUBENCH_CACHE_DIR to a writable directory)");
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["schema"] = kCacheSchema;
  j["schema_version"] = kCacheSchemaVersion;
  j["device"] = {{"name", d.name}, {"uuid", d.uuid}};
  j["ceilings"] = to_json(c);
  // gpubench's own file, which nobody named: replace it whatever its mode (a link is followed).
  write_text_file(cache_file(d).string(), j.dump(2) + "\n", /*force=*/true);
}

}  // namespace gpubench
