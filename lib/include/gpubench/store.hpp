#pragma once
/// The run store: every profile `gpubench run` writes, kept with the columns people query on, in
/// SQLite (one file, the default) or PostgreSQL (one server for a team). The profile is stored
/// as its JSON document, validated on the way in and out, so a stored run exported again is the
/// profile that was recorded; the indexed columns beside it (time, GPU, git sha, branch or tag,
/// chapters, options digest, content hash) are derived from it. Schema and migrations:
/// lib/src/store/schema.cpp; docs/store.md. CUDA-free.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpubench/profile.hpp"

namespace gpubench {

namespace detail {
class sql_connection;
}

/// The store's schema version this gpubench writes; a store of a newer version is refused.
inline constexpr int kStoreSchemaVersion = 1;

enum class store_kind { none, sqlite, postgresql };

/// Where the store is.
struct store_location {
  store_kind kind = store_kind::none;
  std::string target;  ///< the SQLite file, or the PostgreSQL URL
  std::string origin;  ///< what chose it: "--db", "GPUBENCH_DB" or "default"
  /// For messages and logs: the file, or the URL with any password replaced by "***".
  [[nodiscard]] std::string display() const;
};

/// `--db VALUE` when given (non-empty), else $GPUBENCH_DB, else the default file
/// $XDG_DATA_HOME/gpubench/runs.db ($HOME/.local/share/gpubench/runs.db without XDG_DATA_HOME).
/// "none" turns the store off; postgresql://… or postgres://… is a server; anything else a file.
/// Throws usage_error when no default can be formed (neither XDG_DATA_HOME nor HOME set).
store_location resolve_store_location(const std::string& db_option);

struct store_open_options {
  bool create = false;    ///< create a missing SQLite file (and its directory); else "no store" (exit 2)
  double timeout_s = 30;  ///< wait this long for another writer's lock, then fail with exit 2
};
/// $GPUBENCH_DB_TIMEOUT in seconds (a positive number), else 30. Throws usage_error when set to
/// something else.
double store_timeout_from_env();

/// A branch or tag name a run was recorded under (gpubench/run_refs.hpp says how they are found).
struct run_ref {
  std::string name;
  std::string kind;  ///< "branch" or "tag"
  bool operator==(const run_ref&) const = default;
};

/// One stored run: the indexed columns (the document itself comes from run_store::document).
struct stored_run {
  std::int64_t id = 0;
  std::string started_at, finished_at;  ///< the profile's, ISO 8601 UTC
  std::string recorded_at;              ///< when it was stored
  std::string gpu_model, gpu_uuid, host, git_sha, gpubench_version;
  std::vector<int> chapters;   ///< of its records, ascending
  std::string options_digest;  ///< profile_options_digest() of its options
  std::string content_hash;    ///< profile_content_hash() of its document
  std::string mode;            ///< options.mode: "measure" or "profile"
  std::vector<run_ref> refs;
  std::size_t records = 0;
  bool complete = false;
};

/// Filters for run_store::runs; unset fields match everything.
struct run_query {
  std::optional<std::string> gpu_model;       ///< exact
  std::optional<std::string> gpu_model_like;  ///< case-insensitive substring ("H100")
  std::optional<std::string> gpu_uuid;
  std::optional<std::string> host;
  std::optional<std::string> options_digest;
  std::optional<std::string> content_hash;    ///< the run holding this very document
  std::optional<std::string> git_sha_prefix;  ///< the start of the sha (at least 4 characters)
  std::optional<std::string> ref;             ///< a branch or tag name, exact
  std::optional<int> chapter;                 ///< runs holding records of this chapter
  std::optional<std::string> started_before;  ///< strictly earlier start (ISO 8601 compares as text)
  std::optional<std::int64_t> exclude_id;
  std::optional<std::string> mode;  ///< "measure" leaves out `run --profile` runs
  bool complete_only = false;
  std::size_t limit = 0;  ///< 0: every match
};

/// One run's value of one record: its median, seconds.
struct series_point {
  std::int64_t run_id = 0;
  std::string started_at, git_sha;
  double median_s = 0;
};

/// One record's values over the runs of one GPU model and one set of options, oldest first.
struct record_series {
  std::string record_id;
  int chapter = 0;
  std::string gpu_model, options_digest;
  std::vector<series_point> points;
};

/// Filters for run_store::series; unset fields match everything. Only passed, timed records of
/// complete runs make points.
struct series_query {
  std::optional<int> chapter;
  std::optional<std::string> record_prefix;   ///< a record id, or the start of one ("ch01/batched_gemm")
  std::optional<std::string> gpu_model;       ///< exact
  std::optional<std::string> gpu_model_like;  ///< case-insensitive substring
  std::optional<std::string> options_digest;
};

struct add_result {
  std::int64_t id = 0;
  bool added = false;  ///< false: this document was stored already (as run `id`)
};

class run_store {
 public:
  /// Opens the store, creating or migrating its schema as needed (in one transaction, under a
  /// lock, so concurrent openers agree). Throws usage_error (exit 2) for: no store here (unless
  /// `create`), an unreachable server, a file that is not a SQLite database or is corrupt, a
  /// database of another application, a schema newer than this gpubench, a lock held past the
  /// timeout. Nothing of an existing store is changed on the way to any of these errors.
  static std::unique_ptr<run_store> open(const store_location& where, const store_open_options& options);
  /// Whether a SQLite store exists at `where` (always true for a server, which is asked only
  /// when opened).
  static bool exists(const store_location& where);
  ~run_store();
  run_store(const run_store&) = delete;
  run_store& operator=(const run_store&) = delete;

  /// Stores a profile: `document` is its JSON (validated here against `p`'s reading of it, and
  /// stored as it is), `refs` the branch and tag names to file it under. A document stored already
  /// (same content hash) is not stored again: its refs are added to the existing run. One
  /// transaction: a writer stopped at any point leaves the run stored whole or not at all.
  add_result add(const nlohmann::ordered_json& document, const std::vector<run_ref>& refs = {});
  /// Runs matching `q`, newest start first (ties: newest id first).
  std::vector<stored_run> runs(const run_query& q);
  std::optional<stored_run> run(std::int64_t id);
  /// The stored JSON document of run `id`, validated again (usage_error naming the run if the
  /// store holds something that is no longer a valid profile).
  nlohmann::ordered_json document(std::int64_t id);
  profile load(std::int64_t id);
  /// Every record's series matching `q`, by record id, GPU model and options digest.
  std::vector<record_series> series(const series_query& q);
  /// How many runs the store holds.
  std::size_t count();
  [[nodiscard]] const store_location& location() const { return where_; }

 private:
  run_store(store_location where, std::unique_ptr<detail::sql_connection> db);
  store_location where_;
  std::unique_ptr<detail::sql_connection> db_;
};

/// SHA-256 (hex) of the document's compact JSON text: the identity of a stored profile.
std::string profile_content_hash(const nlohmann::ordered_json& document);
/// SHA-256 (hex, first 16 characters) of the options that make two runs comparable: the
/// profile's options without those that never change what is measured (seed, device, confirm),
/// keys sorted. Two runs with the same digest ran the same selection with the same settings.
std::string profile_options_digest(const nlohmann::ordered_json& options);

}  // namespace gpubench
