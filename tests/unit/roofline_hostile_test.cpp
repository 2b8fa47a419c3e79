// Hostile input to `gpubench roofline`: profiles, file names and paths that carry shell commands
// (gnuplot runs `...` inside double-quoted strings), and outputs the user did not ask to destroy
// (files beside --out, read-only files, symbolic links). The probe files the commands would create
// must never appear, and the chart must still render where gnuplot is installed.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gpubench/roofline.hpp"
#include "test_support.hpp"

extern char** environ;

namespace fs = std::filesystem;
using namespace gpubench;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }
bool is_png(const fs::path& p) { return slurp(p).starts_with(std::string("\x89PNG\r\n\x1a\n", 8)); }


/// The shell commands planted below create these files, relative to the working directory.
const char* const kProbes[] = {"probe_device", "probe_pair", "probe_from", "probe_out", "probe_dollar", "probe_title"};
void expect_no_probe(const fs::path& dir) {
  for (const char* p : kProbes) EXPECT_FALSE(fs::exists(dir / p)) << p << " was created in " << dir << ": a command ran";
}

/// The current directory moved to `dir` for a scope: a backquoted command runs where gnuplot runs.
struct in_dir {
  fs::path saved = fs::current_path();
  explicit in_dir(const fs::path& dir) { fs::current_path(dir); }
  ~in_dir() { fs::current_path(saved); }
};

struct result {
  int status = -1;  ///< exit code, -1 when it did not exit normally
  std::string output;
};

/// Runs gpubench with `args` in `cwd` directly (fork + execve, no shell, so the arguments reach it
/// byte for byte), with `env` overriding variables ("PATH=..."); stdout and stderr together.
result run_gpubench(const std::vector<std::string>& args, const fs::path& cwd, const std::vector<std::string>& env = {}) {
  const fs::path log = cwd / ".gpubench_output";
  std::vector<std::string> vars = env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var = *e;
    bool overridden = false;
    for (const auto& o : env) overridden = overridden || var.substr(0, var.find('=') + 1) == o.substr(0, o.find('=') + 1);
    if (!overridden) vars.push_back(var);
  }
  std::vector<std::string> argv_s = {GPUBENCH_EXE};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  result r;
  int st = 0;
  if (pid > 0 && ::waitpid(pid, &st, 0) == pid && WIFEXITED(st)) r.status = WEXITSTATUS(st);
  r.output = slurp(log);
  fs::remove(log);
  return r;
}

bool has_gnuplot() { return !find_gnuplot().empty(); }

fs::path committed_profile() { return fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / "h200-ch01.json"; }

/// A copy of a committed profile with `edit` applied, written to `dir / name`.
template <class F>
fs::path hostile_copy(const fs::path& dir, const std::string& name, F&& edit) {
  auto j = nlohmann::ordered_json::parse(slurp(committed_profile()));
  edit(j);
  const fs::path p = dir / name;
  spit(p, j.dump(2));
  return p;
}

void rename_pair(nlohmann::ordered_json& j, const std::string& from, const std::string& to) {
  for (auto& r : j["records"]) {
    if (r["pair"] != from) continue;
    r["pair"] = to;
    std::string id = r["id"];
    id.replace(id.find(from), from.size(), to);
    r["id"] = id;
  }
}

const std::string kDevice = "H200 `touch probe_device` $(touch probe_dollar) it's \"q\" @m \\";
const std::string kPair = "gemm`touch probe_pair`";

roofline_model hostile_model() {
  roofline_model m;
  m.title = "Roofline — " + kDevice + "\nsystem('touch probe_title')\n";
  m.compute = {{"fp32", 1e13}, {"bf16\nsystem('touch probe_title')", 4e14}};
  m.memory = {{"dram", 2e12}, {"l2\\", 8e12}};
  auto point = [](const std::string& pair, const std::string& variant, double ai, double f) {
    roof_point p;
    p.pair = pair;
    p.variant = variant;
    p.size = "n=1,m='x`touch probe_pair`'";
    p.id = "ch01/" + pair + "/" + variant + "[" + p.size + "]";
    p.flops_kind = "fp32";
    p.intensity = ai;
    p.flops_per_s = f;
    return p;
  };
  m.points = {point(kPair, "baseline", 10, 1e12), point(kPair, "it's\nfast", 10, 5e12)};
  m.arrows = {{0, 1}};
  return m;
}

}  // namespace

TEST(RooflineHostile, GnuplotQuoteSingleQuotesDoublesQuotesAndDropsControlCharacters) {
  EXPECT_EQ(gnuplot_quote("plain"), "'plain'");
  EXPECT_EQ(gnuplot_quote("it's"), "'it''s'");
  EXPECT_EQ(gnuplot_quote("a `touch x` \"b\" \\"), "'a `touch x` \"b\" \\'");
  EXPECT_EQ(gnuplot_quote("line\nnext\r\t"), "'line next  '");
  EXPECT_EQ(gnuplot_quote(""), "''");
}

// Needs no gnuplot: the generated script itself is held to gnuplot's quoting rules.
TEST(RooflineHostile, ScriptQuotesEveryStringAndKeepsCommentsOnOneLine) {
  const roofline_model m = hostile_model();
  const gnuplot_files f = roofline_gnuplot(m, "/tmp/x `touch probe_out` $(touch probe_dollar).png",
                                           "/tmp/it's `touch probe_from`\n.dat");
  expect_inert_gnuplot(f.script);
  EXPECT_TRUE(has(f.script, "set label 1 " + gnuplot_quote(m.title) + " ")) << f.script;  // the chart's title
  EXPECT_TRUE(has(f.script, "set output '/tmp/x `touch probe_out` $(touch probe_dollar).png'")) << f.script;
  EXPECT_TRUE(has(f.script, "data = '/tmp/it''s `touch probe_from` .dat'")) << f.script;
  EXPECT_TRUE(has(f.script, "title " + gnuplot_quote(kPair + "/baseline"))) << f.script;
  // The data file: comments and rows of numbers (then text columns), whatever the names hold.
  std::size_t rows = 0;
  for (std::size_t at = 0, end; at < f.data.size(); at = end + 1) {
    end = f.data.find('\n', at);
    if (end == std::string::npos) end = f.data.size();
    const std::string row = f.data.substr(at, end - at);
    if (row.empty() || row[0] == '#') continue;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(row[0]))) << row;
    ++rows;
  }
  EXPECT_EQ(rows, 6u) << f.data;  // the roof's three corners, two points and the arrow between them
}

TEST(RooflineHostile, HostileModelRendersWithoutRunningAnything) {
  temp_dir dir("gpubench_hostile");
  const in_dir here(dir.path);
  const fs::path out = dir.path / "chart `touch probe_out` $(touch probe_dollar).png";
  const render_result r = render_roofline(hostile_model(), out);
  expect_no_probe(dir.path);
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed: " << r.message;
  ASSERT_TRUE(r.image_written) << r.message;
  EXPECT_TRUE(is_png(out));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{out.filename().string()});  // nothing but the image
}

// The hostile-input bar: a copy of a committed profile with a command in its device name, under a
// file name with a command, plotted to a path with a command. Nothing runs; the chart renders.
TEST(RooflineHostile, CliHostileProfileFileNameAndOutPath) {
  temp_dir dir("gpubench_hostile");
  const fs::path prof = hostile_copy(dir.path, "ch01 `touch probe_from` $(touch probe_dollar).json",
                                     [](auto& j) { j["provenance"]["device"]["name"] = kDevice; });
  const std::string out = "chart `touch probe_out`.svg";
  const result r = run_gpubench({"roofline", "--from", prof.filename().string(), "--out", out}, dir.path);
  expect_no_probe(dir.path);
  if (!has_gnuplot()) {
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_TRUE(has(r.output, "gnuplot-nox") && has(r.output, "--format table")) << r.output;
    GTEST_SKIP() << "gnuplot is not installed";
  }
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string svg = slurp(dir.path / out);
  EXPECT_TRUE(has(svg, "<svg")) << svg.substr(0, 200);
  EXPECT_TRUE(has(svg, "touch probe_device")) << "the device name is drawn as text, backquotes and all";
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{prof.filename().string(), out}));
}

// Pair names: what the reader lets through is drawn as text; what it rejects is exit 2 naming it.
TEST(RooflineHostile, CliHostilePairNameIsDrawnOrRejected) {
  temp_dir dir("gpubench_hostile");
  const fs::path prof =
      hostile_copy(dir.path, "pair.json", [](auto& j) { rename_pair(j, "batched_gemm", "batched`touch probe_pair`"); });
  const result r = run_gpubench({"roofline", "--from", "pair.json", "--out", "chart.svg"}, dir.path);
  expect_no_probe(dir.path);
  if (r.status == 2 && !has(r.output, "gnuplot")) {
    EXPECT_TRUE(has(r.output, "pair.json") && has(r.output, "pair")) << r.output;  // rejected by the reader
    return;
  }
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(slurp(dir.path / "chart.svg"), "batched`touch probe_pair`/baseline"));
}

TEST(RooflineHostile, CliChecksForGnuplotBeforeMeasuring) {
  temp_dir dir("gpubench_hostile");
  fs::create_directory(dir.path / "empty");
  const result r = run_gpubench({"roofline", "--chapter", "1", "--quick", "--out", "rf.png"}, dir.path,
                            {"PATH=" + (dir.path / "empty").string()});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "gnuplot not found") && has(r.output, "gnuplot-nox") && has(r.output, "--format table"))
      << r.output;
  EXPECT_FALSE(has(r.output, "CUDA")) << "checked before any GPU work:\n" << r.output;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"empty"});
}

TEST(RooflineHostile, CliLeavesFilesBesideOutUntouched) {
  temp_dir dir("gpubench_hostile");
  fs::copy_file(committed_profile(), dir.path / "in.json");
  for (const char* side : {"rf.json", "rf.gp", "rf.dat", "rf.png.tmp"}) spit(dir.path / side, std::string("mine: ") + side);
  const result r = run_gpubench({"roofline", "--from", "in.json", "--out", "rf.png"}, dir.path,
                            {"TMPDIR=" + dir.path.string()});
  for (const char* side : {"rf.json", "rf.gp", "rf.dat", "rf.png.tmp"})
    EXPECT_EQ(slurp(dir.path / side), std::string("mine: ") + side);
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(is_png(dir.path / "rf.png"));
  // Nothing else: no script, no data, no temporary file or directory left behind (TMPDIR is here).
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"in.json", "rf.dat", "rf.gp", "rf.json", "rf.png", "rf.png.tmp"}));
}

TEST(RooflineHostile, CliChapterRefusesToReplaceTheProfileBesideOut) {
  temp_dir dir("gpubench_hostile");
  spit(dir.path / "rf.json", "mine");
  const result r = run_gpubench({"roofline", "--chapter", "1", "--out", "rf.png", "--format", "table"}, dir.path);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "rf.json") && has(r.output, "exists") && has(r.output, "--force")) << r.output;
  EXPECT_EQ(slurp(dir.path / "rf.json"), "mine");
}

TEST(RooflineHostile, CliKeepScriptWritesScriptAndDataBesideTheImage) {
  temp_dir dir("gpubench_hostile");
  fs::copy_file(committed_profile(), dir.path / "in.json");
  const result r = run_gpubench({"roofline", "--from", "in.json", "--out", "rf.svg", "--keep-script"}, dir.path);
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "script rf.gp, data rf.dat")) << r.output;
  const std::string script = slurp(dir.path / "rf.gp");
  EXPECT_TRUE(has(script, "data = '" + (fs::canonical(dir.path) / "rf.dat").string() + "'") ||
              has(script, "data = '" + (dir.path / "rf.dat").string() + "'"))
      << script;
  expect_inert_gnuplot(script);
  EXPECT_TRUE(has(slurp(dir.path / "rf.dat"), ": batched_gemm/baseline — "));
}

TEST(RooflineHostile, CliRefusesAReadOnlyOutUnlessForced) {
  temp_dir dir("gpubench_hostile");
  fs::copy_file(committed_profile(), dir.path / "in.json");
  spit(dir.path / "rf.png", "mine");
  fs::permissions(dir.path / "rf.png", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const result r = run_gpubench({"roofline", "--from", "in.json", "--out", "rf.png"}, dir.path);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "read-only") && has(r.output, "--force")) << r.output;
  EXPECT_EQ(slurp(dir.path / "rf.png"), "mine");
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const result forced = run_gpubench({"roofline", "--from", "in.json", "--out", "rf.png", "--force"}, dir.path);
  ASSERT_EQ(forced.status, 0) << forced.output;
  EXPECT_TRUE(is_png(dir.path / "rf.png"));
}

TEST(RooflineHostile, CliRefusesASymlinkedOutUnlessForced) {
  temp_dir dir("gpubench_hostile");
  fs::copy_file(committed_profile(), dir.path / "in.json");
  spit(dir.path / "target.png", "mine");
  fs::create_symlink("target.png", dir.path / "rf.png");
  const result r = run_gpubench({"roofline", "--from", "in.json", "--out", "rf.png"}, dir.path);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "symbolic link") && has(r.output, "--force")) << r.output;
  EXPECT_EQ(slurp(dir.path / "target.png"), "mine");
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const result forced = run_gpubench({"roofline", "--from", "in.json", "--out", "rf.png", "--force"}, dir.path);
  ASSERT_EQ(forced.status, 0) << forced.output;
  EXPECT_TRUE(fs::is_symlink(dir.path / "rf.png"));  // the link stays; the file it names is the chart
  EXPECT_TRUE(is_png(dir.path / "target.png"));
}

TEST(RooflineHostile, CliExportRefusesReadOnlyAndSymlinkedOutUnlessForced) {
  temp_dir dir("gpubench_hostile");
  fs::copy_file(committed_profile(), dir.path / "in.json");
  spit(dir.path / "ro.csv", "mine");
  fs::permissions(dir.path / "ro.csv", fs::perms::owner_read);
  spit(dir.path / "target.csv", "mine");
  fs::create_symlink("target.csv", dir.path / "link.csv");
  for (const char* out : {"ro.csv", "link.csv"}) {
    const result r = run_gpubench({"export", "in.json", "--format", "csv", "--out", out}, dir.path);
    EXPECT_EQ(r.status, 2) << out << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--force")) << r.output;
  }
  EXPECT_EQ(slurp(dir.path / "ro.csv"), "mine");
  EXPECT_EQ(slurp(dir.path / "target.csv"), "mine");
  for (const char* out : {"ro.csv", "link.csv"}) {
    const result r = run_gpubench({"export", "in.json", "--format", "csv", "--out", out, "--force"}, dir.path);
    EXPECT_EQ(r.status, 0) << out << ": " << r.output;
  }
  EXPECT_TRUE(slurp(dir.path / "ro.csv").starts_with("id,")) << slurp(dir.path / "ro.csv");
  EXPECT_TRUE(slurp(dir.path / "target.csv").starts_with("id,"));
  EXPECT_TRUE(fs::is_symlink(dir.path / "link.csv"));
}
