// The run store in one SQLite file (store/sql_connection.hpp), through SQLiteCpp. WAL journal, so
// that readers never wait for a writer and a writer killed at any point leaves the last committed
// state; BEGIN IMMEDIATE for writes, so that concurrent writers queue on the busy timeout instead
// of failing when a read lock cannot be upgraded (https://www.sqlite.org/wal.html,
// https://www.sqlite.org/lang_transaction.html).
#include <sqlite3.h>

#include <cmath>
#include <map>
#include <system_error>

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "store/sql_connection.hpp"

namespace gpubench::detail {

namespace {

/// Every SQLite failure as an exit-2 error naming the store and what to do.
[[noreturn]] void fail(const store_location& where, const SQLite::Exception& e, double timeout_s) {
  const std::string file = where.display();
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw usage_error(fmt::format("the run store {} stayed locked by another gpubench for {:g} s: wait for it, or "
                                    "set GPUBENCH_DB_TIMEOUT to wait longer (seconds)",
                                    file, timeout_s));
    case SQLITE_NOTADB:
      throw usage_error(fmt::format("{} is not a SQLite database (or is encrypted): gpubench leaves it as it is; give "
                                    "--db another file, or move this one away",
                                    file));
    case SQLITE_CORRUPT:
      throw usage_error(fmt::format("the run store {} is corrupt ({}): gpubench leaves it as it is; restore it from a "
                                    "copy, or move it away and start a new one (`sqlite3 {} .recover` may save runs)",
                                    file, e.getErrorStr(), file));
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      throw usage_error(fmt::format("cannot write the run store {} ({}): check the permissions of the file and its "
                                    "directory, or give --db another file",
                                    file, e.getErrorStr()));
    case SQLITE_FULL: throw usage_error(fmt::format("the run store {} cannot grow: the disk is full", file));
    default: throw usage_error(fmt::format("the run store {}: {}", file, e.what()));
  }
}

class sqlite_connection final : public sql_connection {
 public:
  sqlite_connection(const store_location& where, const store_open_options& o)
      : where_(where), timeout_s_(o.timeout_s), db_(open_file(where, o)) {
    // Reading the schema reads the header: a file that is not a database fails here, and nothing
    // is written to it.
    query("PRAGMA foreign_keys=ON");
    query("SELECT count(*) FROM sqlite_master");
  }

  void settle() override {
    if (query("PRAGMA journal_mode").front().text(0) != "wal") query("PRAGMA journal_mode=WAL");
  }

  void begin_write(bool /*exclusive*/) override { query("BEGIN IMMEDIATE"); }
  void begin_read() override { query("BEGIN"); }
  void commit() override { query("COMMIT"); }
  void rollback() noexcept override {
    // A failed statement may have ended the transaction already (SQLite rolls back on some errors).
    if (sqlite3_get_autocommit(db_.getHandle()) != 0) return;
    try {
      db_.exec("ROLLBACK");
    } catch (...) {  // the connection is broken: the transaction ends with it, uncommitted
    }
  }

  std::vector<sql_row> query(std::string_view sql, std::span<const sql_value> params = {}) override {
    SQLite::Statement* used = nullptr;
    try {
      SQLite::Statement& st = prepared(sql);
      used = &st;
      // tryReset: reset() would report again the error that ended the statement's last use (a
      // lock that timed out, say), which is over.
      (void)st.tryReset();
      st.clearBindings();
      for (std::size_t i = 0; i < params.size(); ++i) {
        const int index = static_cast<int>(i + 1);
        std::visit(
            [&](const auto& v) {
              using T = std::decay_t<decltype(v)>;
              if constexpr (std::is_same_v<T, std::nullptr_t>) st.bind(index);
              else if constexpr (std::is_same_v<T, std::int64_t>) st.bind(index, static_cast<int64_t>(v));
              else st.bind(index, v);
            },
            params[i]);
      }
      std::vector<sql_row> rows;
      while (st.executeStep()) {
        std::vector<sql_value> columns;
        columns.reserve(static_cast<std::size_t>(st.getColumnCount()));
        for (int c = 0; c < st.getColumnCount(); ++c) {
          const SQLite::Column col = st.getColumn(c);
          switch (col.getType()) {
            case SQLITE_INTEGER: columns.emplace_back(static_cast<std::int64_t>(col.getInt64())); break;
            case SQLITE_FLOAT: columns.emplace_back(col.getDouble()); break;
            case SQLITE_NULL: columns.emplace_back(nullptr); break;
            default: columns.emplace_back(col.getString()); break;
          }
        }
        rows.emplace_back(std::move(columns));
      }
      (void)st.tryReset();  // release the statement's read lock now, not at its next use
      return rows;
    } catch (const SQLite::Exception& e) {
      // A statement that failed holds what it had begun (a read snapshot, say) until it is reset:
      // a later COMMIT would find it still running.
      if (used != nullptr) (void)used->tryReset();
      fail(where_, e, timeout_s_);
    }
  }

  bool has_table(const std::string& name) override {
    const sql_value p[] = {name};
    return !query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1", p).empty();
  }

  std::vector<std::string> foreign_tables() override {
    std::vector<std::string> out;
    for (const auto& row : query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' "
                                 "ESCAPE '\\' AND name NOT LIKE 'gpubench\\_%' ESCAPE '\\'"))
      out.push_back(row.text(0));
    return out;
  }

  [[nodiscard]] const char* id_column() const override { return "INTEGER PRIMARY KEY AUTOINCREMENT"; }
  [[nodiscard]] store_kind kind() const override { return store_kind::sqlite; }

 private:
  static SQLite::Database open_file(const store_location& where, const store_open_options& o) {
    namespace fs = std::filesystem;
    const fs::path file = where.target;
    std::error_code ec;
    if (!fs::exists(file, ec)) {
      if (!o.create)
        throw usage_error(fmt::format("no run store at {}: `gpubench run` records every run there, and `gpubench "
                                      "history import FILE...` adds saved profiles (or give --db)",
                                      where.display()));
      if (const fs::path dir = file.parent_path(); !dir.empty()) {
        fs::create_directories(dir, ec);
        if (ec)
          throw usage_error(fmt::format("cannot create the run store's directory {}: {}", dir.string(), ec.message()));
      }
    } else if (!fs::is_regular_file(file, ec)) {
      throw usage_error(fmt::format("the run store {} is not a regular file: give --db a file", where.display()));
    }
    try {
      const int flags = SQLite::OPEN_READWRITE | (o.create ? SQLite::OPEN_CREATE : 0);
      return SQLite::Database(file.string(), flags, static_cast<int>(std::lround(o.timeout_s * 1000)));
    } catch (const SQLite::Exception& e) {
      fail(where, e, o.timeout_s);
    }
  }

  SQLite::Statement& prepared(std::string_view sql) {
    const auto it = statements_.find(sql);
    if (it != statements_.end()) return *it->second;
    // $N → ?N: SQLite reads ?N as the N-th bound value, as PostgreSQL reads $N.
    std::string text(sql);
    for (std::size_t i = 0; i + 1 < text.size(); ++i)
      if (text[i] == '$' && text[i + 1] >= '0' && text[i + 1] <= '9') text[i] = '?';
    auto st = std::make_unique<SQLite::Statement>(db_, text);
    return *statements_.emplace(std::string(sql), std::move(st)).first->second;
  }

  store_location where_;
  double timeout_s_;
  SQLite::Database db_;
  std::map<std::string, std::unique_ptr<SQLite::Statement>, std::less<>> statements_;
};

}  // namespace

std::unique_ptr<sql_connection> open_sqlite(const store_location& where, const store_open_options& o) {
  return std::make_unique<sqlite_connection>(where, o);
}

}  // namespace gpubench::detail
