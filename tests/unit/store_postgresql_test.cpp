// The run store on a real PostgreSQL server: the URL in GPUBENCH_TEST_POSTGRES_URL (a database this
// user may create databases from; .ci/run starts a throwaway cluster and sets it). Each test works in
// a database of its own, dropped at its end. Skipped, with the reason, only when the URL is absent.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>

#include "gpubench/profile_document.hpp"
#include "gpubench/error.hpp"
#include "gpubench/store.hpp"
#include "store_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace gpubench;
using namespace store_test;

const fs::path kReference = fs::path(GPUBENCH_SOURCE_DIR) / "profiles" / "reference";

std::string admin_url() {
  const char* url = std::getenv("GPUBENCH_TEST_POSTGRES_URL");
  return url == nullptr ? std::string() : std::string(url);
}

#define NEED_POSTGRES()                                                                                               \
  if (admin_url().empty())                                                                                            \
  GTEST_SKIP() << "GPUBENCH_TEST_POSTGRES_URL is not set, so there is no PostgreSQL server to test against (.ci/run " \
                  "starts one from Debian's postgresql package)"

/// `url` with its database replaced by `name`: postgresql://[auth@][host]/DB[?params].
std::string with_database(const std::string& url, const std::string& name) {
  const auto authority = url.find("://") + 3;
  const auto slash = url.find('/', authority);
  const auto query = url.find('?', authority);
  const std::string head = url.substr(0, slash == std::string::npos || (query != std::string::npos && slash > query)
                                             ? (query == std::string::npos ? url.size() : query)
                                             : slash);
  return head + "/" + name + (query == std::string::npos ? "" : url.substr(query));
}

/// A database of the test's own, dropped at the end.
struct scratch_database {
  std::string name, url;
  scratch_database() {
    static int counter = 0;
    name = fmt::format("gpubench_test_{}_{}", getpid(), counter++);
    pqxx::connection c(admin_url());
    pqxx::nontransaction t(c);
    t.exec("DROP DATABASE IF EXISTS " + t.quote_name(name));
    t.exec("CREATE DATABASE " + t.quote_name(name));
    url = with_database(admin_url(), name);
  }
  ~scratch_database() {
    try {
      pqxx::connection c(admin_url());
      pqxx::nontransaction t(c);
      t.exec("DROP DATABASE IF EXISTS " + t.quote_name(name) + " WITH (FORCE)");
    } catch (const std::exception& e) {
      std::cerr << "could not drop " << name << ": " << e.what() << "\n";
    }
  }
  [[nodiscard]] long long scalar(const std::string& sql) const {
    pqxx::connection c(url);
    pqxx::nontransaction t(c);
    return t.exec1(sql)[0].as<long long>();
  }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

TEST(StorePostgresql, LosslessOnceAndFoundByName) {
  NEED_POSTGRES();
  scratch_database db;
  const store_location where{store_kind::postgresql, db.url, "--db"};
  auto store = run_store::open(where, {.create = true, .timeout_s = 10});
  const fs::path file = kReference / "h200-ch01.json";
  const auto doc = read_profile_document(file);
  const add_result a = store->add(doc, {{"main", "branch"}});
  EXPECT_TRUE(a.added);
  EXPECT_EQ(store->document(a.id).dump(2) + "\n", bytes_of(file));
  const add_result again = store->add(doc, {{"nightly", "tag"}});
  EXPECT_FALSE(again.added);
  EXPECT_EQ(again.id, a.id);
  EXPECT_EQ(store->count(), 1u);
  ASSERT_EQ(store->runs({.ref = "nightly"}).size(), 1u);
  EXPECT_EQ(store->runs({.git_sha_prefix = "a73395e"}).size(), 1u);
  EXPECT_EQ(store->runs({.gpu_model_like = "h200"}).size(), 1u);
  EXPECT_TRUE(store->runs({.gpu_model_like = "h100"}).empty());
  const auto series = store->series({});
  EXPECT_EQ(series.size(), doc["records"].size() - 0) << "one series per passed, timed record";
  // The schema version is recorded, and a second open migrates nothing.
  EXPECT_EQ(db.scalar("SELECT value::int FROM gpubench_meta WHERE key = 'schema_version'"), kStoreSchemaVersion);
  EXPECT_EQ(run_store::open(where, {.timeout_s = 10})->count(), 1u);
}

TEST(StorePostgresql, ImportThenCompareWithoutArguments) {
  NEED_POSTGRES();
  scratch_database db;
  for (const char* name : {"h200-ch01.json", "h200-ch01-r2.json", "h200-ch01-r3.json", "h200-ch01-r4.json"})
    ASSERT_EQ(gpubench_with(db.url, "history import " + q(kReference / name)).status, 0);
  const auto c = gpubench_with(db.url, "compare");
  EXPECT_TRUE(c.status == 0 || c.status == 4) << c.output;
  EXPECT_TRUE(has(c.output, "new: run #4, the newest ")) << c.output;
  EXPECT_TRUE(has(c.output, "base: run #3, the previous comparable (")) << c.output;
  EXPECT_TRUE(has(c.output, "history: runs #2, #1 (the base's lineage")) << c.output;
  const auto h = gpubench_with(db.url, "history");
  EXPECT_TRUE(has(h.output, "(4 runs); 4 shown")) << h.output;
}

TEST(StorePostgresql, EightConcurrentWritersOf50RunsStoreExactly400) {
  NEED_POSTGRES();
  scratch_database db;
  temp_dir dir;
  for (int w = 0; w < 8; ++w) write_runs(dir.path / fmt::format("w{}", w), 50, 1000 * w);
  // The database is empty: the eight writers also race to create the schema, which happens once.
  std::vector<pid_t> writers;
  const auto start = std::chrono::steady_clock::now();
  for (int w = 0; w < 8; ++w)
    writers.push_back(spawn_gpubench({"history", "import", (dir.path / fmt::format("w{}", w)).string()}, db.url,
                                     (dir.path / fmt::format("w{}.log", w)).string()));
  for (int w = 0; w < 8; ++w) EXPECT_EQ(wait_exit(writers[w]), 0) << bytes_of(dir.path / fmt::format("w{}.log", w));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long long stored = db.scalar("SELECT count(*) FROM gpubench_runs");
  EXPECT_EQ(stored, 400);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpubench_records"), 400);
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpubench_meta"), 1);
  std::cout << fmt::format("[ figures  ] PostgreSQL: 8 concurrent writers x 50 runs: {} runs stored in {:.2f} s\n",
                           stored, wall);
  RecordProperty("runs_stored", static_cast<int>(stored));
  RecordProperty("wall_s", fmt::format("{:.2f}", wall));
}

TEST(StorePostgresql, AWriterKilledMidWriteLeavesTheStoreConsistent) {
  NEED_POSTGRES();
  temp_dir dir;
  write_runs(dir.path / "runs", 40, 0, 60);
  // How long a whole import takes here, so that the kills land in its second half, where it stores.
  double whole_ms = 0;
  {
    scratch_database db;
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(gpubench_with(db.url, "history import " + q(dir.path / "runs")).status, 0);
    whole_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  int mid_write = 0, attempt = 0;
  for (; attempt < 12 && mid_write < 2; ++attempt) {
    scratch_database db;
    const pid_t pid =
        spawn_gpubench({"history", "import", (dir.path / "runs").string()}, db.url, (dir.path / "log").string());
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(whole_ms * (0.4 + 0.075 * (attempt % 8))));
    kill(pid, SIGKILL);
    (void)wait_exit(pid);
    if (db.scalar("SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'gpubench_runs'") == 0) continue;
    // Every stored run has all its records; nothing is half there.
    EXPECT_EQ(db.scalar("SELECT count(*) FROM gpubench_runs r WHERE r.record_count <> (SELECT count(*) FROM "
                        "gpubench_records x WHERE x.run_id = r.id)"),
              0);
    const long long stored = db.scalar("SELECT count(*) FROM gpubench_runs");
    if (stored > 0 && stored < 40) {
      ++mid_write;
      EXPECT_EQ(gpubench_with(db.url, "history import " + q(dir.path / "runs")).status, 0);
      EXPECT_EQ(db.scalar("SELECT count(*) FROM gpubench_runs"), 40);
    }
  }
  std::cout << fmt::format(
      "[ figures  ] PostgreSQL: {} of {} writers killed while storing (a whole import: {:.0f} ms)\n", mid_write,
      attempt, whole_ms);
  EXPECT_GE(mid_write, 1);
}

TEST(StorePostgresql, ALockPastTheTimeoutANewerSchemaAndNoServerExitTwo) {
  NEED_POSTGRES();
  scratch_database db;
  ASSERT_EQ(gpubench_with(db.url, "history import " + q(kReference / "h200-ch01.json")).status, 0);
  {
    pqxx::connection holder(db.url);
    pqxx::work t(holder);
    t.exec("LOCK TABLE gpubench_runs IN ACCESS EXCLUSIVE MODE");
    const auto r =
        gpubench_with(db.url, "history import " + q(kReference / "h200-ch01-r2.json"), ".", "GPUBENCH_DB_TIMEOUT=0.5");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(has(r.output, "stayed locked by another writer for 0.5 s")) << r.output;
  }
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpubench_runs"), 1);
  {
    pqxx::connection c(db.url);
    pqxx::nontransaction t(c);
    t.exec("UPDATE gpubench_meta SET value = '5' WHERE key = 'schema_version'");
  }
  const auto newer = gpubench_with(db.url, "history import " + q(kReference / "h200-ch01-r2.json"));
  EXPECT_EQ(newer.status, 2) << newer.output;
  EXPECT_TRUE(has(newer.output, "schema version 5, newer than this gpubench knows")) << newer.output;
  EXPECT_EQ(db.scalar("SELECT count(*) FROM gpubench_runs"), 1);
  EXPECT_EQ(db.scalar("SELECT value::int FROM gpubench_meta"), 5);
  const auto away =
      gpubench_with("postgresql:///nowhere?host=/nonexistent-socket-dir&user=x&password=hidden", "history");
  EXPECT_EQ(away.status, 2) << away.output;
  EXPECT_TRUE(has(away.output, "cannot reach the run store")) << away.output;
  EXPECT_FALSE(has(away.output, "hidden")) << "the password is not printed: " << away.output;
}

}  // namespace
