// `gpubench report` through the built binary: what it refuses (exit 2, before any work, naming the
// problem), that it writes one file and nothing else, and its size bar: all committed
// profiles in one page under 5 MB that refers to nothing outside itself.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpubench/roofline.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }
std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
bool has_gnuplot() { return !gpubench::find_gnuplot().empty(); }

const std::string kProfiles = std::string(GPUBENCH_SOURCE_DIR) + "/profiles/reference/";

/// `gpubench ARGS` in `dir` with TMPDIR there too (so a leftover temporary file would show),
/// stdout and stderr together. `env` goes before the command ("PATH=/x").
shell_result report(const temp_dir& dir, const std::string& args, const std::string& env = "") {
  return run_shell("cd '" + dir.path.string() + "' && TMPDIR='" + dir.path.string() + "' " + env + " '" + GPUBENCH_EXE +
                   "' report " + args + " 2>&1");
}

}  // namespace

TEST(CliReport, HelpNamesTheCompareRule) {
  const auto r = run_shell(std::string("'") + GPUBENCH_EXE + "' report --help 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* s : {"--out", "--compare", "exactly one", "--history", "--threshold", "--force", "Exit codes"})
    EXPECT_TRUE(has(r.output, s)) << s << "\n" << r.output;
}

TEST(CliReport, RefusesWithoutProfiles) {
  temp_dir dir("gpubench_report_cli");
  const auto r = report(dir, "--out r.html");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "profiles")) << r.output;
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CliReport, RefusesAnUnreadableOrInvalidProfileNamingIt) {
  // report looks for gnuplot before it reads anything (ChecksForGnuplotBeforeReadingAnything), so
  // without it the profile errors are never reached.
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not on PATH";
  temp_dir dir("gpubench_report_cli");
  const auto missing = report(dir, "missing.json --out r.html");
  EXPECT_EQ(missing.status, 2) << missing.output;
  EXPECT_TRUE(has(missing.output, "missing.json")) << missing.output;
  spit(dir.path / "bad.json", "{\"schema\": \"gpubench-profile\", \"schema_version\": 2, \"records\": 7}");
  const auto bad = report(dir, "bad.json --out r.html");
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_TRUE(has(bad.output, "bad.json")) << bad.output;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"bad.json"});
}

TEST(CliReport, RefusesAnOutThatIsNotHtml) {
  temp_dir dir("gpubench_report_cli");
  const auto r = report(dir, "'" + kProfiles + "h100-ch01.json' --out profile.json");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, ".html")) << r.output;
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CliReport, CompareTakesExactlyOneProfile) {
  temp_dir dir("gpubench_report_cli");
  const auto two = report(dir, "'" + kProfiles + "h200-ch01-r2.json' '" + kProfiles + "h200-ch01-r3.json' --compare '" +
                                   kProfiles + "h200-ch01.json' --out r.html");
  EXPECT_EQ(two.status, 2) << two.output;
  EXPECT_TRUE(has(two.output, "exactly one PROFILE") && has(two.output, "2 were given")) << two.output;
  const auto history = report(dir, "'" + kProfiles + "h200-ch01.json' --history '" + kProfiles + "h200-ch01-r2.json' --out r.html");
  EXPECT_EQ(history.status, 2) << history.output;
  EXPECT_TRUE(has(history.output, "--compare")) << history.output;
  EXPECT_TRUE(dir.entries().empty());
}

TEST(CliReport, ChecksForGnuplotBeforeReadingAnything) {
  temp_dir dir("gpubench_report_cli");
  fs::create_directory(dir.path / "empty");
  // A profile that does not exist: the gnuplot message must come first, before any input is read.
  const auto r = report(dir, "missing.json --out r.html", "PATH='" + (dir.path / "empty").string() + "'");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "gnuplot not found") && has(r.output, "gnuplot-nox")) << r.output;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"empty"});
}

TEST(CliReport, RefusesAReadOnlyOrSymlinkedOutUnlessForced) {
  temp_dir dir("gpubench_report_cli");
  spit(dir.path / "ro.html", "mine");
  fs::permissions(dir.path / "ro.html", fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  spit(dir.path / "target.html", "mine");
  fs::create_symlink("target.html", dir.path / "link.html");
  const std::string in = "'" + kProfiles + "h100-ch01.json'";
  for (const char* out : {"ro.html", "link.html"}) {
    const auto r = report(dir, in + " --out " + out);
    EXPECT_EQ(r.status, 2) << out << ": " << r.output;
    EXPECT_TRUE(has(r.output, "--force")) << r.output;
  }
  EXPECT_EQ(slurp(dir.path / "ro.html"), "mine");
  EXPECT_EQ(slurp(dir.path / "target.html"), "mine");
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  for (const char* out : {"ro.html", "link.html"}) {
    const auto r = report(dir, in + " --out " + out + " --force");
    EXPECT_EQ(r.status, 0) << out << ": " << r.output;
  }
  EXPECT_TRUE(slurp(dir.path / "ro.html").starts_with("<!DOCTYPE html>"));
  EXPECT_TRUE(fs::is_symlink(dir.path / "link.html"));  // the link stays; the file it names is the page
  EXPECT_TRUE(slurp(dir.path / "target.html").starts_with("<!DOCTYPE html>"));
}

TEST(CliReport, WritesOnlyThePage) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  temp_dir dir("gpubench_report_cli");
  fs::copy_file(kProfiles + "h100-ch03-metrics.json", dir.path / "ch03.json");
  const auto r = report(dir, "ch03.json");  // --out defaults to report.html
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "wrote report.html")) << r.output;
  // Nothing else: no gnuplot script, no SVG, no temporary directory (TMPDIR is this directory).
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"ch03.json", "report.html"}));
  const std::string html = slurp(dir.path / "report.html");
  EXPECT_TRUE(has(html, "<section class=\"chapter\" id=\"p1-ch03\""));
  EXPECT_TRUE(has(html, "<figure class=\"roofline\">"));
}

TEST(CliReport, CompareShowsVerdictsAndDoesNotGate) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  temp_dir dir("gpubench_report_cli");
  const auto r = report(dir, "'" + kProfiles + "h200-ch01-r6.json' --compare '" + kProfiles + "h200-ch01.json' --history '" +
                                 kProfiles + "h200-ch01-r2.json' '" + kProfiles + "h200-ch01-r3.json' --out c.html");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "26 compared with")) << r.output;
  const std::string html = slurp(dir.path / "c.html");
  EXPECT_TRUE(has(html, "<section class=\"compare\" id=\"compare\">"));
  EXPECT_TRUE(has(html, "drift estimated from 2 earlier runs of the base"));
  EXPECT_TRUE(has(html, "<th>vs base</th>"));
}

// The size bar: every committed profile in one page, under 5 MB, that loads nothing.
TEST(CliReport, AllCommittedProfilesInOnePageUnderFiveMegabytes) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  temp_dir dir("gpubench_report_cli");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kProfiles))
    if (e.path().extension() == ".json") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 18u);
  std::string args;
  for (const auto& n : names) args += " 'profiles/reference/" + n + "'";
  const auto r = run_shell("cd '" + std::string(GPUBENCH_SOURCE_DIR) + "' && '" + GPUBENCH_EXE + "' report" + args +
                           " --out '" + (dir.path / "all.html").string() + "' 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string html = slurp(dir.path / "all.html");
  EXPECT_LT(html.size(), 5u * 1000 * 1000) << "the report of every committed profile must stay under 5 MB";
  for (std::size_t i = 1; i <= names.size(); ++i)
    EXPECT_TRUE(has(html, "<section class=\"profile\" id=\"p" + std::to_string(i) + "\"")) << i;
  std::string l = html;
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* bad : {"<script", "<link", "<img", "<iframe", " src=", "@import", "url(http", "href=\"http", "href='http",
                          "http://", "https://"})
    EXPECT_FALSE(has(l, bad)) << bad;
}
