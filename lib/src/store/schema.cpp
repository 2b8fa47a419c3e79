// The run store's schema and its migrations (store/schema.hpp; docs/store.md, "Schema").
//
// gpubench_meta    key/value: schema_version
// gpubench_runs    one row per stored profile: the JSON document and the columns queried on
// gpubench_refs    branch and tag names a run was recorded under
// gpubench_records one row per record of a run: its id and median, the series `history` reads
#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "store/schema.hpp"

namespace gpubench::detail {

namespace {

std::vector<std::string> version_1(const sql_connection& db) {
  return {
      "CREATE TABLE gpubench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
      fmt::format("CREATE TABLE gpubench_runs ("
                  "id {}, "
                  "content_hash TEXT NOT NULL UNIQUE, "
                  "recorded_at TEXT NOT NULL, "
                  "started_at TEXT NOT NULL, "
                  "finished_at TEXT NOT NULL, "
                  "complete INTEGER NOT NULL, "
                  "mode TEXT NOT NULL, "
                  "gpu_model TEXT NOT NULL, "
                  "gpu_uuid TEXT NOT NULL, "
                  "host TEXT NOT NULL, "
                  "git_sha TEXT NOT NULL, "
                  "gpubench_version TEXT NOT NULL, "
                  "chapters TEXT NOT NULL, "  // ",1,2,": a chapter matches as LIKE '%,N,%'
                  "options_digest TEXT NOT NULL, "
                  "record_count INTEGER NOT NULL, "
                  "document TEXT NOT NULL)",
                  db.id_column()),
      "CREATE INDEX gpubench_runs_started ON gpubench_runs (started_at)",
      "CREATE INDEX gpubench_runs_gpu ON gpubench_runs (gpu_model, options_digest, started_at)",
      "CREATE INDEX gpubench_runs_uuid ON gpubench_runs (gpu_uuid, started_at)",
      "CREATE INDEX gpubench_runs_sha ON gpubench_runs (git_sha)",
      "CREATE TABLE gpubench_refs ("
      "run_id BIGINT NOT NULL REFERENCES gpubench_runs (id) ON DELETE CASCADE, "
      "name TEXT NOT NULL, "
      "kind TEXT NOT NULL, "
      "PRIMARY KEY (run_id, name))",
      "CREATE INDEX gpubench_refs_name ON gpubench_refs (name)",
      "CREATE TABLE gpubench_records ("
      "run_id BIGINT NOT NULL REFERENCES gpubench_runs (id) ON DELETE CASCADE, "
      "record_id TEXT NOT NULL, "
      "chapter INTEGER NOT NULL, "
      "status TEXT NOT NULL, "
      "median_s DOUBLE PRECISION, "
      "PRIMARY KEY (run_id, record_id))",
      "CREATE INDEX gpubench_records_record ON gpubench_records (record_id)",
  };
}

}  // namespace

const std::vector<migration>& store_migrations() {
  static const std::vector<migration> steps = {{1, version_1}};
  return steps;
}

int schema_version(sql_connection& db) {
  if (!db.has_table("gpubench_meta")) return 0;
  const auto rows = db.query("SELECT value FROM gpubench_meta WHERE key = 'schema_version'");
  if (rows.empty()) return 0;
  const std::string text = rows.front().text(0);
  try {
    std::size_t used = 0;
    const int v = std::stoi(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw usage_error(fmt::format("the run store's schema version reads '{}', not a number: it was not written by "
                                "gpubench, or it is damaged",
                                text.substr(0, 40)));
}

void migrate(sql_connection& db, const store_location& where, const std::vector<migration>& steps) {
  const int newest = steps.empty() ? 0 : steps.back().version;
  const auto refuse_newer = [&](int version) {
    if (version > newest)
      throw usage_error(fmt::format("the run store {} has schema version {}, newer than this gpubench knows ({}): a "
                                    "newer gpubench wrote it; use that one, or give --db another store. Nothing was "
                                    "changed",
                                    where.display(), version, newest));
  };
  // The common case reads only: a store at the newest version needs no lock.
  const int seen = in_transaction(db, false, [&] { return schema_version(db); });
  refuse_newer(seen);
  if (seen == newest) return;
  db.begin_write(true);
  try {
    const int version = schema_version(db);  // again, under the lock: another opener may have migrated
    refuse_newer(version);
    if (version == 0) {
      // An empty SQLite file becomes a store; someone else's database does not.
      const auto others = db.foreign_tables();
      if (!others.empty())
        throw usage_error(fmt::format("{} is a database of another application (it holds table '{}'): gpubench "
                                      "leaves it as it is; give --db a file of its own",
                                      where.display(), others.front()));
    }
    for (const migration& step : steps) {
      if (step.version <= version) continue;
      for (const std::string& sql : step.statements(db)) db.query(sql);
      const sql_value p[] = {std::to_string(step.version)};
      db.query("INSERT INTO gpubench_meta (key, value) VALUES ('schema_version', $1) "
               "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
               p);
    }
    db.commit();
  } catch (...) {
    db.rollback();
    throw;
  }
}

}  // namespace gpubench::detail
