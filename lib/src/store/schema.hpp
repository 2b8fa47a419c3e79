#pragma once
// The run store's schema: its versions as migrations, applied in order, each in the same
// transaction as the version it sets. CUDA-free.
#include <functional>
#include <string>
#include <vector>

#include "store/sql_connection.hpp"

namespace gpubench::detail {

/// What takes a store from version `version - 1` to `version`: SQL statements, given the dialect.
struct migration {
  int version = 0;
  std::function<std::vector<std::string>(const sql_connection&)> statements;
};

/// Every migration of this gpubench, oldest first; the last one's version is kStoreSchemaVersion.
const std::vector<migration>& store_migrations();

/// The store's schema version: 0 when it has no gpubench tables yet.
int schema_version(sql_connection& db);

/// Brings the store to the newest version of `steps` (under the migration lock, so concurrent
/// openers migrate once). Refuses with usage_error, changing nothing: a schema newer than the
/// newest step, and (SQLite) a database holding another application's tables.
void migrate(sql_connection& db, const store_location& where, const std::vector<migration>& steps = store_migrations());

}  // namespace gpubench::detail
