// The run store through the real command line, on SQLite: the commands that work without paths,
// import and export, history and its change points, and the faults a store must survive (a
// writer killed mid-write, 8 concurrent writers, a lock, corruption, a newer schema). The same
// on PostgreSQL: store_postgresql_test.cpp. Docs: docs/store.md.
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <thread>

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "process/spawn.hpp"
#include "store_test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace store_test;

const fs::path kProfiles = fs::path(GPUBENCH_SOURCE_DIR) / "profiles";
const fs::path kReference = kProfiles / "reference";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// gpubench with the store at `db`, in `dir`.
shell_result gb(const fs::path& db, const std::string& args, const fs::path& dir = ".", const std::string& env = "") {
  return gpubench_with(db.string(), args, dir, env);
}

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

TEST(StoreCli, ImportProfilesThenCompareWithoutArguments) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  const auto imported = gb(db, "history import " + q(kProfiles));
  ASSERT_EQ(imported.status, 0) << imported.output;
  const std::size_t files = std::distance(fs::directory_iterator(kReference), fs::directory_iterator()) - 1;  // README
  EXPECT_TRUE(has(imported.output, fmt::format("history import: {} stored, 0 stored before", files)))
      << imported.output;
  const auto c = gb(db, "compare");
  EXPECT_TRUE(c.status == 0 || c.status == 4) << c.output;
  // The two runs it chose, each named on one line, then the verdicts.
  EXPECT_TRUE(std::regex_search(c.output, std::regex("(^|\\n)new: run #[0-9]+, .*\\n"))) << c.output;
  EXPECT_TRUE(std::regex_search(c.output, std::regex("\\nbase: run #[0-9]+, the previous comparable \\("))) << c.output;
  EXPECT_TRUE(has(c.output, "records compared") || has(c.output, "same") || has(c.output, "inconclusive")) << c.output;
  for (const auto& line : std::vector<std::string>{"new: ", "base: ", "history: "}) {
    const auto at = c.output.find("\n" + line);
    if (at == std::string::npos) continue;
    EXPECT_LE(c.output.find('\n', at + 1) - at - 1, 80u) << "a choice line over 80 columns:\n" << c.output;
  }
  // A report on stdout keeps the choices off it: --json - is JSON alone.
  const auto json = run_shell(fmt::format("GPUBENCH_DB={} '{}' compare --json - 2>/dev/null", q(db), GPUBENCH_EXE));
  EXPECT_TRUE(nlohmann::json::accept(json.output)) << json.output.substr(0, 300);
}

TEST(StoreCli, ImportingTheSameProfileTwiceStoresItOnce) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  const fs::path file = kReference / "h200-ch01.json";
  EXPECT_TRUE(has(gb(db, "history import " + q(file)).output, "1 stored, 0 stored before"));
  const auto again = gb(db, "history import --tag again " + q(file));
  EXPECT_EQ(again.status, 0) << again.output;
  EXPECT_TRUE(has(again.output, "0 stored, 1 stored before")) << again.output;
  const auto list = nlohmann::json::parse(gb(db, "history --json").output);
  ASSERT_EQ(list["runs"].size(), 1u);
  EXPECT_EQ(list["runs"][0]["refs"][0]["name"], "again");
}

TEST(StoreCli, AnExportedRunIsJudgedExactlyAsTheOriginal) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  const std::vector<std::string> names = {"h200-ch01.json", "h200-ch01-r2.json", "h200-ch01-r3.json",
                                          "h200-ch01-r4.json"};
  fs::create_directories(dir.path / "original");
  fs::create_directories(dir.path / "exported");
  for (std::size_t i = 0; i < names.size(); ++i) {
    fs::copy_file(kReference / names[i], dir.path / "original" / names[i]);
    ASSERT_EQ(gb(db, "history import " + q(kReference / names[i])).status, 0);
    const auto exported =
        gb(db, fmt::format("history export '#{}' --out {}", i + 1, q(dir.path / "exported" / names[i])));
    ASSERT_EQ(exported.status, 0) << exported.output;
    EXPECT_EQ(bytes_of(dir.path / "exported" / names[i]), bytes_of(kReference / names[i])) << names[i];
  }
  // The same command on the originals and on the exported copies, by the same names: the
  // verdicts' JSON must be the same bytes.
  const std::string cmd = "compare h200-ch01.json h200-ch01-r2.json --history h200-ch01-r3.json h200-ch01-r4.json "
                          "--json verdicts.json";
  const auto a = gb("none", cmd, dir.path / "original"), b = gb("none", cmd, dir.path / "exported");
  EXPECT_EQ(a.status, b.status) << a.output << b.output;
  ASSERT_TRUE(fs::exists(dir.path / "original" / "verdicts.json")) << a.output;
  EXPECT_EQ(bytes_of(dir.path / "original" / "verdicts.json"), bytes_of(dir.path / "exported" / "verdicts.json"));
  EXPECT_EQ(a.output, b.output);
}

TEST(StoreCli, TheBaseByRunIdCommitBranchOrTag) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  for (const char* name : {"h200-ch01.json", "h200-ch01-r2.json"})
    ASSERT_EQ(gb(db, "history import --tag nightly " + q(kReference / name)).status, 0);
  ASSERT_EQ(gb(db, "history import " + q(kReference / "h200-ch01-r3.json")).status, 0);
  // By id: #1 against the newest run (#3).
  auto c = gb(db, "compare --base '#1' --no-history");
  EXPECT_TRUE(c.status == 0 || c.status == 4) << c.output;
  EXPECT_TRUE(has(c.output, "new: run #3, the newest")) << c.output;
  EXPECT_TRUE(has(c.output, "base: run #1, as named")) << c.output;
  // By tag: its newest run comparable with the new one.
  c = gb(db, "compare --base nightly --no-history");
  EXPECT_TRUE(has(c.output, "base: run #2, the newest under nightly")) << c.output;
  // By commit (the three share one): the newest other than the new run.
  c = gb(db, "compare --base a73395e --no-history");
  EXPECT_TRUE(has(c.output, "base: run #2, the newest at commit a73395e")) << c.output;
  // Two stored runs by name, and the history the store offers for the base.
  c = gb(db, "compare '#2' '#3'");
  EXPECT_TRUE(has(c.output, "history: run #1 (the base's lineage")) << c.output;
  // A name that is two things at once is refused with the way out.
  ASSERT_EQ(gb(db, "history import --tag 1 " + q(kReference / "h200-ch01-r4.json")).status, 0);
  c = gb(db, "compare --base 1");
  EXPECT_EQ(c.status, 2) << c.output;
  EXPECT_TRUE(has(c.output, "say #1 for the run id")) << c.output;
  c = gb(db, "compare --base no-such-thing");
  EXPECT_EQ(c.status, 2) << c.output;
  EXPECT_TRUE(has(c.output, "no-such-thing is no file")) << c.output;
}

TEST(StoreCli, CompareWithoutAStoreOrWithoutPairs) {
  temp_dir dir;
  auto c = gb(dir.path / "absent.db", "compare");
  EXPECT_EQ(c.status, 2) << c.output;
  EXPECT_TRUE(has(c.output, "needs the run store, and there is none at")) << c.output;
  EXPECT_FALSE(fs::exists(dir.path / "absent.db"));  // a reader creates no store
  ASSERT_EQ(gb(dir.path / "runs.db", "history import " + q(kReference / "h200-ch07.json")).status, 0);
  c = gb(dir.path / "runs.db", "compare");
  EXPECT_EQ(c.status, 2) << c.output;
  EXPECT_TRUE(has(c.output, "has an earlier run with the same GPU model and options")) << c.output;
  c = gb("none", "compare a.json");
  EXPECT_EQ(c.status, 2) << c.output;
}

TEST(StoreCli, HistoryFindsTheStepAtRun20) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  const auto medians = noisy_levels(30, 0.01, 19, 1.06, 11);  // run 20 (index 19) is the first at +6%
  for (std::size_t i = 0; i < medians.size(); ++i)
    write_run(dir.path / "runs" / fmt::format("run-{:02d}.json", i),
              synthetic_run(medians[i], minute(static_cast<int>(i)), fmt::format("c{:06d}", i)));
  ASSERT_EQ(gb(db, "history import " + q(dir.path / "runs")).status, 0);
  const auto changes = gb(db, "history --changes");
  EXPECT_EQ(changes.status, 0) << changes.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(changes.output, m, std::regex("change at run #([0-9]+) .*: \\+([0-9.]+)%")))
      << changes.output;
  EXPECT_NEAR(std::stoi(m[1]), 20, 1) << changes.output;
  EXPECT_NEAR(std::stod(m[2]), 6, 2) << changes.output;
  EXPECT_TRUE(has(changes.output, "history --changes: 1 change point in 1 record series")) << changes.output;
  const auto json = nlohmann::json::parse(gb(db, "history --changes --json").output);
  ASSERT_EQ(json["series"].size(), 1u);
  EXPECT_NEAR(json["series"][0]["changes"][0]["ratio"].get<double>(), 1.06, 0.02);
  const auto series = gb(db, "history --record ch01/trend");
  EXPECT_TRUE(has(series.output, "ch01/trend/baseline[n=1024]\n  NVIDIA H200, options ")) << series.output;
  EXPECT_TRUE(has(series.output, "30 runs")) << series.output;
  const auto list = gb(db, "history --limit 5");
  EXPECT_TRUE(has(list.output, "(30 runs); 5 shown, newest first")) << list.output;
  EXPECT_TRUE(has(list.output, "#30 ")) << list.output;
  for (std::size_t at = 0, end; (end = list.output.find('\n', at)) != std::string::npos; at = end + 1)
    EXPECT_LE(end - at, 80u) << list.output;
}

TEST(StoreCli, AFlatHistoryHasNoChange) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  const auto medians = noisy_levels(200, 0.01, 200, 1.0, 5);
  for (std::size_t i = 0; i < medians.size(); ++i)
    write_run(dir.path / "runs" / fmt::format("run-{:03d}.json", i),
              synthetic_run(medians[i], minute(static_cast<int>(i)), "a73395e0d1d3"));
  ASSERT_EQ(gb(db, "history import " + q(dir.path / "runs")).status, 0);
  const auto changes = gb(db, "history --changes");
  EXPECT_EQ(changes.status, 0) << changes.output;
  EXPECT_TRUE(has(changes.output, "history --changes: 0 change points in 1 record series")) << changes.output;
}

TEST(StoreCli, RooflineAndReportTakeTheNewestRun) {
  if (gpubench::detail::find_program("gnuplot").empty()) GTEST_SKIP() << "gnuplot is not installed";
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  for (const char* name : {"h200-ch01.json", "h200-ch01-r2.json", "h200-ch01-r3.json", "h200-ch01-r4.json"})
    ASSERT_EQ(gb(db, "history import " + q(kReference / name)).status, 0);
  const auto r = gb(db, "roofline --out x.png", dir.path);
  ASSERT_EQ(r.status, 0) << r.output;
  // The reference profiles' host may be this one's name too: then the run is "from this host".
  EXPECT_TRUE(std::regex_search(
      r.output, std::regex("roofline: run #4, the newest (in the store|from this host) \\(a73395e, 2026-11-22 03:29")))
      << r.output;
  EXPECT_GT(fs::file_size(dir.path / "x.png"), 1000u);
  const auto rep = gb(db, "report --out r.html --compare '#3'", dir.path);
  ASSERT_EQ(rep.status, 0) << rep.output;
  EXPECT_TRUE(has(rep.output, "base: run #3, as named")) << rep.output;
  EXPECT_TRUE(has(rep.output, "new: run #4, the newest ")) << rep.output;
  const std::string html = bytes_of(dir.path / "r.html");
  EXPECT_TRUE(has(html, "<section class=\"trends\" id=\"trends\">")) << html.substr(0, 500);
  EXPECT_TRUE(has(html, ">base</text>"));
  EXPECT_TRUE(has(html, ">new</text>"));
  EXPECT_FALSE(has(html, "http://")) << "the page names no URL";
}

TEST(StoreCliFaults, ACorruptStoreANewerSchemaAndALockExitTwoLeavingTheStore) {
  temp_dir dir;
  const fs::path file = kReference / "h200-ch01.json";
  // Not a database.
  const fs::path junk = dir.path / "junk.db";
  std::ofstream(junk) << std::string(4096, 'j');
  auto r = gb(junk, "history import " + q(file));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "is not a SQLite database")) << r.output;
  EXPECT_EQ(bytes_of(junk), std::string(4096, 'j'));
  // A newer schema.
  const fs::path db = dir.path / "runs.db";
  ASSERT_EQ(gb(db, "history import " + q(file)).status, 0);
  {
    SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
    d.exec("UPDATE gpubench_meta SET value = '7' WHERE key = 'schema_version'");
  }
  const std::string before = bytes_of(db);
  for (const char* cmd : {"history", "compare", "history import", "roofline --out x.png"}) {
    r = gb(db, std::string(cmd) + (has(cmd, "import") ? " " + q(kReference / "h200-ch01-r2.json") : ""), dir.path);
    EXPECT_EQ(r.status, 2) << cmd << ": " << r.output;
    EXPECT_TRUE(has(r.output, "has schema version 7, newer than this gpubench knows")) << cmd << ": " << r.output;
  }
  EXPECT_EQ(bytes_of(db), before);
  // A lock held past GPUBENCH_DB_TIMEOUT.
  const fs::path locked = dir.path / "locked.db";
  ASSERT_EQ(gb(locked, "history import " + q(file)).status, 0);
  SQLite::Database holder(locked.string(), SQLite::OPEN_READWRITE);
  holder.exec("BEGIN IMMEDIATE");
  r = gb(locked, "history import " + q(kReference / "h200-ch01-r2.json"), ".", "GPUBENCH_DB_TIMEOUT=0.5");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "stayed locked by another gpubench for 0.5 s")) << r.output;
  holder.exec("ROLLBACK");
  r = gb(locked, "history import " + q(kReference / "h200-ch01-r2.json"), ".", "GPUBENCH_DB_TIMEOUT=bad");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "GPUBENCH_DB_TIMEOUT=bad")) << r.output;
}

/// The store after a writer was killed: the database is intact, and every stored run has all of
/// its records (a run is stored whole or not at all).
// Opened for writing, as the next gpubench opens it: a writer killed mid-transaction leaves a WAL
// that only a writable connection may recover (read-only, SQLite refuses with SQLITE_READONLY).
void expect_consistent(const fs::path& db) {
  SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
  EXPECT_EQ(d.execAndGet("PRAGMA integrity_check").getString(), "ok");
  if (!d.tableExists("gpubench_runs")) return;  // killed before the schema was made
  SQLite::Statement runs(d, "SELECT id, record_count, (SELECT count(*) FROM gpubench_records r WHERE r.run_id = "
                            "gpubench_runs.id) FROM gpubench_runs");
  while (runs.executeStep())
    EXPECT_EQ(runs.getColumn(1).getInt64(), runs.getColumn(2).getInt64()) << "run #" << runs.getColumn(0).getInt64();
}

TEST(StoreCliFaults, AWriterKilledMidWriteLeavesTheStoreConsistent) {
  temp_dir dir;
  write_runs(dir.path / "runs", 40, 0, 60);
  // How long a whole import takes here (it validates every file, then stores them one by one), so
  // that the kills below land in its second half, where it stores.
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(gb(dir.path / "whole.db", "history import " + q(dir.path / "runs")).status, 0);
  const double whole_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  int mid_write = 0, attempt = 0;
  fs::path partial;
  for (; attempt < 16 && mid_write < 3; ++attempt) {
    const fs::path db = dir.path / fmt::format("runs-{}.db", attempt);
    const pid_t pid =
        spawn_gpubench({"history", "import", (dir.path / "runs").string()}, db.string(), (dir.path / "log").string());
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(whole_ms * (0.4 + 0.075 * (attempt % 8))));
    kill(pid, SIGKILL);
    (void)wait_exit(pid);
    if (!fs::exists(db)) continue;
    expect_consistent(db);
    SQLite::Database d(db.string(), SQLite::OPEN_READWRITE);
    const int stored = d.tableExists("gpubench_runs") ? d.execAndGet("SELECT count(*) FROM gpubench_runs").getInt() : 0;
    if (stored > 0 && stored < 40) {
      ++mid_write;
      partial = db;
    }
  }
  std::cout << fmt::format("[ figures  ] SQLite: {} of {} writers killed while storing (a whole import: {:.0f} ms)\n",
                           mid_write, attempt, whole_ms);
  ASSERT_GE(mid_write, 1) << "no writer was killed while storing";
  // What a killed writer left is completed, never doubled.
  const auto r = gb(partial, "history import " + q(dir.path / "runs"));
  EXPECT_EQ(r.status, 0) << r.output;
  expect_consistent(partial);
  SQLite::Database d(partial.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(d.execAndGet("SELECT count(*) FROM gpubench_runs").getInt(), 40);
}

TEST(StoreCliFaults, EightConcurrentWritersOf50RunsStoreExactly400) {
  temp_dir dir;
  const fs::path db = dir.path / "runs.db";
  for (int w = 0; w < 8; ++w) write_runs(dir.path / fmt::format("w{}", w), 50, 1000 * w);
  std::vector<pid_t> writers;
  const auto start = std::chrono::steady_clock::now();
  for (int w = 0; w < 8; ++w)
    writers.push_back(spawn_gpubench({"history", "import", (dir.path / fmt::format("w{}", w)).string()}, db.string(),
                                     (dir.path / fmt::format("w{}.log", w)).string()));
  for (int w = 0; w < 8; ++w) EXPECT_EQ(wait_exit(writers[w]), 0) << bytes_of(dir.path / fmt::format("w{}.log", w));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_consistent(db);
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  const int stored = d.execAndGet("SELECT count(*) FROM gpubench_runs").getInt();
  EXPECT_EQ(stored, 400);
  std::cout << fmt::format("[ figures  ] SQLite: 8 concurrent writers x 50 runs: {} runs stored in {:.2f} s\n", stored,
                           wall);
  RecordProperty("runs_stored", stored);
  RecordProperty("wall_s", fmt::format("{:.2f}", wall));
}

}  // namespace
