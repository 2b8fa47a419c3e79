// Storing and finding runs (gpubench/store.hpp): the queries, written once for both databases.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/store.hpp"
#include "store/schema.hpp"
#include "store/sql_connection.hpp"

namespace gpubench {

using detail::sql_row;
using detail::sql_value;

namespace {

constexpr const char* kRunColumns =
    "id, started_at, finished_at, recorded_at, gpu_model, gpu_uuid, host, git_sha, gpubench_version, chapters, "
    "options_digest, content_hash, mode, record_count, complete";

std::string chapters_column(const std::vector<int>& chapters) {
  std::string out = ",";
  for (int c : chapters) out += std::to_string(c) + ",";
  return out;
}

std::vector<int> chapters_of(const std::string& column) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start < column.size()) {
    const auto end = column.find(',', start);
    const std::string part = column.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty() && part.size() < 4 && std::all_of(part.begin(), part.end(), ::isdigit))
      out.push_back(std::stoi(part));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

stored_run run_of(const sql_row& r) {
  stored_run s;
  s.id = r.integer(0);
  s.started_at = r.text(1);
  s.finished_at = r.text(2);
  s.recorded_at = r.text(3);
  s.gpu_model = r.text(4);
  s.gpu_uuid = r.text(5);
  s.host = r.text(6);
  s.git_sha = r.text(7);
  s.gpubench_version = r.text(8);
  s.chapters = chapters_of(r.text(9));
  s.options_digest = r.text(10);
  s.content_hash = r.text(11);
  s.mode = r.text(12);
  s.records = static_cast<std::size_t>(std::max<std::int64_t>(0, r.integer(13)));
  s.complete = r.integer(14) != 0;
  return s;
}

/// LIKE pattern matching `text` anywhere, its own % _ and \ taken literally (ESCAPE '\').
std::string contains_pattern(const std::string& text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out + "%";
}

/// WHERE clauses and their values, numbered as they are added.
struct where_clause {
  std::string sql;
  std::vector<sql_value> values;
  std::string next() { return "$" + std::to_string(values.size() + 1); }
  void add(const std::string& condition) { sql += (sql.empty() ? " WHERE " : " AND ") + condition; }
};

}  // namespace

run_store::run_store(store_location where, std::unique_ptr<detail::sql_connection> db)
    : where_(std::move(where)), db_(std::move(db)) {}
run_store::~run_store() = default;

bool run_store::exists(const store_location& where) {
  if (where.kind == store_kind::none) return false;
  if (where.kind == store_kind::postgresql) return true;
  std::error_code ec;
  return std::filesystem::exists(where.target, ec);
}

std::unique_ptr<run_store> run_store::open(const store_location& where, const store_open_options& options) {
  if (where.kind == store_kind::none)
    throw usage_error("the run store is turned off (--db none or GPUBENCH_DB=none): give --db FILE or a "
                      "postgresql:// URL");
  auto db =
      where.kind == store_kind::sqlite ? detail::open_sqlite(where, options) : detail::open_postgresql(where, options);
  detail::migrate(*db, where);
  db->settle();
  return std::unique_ptr<run_store>(new run_store(where, std::move(db)));
}

add_result run_store::add(const nlohmann::ordered_json& document, const std::vector<run_ref>& refs) {
  const profile p = profile_from_json(document, "the profile to store");
  std::set<int> chapter_set;
  for (const record& r : p.records) chapter_set.insert(r.chapter);
  const std::vector<int> chapters(chapter_set.begin(), chapter_set.end());
  const nlohmann::ordered_json& options = document.at("options");
  const std::string mode =
      options.contains("mode") && options["mode"].is_string() ? options["mode"].get<std::string>() : "measure";
  const std::string hash = profile_content_hash(document);
  const std::vector<sql_value> row = {hash,
                                      now_utc_iso8601(),
                                      p.prov.started_at,
                                      p.prov.finished_at,
                                      std::int64_t{p.complete ? 1 : 0},
                                      mode,
                                      p.prov.device.name,
                                      p.prov.device.uuid,
                                      p.prov.hostname,
                                      p.prov.git_sha,
                                      p.prov.gpubench_version,
                                      chapters_column(chapters),
                                      profile_options_digest(options),
                                      static_cast<std::int64_t>(p.records.size()),
                                      document.dump()};
  return detail::in_transaction(*db_, true, [&] {
    add_result result;
    auto inserted = db_->query(
        "INSERT INTO gpubench_runs (content_hash, recorded_at, started_at, finished_at, complete, mode, gpu_model, "
        "gpu_uuid, host, git_sha, gpubench_version, chapters, options_digest, record_count, document) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) "
        "ON CONFLICT (content_hash) DO NOTHING RETURNING id",
        row);
    if (inserted.empty()) {
      const sql_value key[] = {hash};
      const auto found = db_->query("SELECT id FROM gpubench_runs WHERE content_hash = $1", key);
      if (found.empty()) throw usage_error("the run store lost a run while storing it: try again");
      result.id = found.front().integer(0);
    } else {
      result.id = inserted.front().integer(0);
      result.added = true;
      for (const record& r : p.records) {
        const bool timed = r.status == record_status::passed && r.stats.has_value();
        const sql_value rec[] = {result.id, r.id(), std::int64_t{r.chapter}, std::string(to_string(r.status)),
                                 timed ? sql_value(r.stats->median) : sql_value(nullptr)};
        db_->query("INSERT INTO gpubench_records (run_id, record_id, chapter, status, median_s) "
                   "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (run_id, record_id) DO NOTHING",
                   rec);
      }
    }
    for (const run_ref& ref : refs) {
      const sql_value v[] = {result.id, ref.name, ref.kind};
      db_->query("INSERT INTO gpubench_refs (run_id, name, kind) VALUES ($1, $2, $3) "
                 "ON CONFLICT (run_id, name) DO NOTHING",
                 v);
    }
    return result;
  });
}

std::vector<stored_run> run_store::runs(const run_query& q) {
  where_clause w;
  if (q.gpu_model) {
    w.add("gpu_model = " + w.next());
    w.values.emplace_back(*q.gpu_model);
  }
  if (q.gpu_model_like) {
    w.add("lower(gpu_model) LIKE " + w.next() + " ESCAPE '\\'");
    w.values.emplace_back(contains_pattern(*q.gpu_model_like));
  }
  if (q.gpu_uuid) {
    w.add("gpu_uuid = " + w.next());
    w.values.emplace_back(*q.gpu_uuid);
  }
  if (q.host) {
    w.add("host = " + w.next());
    w.values.emplace_back(*q.host);
  }
  if (q.options_digest) {
    w.add("options_digest = " + w.next());
    w.values.emplace_back(*q.options_digest);
  }
  if (q.content_hash) {
    w.add("content_hash = " + w.next());
    w.values.emplace_back(*q.content_hash);
  }
  if (q.git_sha_prefix) {
    // The stored sha starts with the one asked for, or (a full sha asked for, a short one stored)
    // the other way round; a stored sha shorter than 7 characters never matches that way.
    const std::string length = w.next();
    w.values.emplace_back(static_cast<std::int64_t>(q.git_sha_prefix->size()));
    const std::string sha = w.next();
    w.values.emplace_back(*q.git_sha_prefix);
    w.add(fmt::format("(substr(git_sha, 1, {0}) = CAST({1} AS TEXT) OR (length(git_sha) >= 7 AND "
                      "substr(CAST({1} AS TEXT), 1, length(git_sha)) = git_sha))",
                      length, sha));
  }
  if (q.ref) {
    w.add("EXISTS (SELECT 1 FROM gpubench_refs r WHERE r.run_id = gpubench_runs.id AND r.name = " + w.next() + ")");
    w.values.emplace_back(*q.ref);
  }
  if (q.chapter) {
    w.add("chapters LIKE " + w.next());
    w.values.emplace_back(fmt::format("%,{},%", *q.chapter));
  }
  if (q.started_before) {
    w.add("started_at < " + w.next());
    w.values.emplace_back(*q.started_before);
  }
  if (q.exclude_id) {
    w.add("id <> " + w.next());
    w.values.emplace_back(*q.exclude_id);
  }
  if (q.mode) {
    w.add("mode = " + w.next());
    w.values.emplace_back(*q.mode);
  }
  if (q.complete_only) w.add("complete = 1");
  std::string sql = fmt::format("SELECT {} FROM gpubench_runs{} ORDER BY started_at DESC, id DESC", kRunColumns, w.sql);
  if (q.limit > 0) {
    sql += " LIMIT " + w.next();
    w.values.emplace_back(static_cast<std::int64_t>(q.limit));
  }
  return detail::in_transaction(*db_, false, [&] {
    std::vector<stored_run> out;
    for (const auto& r : db_->query(sql, w.values)) out.push_back(run_of(r));
    for (auto& s : out) {
      const sql_value id[] = {s.id};
      for (const auto& r : db_->query("SELECT name, kind FROM gpubench_refs WHERE run_id = $1 ORDER BY kind, name", id))
        s.refs.push_back({r.text(0), r.text(1)});
    }
    return out;
  });
}

std::optional<stored_run> run_store::run(std::int64_t id) {
  const sql_value v[] = {id};
  auto found = detail::in_transaction(*db_, false, [&] {
    std::optional<stored_run> out;
    const auto rows = db_->query(fmt::format("SELECT {} FROM gpubench_runs WHERE id = $1", kRunColumns), v);
    if (rows.empty()) return out;
    out = run_of(rows.front());
    for (const auto& r : db_->query("SELECT name, kind FROM gpubench_refs WHERE run_id = $1 ORDER BY kind, name", v))
      out->refs.push_back({r.text(0), r.text(1)});
    return out;
  });
  return found;
}

nlohmann::ordered_json run_store::document(std::int64_t id) {
  const sql_value v[] = {id};
  const auto rows = detail::in_transaction(*db_, false, [&] {
    return db_->query("SELECT document FROM gpubench_runs WHERE id = $1", v);
  });
  if (rows.empty()) throw usage_error(fmt::format("the run store {} holds no run #{}", where_.display(), id));
  const std::string name = fmt::format("run #{} of the store {}", id, where_.display());
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(rows.front().text(0));
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error(name + ": its stored document is not valid JSON (" + e.what() + "): the store is damaged");
  }
  (void)profile_from_json(j, name);  // validated on the way out as on the way in
  return j;
}

profile run_store::load(std::int64_t id) {
  return profile_from_json(document(id), fmt::format("run #{} of the store {}", id, where_.display()));
}

std::vector<record_series> run_store::series(const series_query& q) {
  where_clause w;
  w.add("rec.status = 'passed'");
  w.add("rec.median_s IS NOT NULL");
  w.add("runs.complete = 1");
  if (q.chapter) {
    w.add("rec.chapter = " + w.next());
    w.values.emplace_back(std::int64_t{*q.chapter});
  }
  if (q.record_prefix) {
    const std::string length = w.next();
    w.values.emplace_back(static_cast<std::int64_t>(q.record_prefix->size()));
    w.add(fmt::format("substr(rec.record_id, 1, {}) = CAST({} AS TEXT)", length, w.next()));
    w.values.emplace_back(*q.record_prefix);
  }
  if (q.gpu_model) {
    w.add("runs.gpu_model = " + w.next());
    w.values.emplace_back(*q.gpu_model);
  }
  if (q.gpu_model_like) {
    w.add("lower(runs.gpu_model) LIKE " + w.next() + " ESCAPE '\\'");
    w.values.emplace_back(contains_pattern(*q.gpu_model_like));
  }
  if (q.options_digest) {
    w.add("runs.options_digest = " + w.next());
    w.values.emplace_back(*q.options_digest);
  }
  const std::string sql =
      "SELECT rec.record_id, rec.chapter, runs.gpu_model, runs.options_digest, runs.id, runs.started_at, "
      "runs.git_sha, rec.median_s FROM gpubench_records rec JOIN gpubench_runs runs ON runs.id = rec.run_id" +
      w.sql + " ORDER BY rec.record_id, runs.gpu_model, runs.options_digest, runs.started_at, runs.id";
  const auto rows = detail::in_transaction(*db_, false, [&] { return db_->query(sql, w.values); });
  std::vector<record_series> out;
  for (const auto& r : rows) {
    const std::string id = r.text(0), gpu = r.text(2), digest = r.text(3);
    if (out.empty() || out.back().record_id != id || out.back().gpu_model != gpu || out.back().options_digest != digest)
      out.push_back({id, static_cast<int>(r.integer(1)), gpu, digest, {}});
    const auto median = r.real(7);
    if (!median || !(*median > 0)) continue;
    out.back().points.push_back({r.integer(4), r.text(5), r.text(6), *median});
  }
  return out;
}

std::size_t run_store::count() {
  const auto rows =
      detail::in_transaction(*db_, false, [&] { return db_->query("SELECT count(*) FROM gpubench_runs"); });
  return static_cast<std::size_t>(rows.front().integer(0));
}

}  // namespace gpubench
