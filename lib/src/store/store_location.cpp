// Where the run store is: --db, $GPUBENCH_DB, or the XDG data directory (gpubench/store.hpp).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/store.hpp"

namespace gpubench {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// The XDG Base Directory Specification: $XDG_DATA_HOME when it is an absolute path, else
// $HOME/.local/share.
std::filesystem::path default_store_file() {
  const std::string xdg = env("XDG_DATA_HOME");
  if (!xdg.empty() && xdg.front() == '/') return std::filesystem::path(xdg) / "gpubench" / "runs.db";
  const std::string home = env("HOME");
  if (home.empty())
    throw usage_error("the run store's default place is $XDG_DATA_HOME/gpubench or ~/.local/share/gpubench, and "
                      "neither XDG_DATA_HOME nor HOME is set: give --db FILE, --db postgresql://... or --db none");
  return std::filesystem::path(home) / ".local" / "share" / "gpubench" / "runs.db";
}

}  // namespace

std::string store_location::display() const {
  if (kind == store_kind::none) return "none";
  if (kind != store_kind::postgresql) return target;
  // postgresql://user:password@host/db?password=...: keep the user, hide the password (logs are shared).
  std::string shown = target;
  const auto scheme = shown.find("://");
  const auto at = shown.find('@', scheme + 3);
  const auto colon = shown.find(':', scheme + 3);
  if (at != std::string::npos && colon < at && shown.find('/', scheme + 3) > at)
    shown.replace(colon + 1, at - colon - 1, "***");
  for (auto pw = shown.find("password="); pw != std::string::npos; pw = shown.find("password=", pw + 1)) {
    const auto end = shown.find('&', pw);
    shown.replace(pw + 9, end == std::string::npos ? std::string::npos : end - pw - 9, "***");
  }
  return shown;
}

store_location resolve_store_location(const std::string& db_option) {
  store_location where;
  std::string value = db_option;
  where.origin = "--db";
  if (value.empty()) {
    value = env("GPUBENCH_DB");
    where.origin = "GPUBENCH_DB";
  }
  if (value.empty()) {
    where.kind = store_kind::sqlite;
    where.target = default_store_file().string();
    where.origin = "default";
    return where;
  }
  if (value == "none") return where;  // kind none
  if (starts_with(value, "postgresql://") || starts_with(value, "postgres://")) {
    where.kind = store_kind::postgresql;
  } else if (value.find("://") != std::string::npos) {
    throw usage_error(fmt::format("{} {}: a store is a SQLite file, a postgresql://... URL or 'none'", where.origin,
                                  value.substr(0, value.find("://") + 3) + "..."));
  } else {
    where.kind = store_kind::sqlite;
  }
  where.target = value;
  return where;
}

double store_timeout_from_env() {
  const std::string text = env("GPUBENCH_DB_TIMEOUT");
  if (text.empty()) return 30;
  char* end = nullptr;
  errno = 0;
  const double s = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(s) || s <= 0 || s > 86400)
    throw usage_error(fmt::format("GPUBENCH_DB_TIMEOUT={}: give the seconds to wait for the store's lock, a number "
                                  "above 0 and at most 86400",
                                  text));
  return s;
}

}  // namespace gpubench
