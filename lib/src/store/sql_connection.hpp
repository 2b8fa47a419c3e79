#pragma once
// One connection to the run store's database, SQLite or PostgreSQL, behind one small interface so
// that the schema, its migrations and every query are written once (run_store.cpp, schema.cpp).
// Every statement is prepared and its values are bound, never spliced into the SQL text: names
// that come from profiles are only ever data. CUDA-free.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "gpubench/store.hpp"

namespace gpubench::detail {

/// A bound value: SQL NULL, an integer, a real or text.
using sql_value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

/// One result row; columns in the order the SELECT names them.
class sql_row {
 public:
  explicit sql_row(std::vector<sql_value> columns) : columns_(std::move(columns)) {}
  [[nodiscard]] bool is_null(std::size_t i) const;
  [[nodiscard]] std::string text(std::size_t i) const;      ///< "" for NULL
  [[nodiscard]] std::int64_t integer(std::size_t i) const;  ///< 0 for NULL
  [[nodiscard]] std::optional<double> real(std::size_t i) const;
  [[nodiscard]] std::size_t size() const { return columns_.size(); }

 private:
  std::vector<sql_value> columns_;
};

/// The SQL both databases accept, with the few differences named here. Statements are written
/// with PostgreSQL's numbered parameters ($1, $2, ...); the SQLite connection binds them as ?1,
/// ?2, ..., which SQLite reads the same way.
class sql_connection {
 public:
  virtual ~sql_connection() = default;
  /// A transaction that holds the write lock from its first statement (SQLite: BEGIN IMMEDIATE;
  /// PostgreSQL: BEGIN, plus an advisory lock when `exclusive`, for migrations).
  virtual void begin_write(bool exclusive) = 0;
  /// A read-only snapshot: every query until commit() sees the same state of the store.
  virtual void begin_read() = 0;
  virtual void commit() = 0;
  /// Never throws: called on the way out of a failed transaction.
  virtual void rollback() noexcept = 0;
  /// Prepares `sql` once per connection (later calls reuse it), binds `params` in order as $1,
  /// $2, ... and returns every row.
  virtual std::vector<sql_row> query(std::string_view sql, std::span<const sql_value> params = {}) = 0;
  /// Whether a table of this name exists (in the schema that unqualified names resolve to).
  virtual bool has_table(const std::string& name) = 0;
  /// Every table of the database, for "is this someone else's database?" (SQLite only; empty on
  /// PostgreSQL, whose databases are shared with other applications by design).
  virtual std::vector<std::string> foreign_tables() = 0;
  /// Settings that change the database itself, made once its schema is known to be ours and
  /// current (SQLite: the WAL journal), so that a store this gpubench refuses stays untouched.
  virtual void settle() = 0;
  /// The column type of an auto-numbered primary key.
  [[nodiscard]] virtual const char* id_column() const = 0;
  [[nodiscard]] virtual store_kind kind() const = 0;
};

/// Opens (and for a writer, creates) the database. Errors come back as gpubench::error with exit
/// code 2 and a message naming the store: unreachable, not a database, corrupt, locked.
std::unique_ptr<sql_connection> open_sqlite(const store_location& where, const store_open_options& o);
std::unique_ptr<sql_connection> open_postgresql(const store_location& where, const store_open_options& o);

/// Runs `body` inside a transaction of `db`; rolls back and rethrows on any exception.
template <class F>
auto in_transaction(sql_connection& db, bool write, F&& body) {
  if (write) db.begin_write(false);
  else db.begin_read();
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      db.commit();
    } else {
      auto result = body();
      db.commit();
      return result;
    }
  } catch (...) {
    db.rollback();
    throw;
  }
}

}  // namespace gpubench::detail
