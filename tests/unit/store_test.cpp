// The run store on SQLite through the library (gpubench/store.hpp): lossless round trips, one copy
// of a document stored twice, the queries the commands rely on, the schema's migrations, and the
// faults that must leave a store untouched (docs/store.md).
#include <fstream>
#include <iterator>
#include <thread>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "gpubench/profile_document.hpp"
#include "gpubench/error.hpp"
#include "gpubench/run_refs.hpp"
#include "gpubench/store.hpp"
#include "store/schema.hpp"
#include "store/sql_connection.hpp"
#include "store_test_support.hpp"

namespace {

using namespace gpubench;
namespace fs = std::filesystem;
using store_test::minute;
using store_test::synthetic_run;

store_location sqlite_at(const fs::path& file) { return {store_kind::sqlite, file.string(), "--db"}; }

std::unique_ptr<run_store> open_new(const fs::path& file, double timeout_s = 5) {
  return run_store::open(sqlite_at(file), {.create = true, .timeout_s = timeout_s});
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const fs::path kReference = fs::path(GPUBENCH_SOURCE_DIR) / "profiles" / "reference";

TEST(Store, ExportGivesBackTheProfileByteForByte) {
  temp_dir dir;
  auto store = open_new(dir.path / "runs.db");
  for (const char* name : {"h200-ch01.json", "h100-ch03-metrics.json"}) {
    const fs::path file = kReference / name;
    const auto doc = read_profile_document(file);
    const add_result r = store->add(doc);
    EXPECT_TRUE(r.added);
    // What `history export` writes is the file `gpubench run` wrote.
    EXPECT_EQ(store->document(r.id).dump(2) + "\n", bytes_of(file)) << name;
    EXPECT_EQ(store->document(r.id), doc);
  }
  EXPECT_EQ(store->count(), 2u);
}

TEST(Store, TheSameProfileTwiceIsStoredOnce) {
  temp_dir dir;
  auto store = open_new(dir.path / "runs.db");
  const auto doc = to_json(synthetic_run(1e-3, minute(0), "a73395e0d1d3"));
  const add_result first = store->add(doc);
  const add_result again = store->add(doc, {{"main", "branch"}});
  EXPECT_TRUE(first.added);
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.id, first.id);
  EXPECT_EQ(store->count(), 1u);
  // The second copy's names are kept on the one run.
  ASSERT_TRUE(store->run(first.id).has_value());
  EXPECT_EQ(store->run(first.id)->refs, (std::vector<run_ref>{{"main", "branch"}}));
}

TEST(Store, IndexedColumnsComeFromTheProfile) {
  temp_dir dir;
  auto store = open_new(dir.path / "runs.db");
  const auto doc = read_profile_document(kReference / "h100-ch05.json");
  const auto id = store->add(doc, {{"v1.0", "tag"}}).id;
  const auto r = store->run(id);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r->started_at, doc["provenance"]["started_at"]);
  EXPECT_EQ(r->git_sha, doc["provenance"]["git_sha"]);
  EXPECT_EQ(r->gpu_uuid, doc["provenance"]["device"]["uuid"]);
  EXPECT_EQ(r->chapters, std::vector<int>{5});
  EXPECT_EQ(r->records, doc["records"].size());
  EXPECT_EQ(r->mode, "measure");
  EXPECT_TRUE(r->complete);
  EXPECT_EQ(r->content_hash, profile_content_hash(doc));
  EXPECT_EQ(r->options_digest, profile_options_digest(doc["options"]));
  EXPECT_EQ(r->refs, (std::vector<run_ref>{{"v1.0", "tag"}}));
}

TEST(Store, QueriesFindRunsByWhatPeopleName) {
  temp_dir dir;
  auto store = open_new(dir.path / "runs.db");
  const auto a = store->add(to_json(synthetic_run(1e-3, minute(0), "a73395e0d1d3")), {{"main", "branch"}}).id;
  const auto b = store->add(to_json(synthetic_run(1e-3, minute(1), "b1b2b3b4b5b6", "NVIDIA H100 80GB HBM3"))).id;
  const auto c = store->add(to_json(synthetic_run(1e-3, minute(2), "a73395e0d1d3")), {{"main", "branch"}}).id;
  const auto ids = [](const std::vector<stored_run>& runs) {
    std::vector<std::int64_t> out;
    for (const auto& r : runs) out.push_back(r.id);
    return out;
  };
  EXPECT_EQ(ids(store->runs({})), (std::vector<std::int64_t>{c, b, a}));  // newest start first
  EXPECT_EQ(ids(store->runs({.gpu_model_like = "h100"})), std::vector<std::int64_t>{b});
  EXPECT_EQ(ids(store->runs({.gpu_model = "NVIDIA H200"})), (std::vector<std::int64_t>{c, a}));
  EXPECT_EQ(ids(store->runs({.git_sha_prefix = "a733"})), (std::vector<std::int64_t>{c, a}));
  // A full sha finds the short one a profile records; a short sha below 7 digits stored never does.
  EXPECT_EQ(ids(store->runs({.git_sha_prefix = "b1b2b3b4b5b6b7b8b9b0b1b2b3b4b5b6b7b8b9b0"})),
            std::vector<std::int64_t>{b});
  EXPECT_EQ(ids(store->runs({.ref = "main"})), (std::vector<std::int64_t>{c, a}));
  EXPECT_EQ(ids(store->runs({.started_before = minute(2)})), (std::vector<std::int64_t>{b, a}));
  EXPECT_EQ(ids(store->runs({.chapter = 1, .limit = 1})), std::vector<std::int64_t>{c});
  EXPECT_TRUE(store->runs({.chapter = 2}).empty());
  // LIKE's own characters in a name are only characters.
  EXPECT_TRUE(store->runs({.gpu_model_like = "%"}).empty());
  EXPECT_TRUE(store->runs({.ref = "' OR 1=1 --"}).empty());
}

TEST(Store, SeriesFollowsARecordOverRuns) {
  temp_dir dir;
  auto store = open_new(dir.path / "runs.db");
  for (int i = 0; i < 5; ++i)
    store->add(to_json(synthetic_run(1e-3 * (1 + 0.01 * i), minute(i), "a73395e0d1d3", "NVIDIA H200", 2)));
  store->add(to_json(synthetic_run(2e-3, minute(9), "a73395e0d1d3", "NVIDIA H100 80GB HBM3")));
  const auto series = store->series({.gpu_model = "NVIDIA H200"});
  ASSERT_EQ(series.size(), 2u);  // two records
  EXPECT_EQ(series[0].record_id, "ch01/trend/baseline[n=1024]");
  ASSERT_EQ(series[0].points.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(series[0].points[i].median_s, 1e-3 * (1 + 0.01 * i), 1e-12);
  EXPECT_EQ(store->series({.record_prefix = "ch01/trend/baseline[n=2048]"}).size(), 1u);
  EXPECT_EQ(store->series({.record_prefix = "ch01/trend"}).size(), 3u);  // and the H100's series
}

TEST(StoreSchema, AStoreFromANewerGpubenchIsRefusedUntouched) {
  temp_dir dir;
  const fs::path file = dir.path / "runs.db";
  open_new(file)->add(to_json(synthetic_run(1e-3, minute(0), "a73395e0d1d3")));
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE gpubench_meta SET value = '99' WHERE key = 'schema_version'");
  }
  const std::string before = bytes_of(file);
  const std::string message = usage_message([&] { (void)open_new(file); });
  EXPECT_NE(message.find("schema version 99, newer than this gpubench knows (1)"), std::string::npos) << message;
  EXPECT_EQ(bytes_of(file), before);
}

TEST(StoreSchema, MigrationsRunOnceInOrderAndStopAtTheFirstFailure) {
  temp_dir dir;
  const fs::path file = dir.path / "runs.db";
  (void)open_new(file);  // version 1
  auto db = detail::open_sqlite(sqlite_at(file), {.create = false, .timeout_s = 5});
  auto steps = detail::store_migrations();
  steps.push_back({2, [](const detail::sql_connection&) {
                     return std::vector<std::string>{"ALTER TABLE gpubench_runs ADD COLUMN note TEXT"};
                   }});
  detail::migrate(*db, sqlite_at(file), steps);
  EXPECT_EQ(detail::schema_version(*db), 2);
  detail::migrate(*db, sqlite_at(file), steps);  // at version 2 already: nothing runs twice
  EXPECT_EQ(detail::schema_version(*db), 2);
  // A failing step rolls the whole migration back: the version and the tables stay as they were.
  steps.push_back({3, [](const detail::sql_connection&) {
                     return std::vector<std::string>{"CREATE TABLE gpubench_extra (x INTEGER)", "NOT SQL AT ALL"};
                   }});
  EXPECT_THROW(detail::migrate(*db, sqlite_at(file), steps), error);
  EXPECT_EQ(detail::schema_version(*db), 2);
  EXPECT_FALSE(db->has_table("gpubench_extra"));
  // This gpubench (version 1) refuses the store it has now become.
  EXPECT_NE(usage_message([&] { (void)open_new(file); }).find("newer than this gpubench"), std::string::npos);
}

TEST(StoreFaults, AFileThatIsNotADatabaseIsRefusedUntouched) {
  temp_dir dir;
  const fs::path file = dir.path / "runs.db";
  std::ofstream(file) << "this is a text file, not a SQLite database\n" << std::string(8192, 'x');
  const std::string before = bytes_of(file);
  const std::string message = usage_message([&] { (void)open_new(file); });
  EXPECT_NE(message.find("is not a SQLite database"), std::string::npos) << message;
  EXPECT_EQ(bytes_of(file), before);
}

TEST(StoreFaults, ACorruptStoreIsRefusedUntouched) {
  temp_dir dir;
  const fs::path file = dir.path / "runs.db";
  {
    auto store = open_new(file);
    for (int i = 0; i < 20; ++i) store->add(to_json(synthetic_run(1e-3, minute(i), "a73395e0d1d3", "NVIDIA H200", 20)));
  }
  {  // every committed page into the file (the last connection closing does it too)
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  {  // overwrite pages in the middle of the file: its b-trees no longer hold together
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) / 2));
    const std::string junk(16384, '\x5a');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const std::string before = bytes_of(file);
  const std::string message = usage_message([&] {
    auto store = open_new(file);
    (void)store->series({});
    (void)store->add(to_json(synthetic_run(1e-3, minute(99), "a73395e0d1d3")));
  });
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
  EXPECT_EQ(bytes_of(file), before);
}

TEST(StoreFaults, AnotherApplicationsDatabaseIsRefusedUntouched) {
  temp_dir dir;
  const fs::path file = dir.path / "app.db";
  {
    SQLite::Database db(file.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
  }
  const std::string before = bytes_of(file);
  const std::string message = usage_message([&] { (void)open_new(file); });
  EXPECT_NE(message.find("database of another application"), std::string::npos) << message;
  EXPECT_EQ(bytes_of(file), before);
}

TEST(StoreFaults, ALockHeldPastTheTimeoutIsAClearError) {
  temp_dir dir;
  const fs::path file = dir.path / "runs.db";
  open_new(file)->add(to_json(synthetic_run(1e-3, minute(0), "a73395e0d1d3")));
  SQLite::Database holder(file.string(), SQLite::OPEN_READWRITE);
  holder.exec("BEGIN IMMEDIATE");  // another writer, mid-transaction
  auto store = open_new(file, 0.3);
  const auto started = std::chrono::steady_clock::now();
  const std::string message = usage_message([&] { store->add(to_json(synthetic_run(1e-3, minute(1), "b1"))); });
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_NE(message.find("stayed locked by another gpubench for 0.3 s"), std::string::npos) << message;
  EXPECT_NE(message.find("GPUBENCH_DB_TIMEOUT"), std::string::npos) << message;
  EXPECT_GE(waited, 0.25);
  holder.exec("ROLLBACK");
  // Readers never wait for a writer (WAL); the lock gone, the write goes through.
  EXPECT_EQ(store->count(), 1u);
  EXPECT_TRUE(store->add(to_json(synthetic_run(1e-3, minute(1), "b1"))).added);
}

TEST(StoreFaults, NoStoreIsCreatedByAReader) {
  temp_dir dir;
  const fs::path file = dir.path / "sub" / "runs.db";
  EXPECT_FALSE(run_store::exists(sqlite_at(file)));
  const std::string message =
      usage_message([&] { (void)run_store::open(sqlite_at(file), {.create = false, .timeout_s = 1}); });
  EXPECT_NE(message.find("no run store at"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(file));
  (void)open_new(file);  // a writer creates it, directory and all
  EXPECT_TRUE(run_store::exists(sqlite_at(file)));
}

TEST(Store, AnInvalidProfileIsNotStored) {
  temp_dir dir;
  auto store = open_new(dir.path / "runs.db");
  auto doc = to_json(synthetic_run(1e-3, minute(0), "a73395e0d1d3"));
  doc["records"][0]["summary"]["median"] = 5.0;  // not the median of its samples
  EXPECT_FALSE(usage_message([&] { store->add(doc); }).empty());
  EXPECT_EQ(store->count(), 0u);
}

TEST(StoreIdentity, TheOptionsDigestIgnoresSeedDeviceAndKeyOrder) {
  const nlohmann::ordered_json a = {{"chapter", 1}, {"quick", false}, {"seed", 1}, {"device", 0}};
  const nlohmann::ordered_json b = {{"device", 3}, {"seed", 99}, {"quick", false}, {"chapter", 1}};
  const nlohmann::ordered_json c = {{"chapter", 1}, {"quick", true}, {"seed", 1}};
  EXPECT_EQ(profile_options_digest(a), profile_options_digest(b));
  EXPECT_NE(profile_options_digest(a), profile_options_digest(c));
  EXPECT_EQ(profile_options_digest(a).size(), 16u);
  // SHA-256 of the compact document: the empty object's is well known.
  EXPECT_EQ(profile_content_hash(nlohmann::ordered_json::object()),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a");
}

TEST(StoreLocation, DbThenEnvironmentThenTheXdgDataDirectory) {
  const auto with_env = [](const char* db, const char* xdg, const char* home, const std::string& option) {
    const auto set = [](const char* name, const char* v) { v ? setenv(name, v, 1) : unsetenv(name); };
    const std::string old_db = std::getenv("GPUBENCH_DB") ? std::getenv("GPUBENCH_DB") : "";
    const std::string old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
    set("GPUBENCH_DB", db);
    set("XDG_DATA_HOME", xdg);
    set("HOME", home);
    store_location where;
    std::string problem;
    try {
      where = resolve_store_location(option);
    } catch (const error& e) {
      problem = e.what();
    }
    setenv("GPUBENCH_DB", old_db.c_str(), 1);
    setenv("HOME", old_home.c_str(), 1);
    unsetenv("XDG_DATA_HOME");
    return std::pair{where, problem};
  };
  auto [w, p] = with_env(nullptr, nullptr, "/home/u", "");
  EXPECT_EQ(w.target, "/home/u/.local/share/gpubench/runs.db");
  EXPECT_EQ(w.origin, "default");
  std::tie(w, p) = with_env(nullptr, "/data", "/home/u", "");
  EXPECT_EQ(w.target, "/data/gpubench/runs.db");
  std::tie(w, p) = with_env(nullptr, "relative/not/used", "/home/u", "");
  EXPECT_EQ(w.target, "/home/u/.local/share/gpubench/runs.db");
  std::tie(w, p) = with_env("/tmp/team.db", nullptr, "/home/u", "");
  EXPECT_EQ(w.target, "/tmp/team.db");
  EXPECT_EQ(w.origin, "GPUBENCH_DB");
  std::tie(w, p) = with_env("/tmp/team.db", nullptr, "/home/u", "mine.db");
  EXPECT_EQ(w.target, "mine.db");
  EXPECT_EQ(w.kind, store_kind::sqlite);
  std::tie(w, p) = with_env(nullptr, nullptr, "/home/u", "none");
  EXPECT_EQ(w.kind, store_kind::none);
  std::tie(w, p) = with_env(nullptr, nullptr, "/home/u", "postgresql://ci:s3cret@db.example/bench");
  EXPECT_EQ(w.kind, store_kind::postgresql);
  EXPECT_EQ(w.display(), "postgresql://ci:***@db.example/bench");
  std::tie(w, p) = with_env(nullptr, nullptr, "/home/u", "mysql://x/y");
  EXPECT_NE(p.find("a SQLite file, a postgresql://"), std::string::npos) << p;
  std::tie(w, p) = with_env(nullptr, nullptr, nullptr, "");
  EXPECT_NE(p.find("neither XDG_DATA_HOME nor HOME is set"), std::string::npos) << p;
}

TEST(StoreRefs, TagsThenTheCiBranch) {
  EXPECT_EQ(detect_run_refs({"nightly", "nightly"}, ""), (std::vector<run_ref>{{"nightly", "tag"}}));
  setenv("GITHUB_REF_NAME", "main", 1);
  EXPECT_EQ(detect_run_refs({"rc1"}, ""), (std::vector<run_ref>{{"rc1", "tag"}, {"main", "branch"}}));
  setenv("GITHUB_REF_TYPE", "tag", 1);
  EXPECT_EQ(detect_run_refs({}, ""), (std::vector<run_ref>{{"main", "tag"}}));
  setenv("GITHUB_HEAD_REF", "feature/x", 1);  // a pull request: its own branch
  EXPECT_EQ(detect_run_refs({}, ""), (std::vector<run_ref>{{"feature/x", "branch"}}));
  for (const char* name : {"GITHUB_REF_NAME", "GITHUB_REF_TYPE", "GITHUB_HEAD_REF"}) unsetenv(name);
  setenv("CI_COMMIT_REF_NAME", "develop", 1);
  EXPECT_EQ(detect_run_refs({}, ""), (std::vector<run_ref>{{"develop", "branch"}}));
  unsetenv("CI_COMMIT_REF_NAME");
  EXPECT_FALSE(usage_message([] { (void)detect_run_refs({std::string("bad\nname")}, ""); }).empty());
  EXPECT_FALSE(usage_message([] { (void)detect_run_refs({std::string()}, ""); }).empty());
}

}  // namespace
