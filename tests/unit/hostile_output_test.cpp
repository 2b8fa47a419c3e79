/// Outputs that eat inputs, and names that break or forge outputs, against the real gpubench
/// (docs/testing.md, "Hostile inputs"): every output is checked against every input and every
/// other output before anything is written; every XML and SVG output parses with a strict XML
/// parser (xmllint) whatever the names; CSV cells never start a formula; and no control byte from
/// a name reaches the terminal or the markdown.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bounded_child.hpp"
#include "gpubench/roofline.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const std::string kCases = GPUBENCH_SOURCE_DIR "/tests/hostile/cases/";
const std::string kReference = GPUBENCH_SOURCE_DIR "/profiles/reference/";

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool has_xmllint() { return run_shell("command -v xmllint >/dev/null 2>&1").status == 0; }

/// What xmllint says about `file` ("" when it is well-formed XML).
std::string xml_errors(const fs::path& file) {
  const shell_result r = run_shell("xmllint --noout '" + file.string() + "' 2>&1");
  return r.status == 0 ? std::string() : r.output.empty() ? std::string("xmllint failed") : r.output;
}

// ------------------------------------------------------------------ 2: outputs that eat inputs

class outputs_vs_inputs : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy_file(kReference + "h200-ch01.json", dir_.path / "a.json");
    fs::copy_file(kReference + "h200-ch01-r2.json", dir_.path / "b.json");
  }
  /// Runs gpubench in the directory; expects exit 2 naming `needle`, and a.json and b.json unchanged.
  void expect_refused(const std::vector<std::string>& args, const char* needle) {
    const std::string a = slurp(dir_.path / "a.json"), b = slurp(dir_.path / "b.json");
    const child_result r = run_bounded(args, dir_.path);
    EXPECT_EQ(r.exit, 2) << r.err;
    EXPECT_TRUE(has(r.err, needle)) << "no \"" << needle << "\" in: " << r.err;
    expect_bounded(r);
    EXPECT_EQ(slurp(dir_.path / "a.json"), a) << "a.json was changed";
    EXPECT_EQ(slurp(dir_.path / "b.json"), b) << "b.json was changed";
  }
  temp_dir dir_;
};

TEST_F(outputs_vs_inputs, export_over_its_profile) {
  expect_refused({"export", "a.json", "--format", "gbench", "--out", "a.json"}, "is the same file as the profile");
  expect_refused({"export", "a.json", "--format", "csv", "--out", "./a.json"}, "is the same file");
}

TEST_F(outputs_vs_inputs, compare_reports_over_base_new_or_history) {
  expect_refused({"compare", "a.json", "b.json", "--json", "a.json"},
                 "--json 'a.json' is the same file as the base profile");
  expect_refused({"compare", "a.json", "b.json", "--junit", "b.json"},
                 "--junit 'b.json' is the same file as the new profile");
  fs::create_directory(dir_.path / "sub");
  expect_refused({"compare", "a.json", "b.json", "--markdown", "sub/../a.json"}, "the same file");
  // A hard link and a symbolic link are the same file under another name.
  fs::create_hard_link(dir_.path / "a.json", dir_.path / "hard.json");
  expect_refused({"compare", "a.json", "b.json", "--json", "hard.json"}, "the same file as the base profile");
  fs::create_symlink("b.json", dir_.path / "soft.json");
  expect_refused({"compare", "a.json", "b.json", "--json", "soft.json", "--force"}, "the same file as the new profile");
  fs::copy_file(kReference + "h200-ch01-r3.json", dir_.path / "h.json");
  expect_refused({"compare", "a.json", "b.json", "--history", "h.json", "--json", "h.json"}, "the --history run");
}

TEST_F(outputs_vs_inputs, two_outputs_of_one_file) {
  expect_refused({"compare", "a.json", "b.json", "--junit", "x", "--markdown", "x"},
                 "--markdown 'x' and --junit 'x' are the same file");
  EXPECT_FALSE(fs::exists(dir_.path / "x"));
  expect_refused({"compare", "a.json", "b.json", "--junit", "x", "--json", "./x"}, "are the same file");
}

TEST_F(outputs_vs_inputs, report_and_roofline_over_their_profiles) {
  fs::copy_file(dir_.path / "a.json", dir_.path / "p.html");
  const std::string html = slurp(dir_.path / "p.html");
  expect_refused({"report", "p.html", "--out", "p.html"}, "--out 'p.html' is the same file as the profile");
  expect_refused({"report", "b.json", "--compare", "a.json", "--out", "r.html", "--history", "r.html"}, "");
  EXPECT_EQ(slurp(dir_.path / "p.html"), html);
  fs::copy_file(dir_.path / "a.json", dir_.path / "p.svg");
  const std::string svg = slurp(dir_.path / "p.svg");
  if (!gpubench::find_gnuplot().empty())
    expect_refused({"roofline", "--from", "p.svg", "--out", "p.svg"},
                   "--out 'p.svg' is the same file as the --from profile");
  fs::copy_file(dir_.path / "a.json", dir_.path / "p.gp");
  if (!gpubench::find_gnuplot().empty())
    expect_refused({"roofline", "--from", "p.gp", "--out", "p.svg", "--keep-script", "--force"}, "the kept script");
  EXPECT_EQ(slurp(dir_.path / "p.svg"), svg);
}

TEST_F(outputs_vs_inputs, run_out_over_its_confirm_base) {
  // Refused before any GPU is looked for, so the same exit with or without one.
  expect_refused({"run", "--chapter", "1", "--confirm", "a.json", "--out", "a.json"},
                 "--out 'a.json' is the same file as the --confirm base");
}

// ------------------------------------------------------------------ 6: CSV formula injection

TEST(hostile_output, csv_cells_never_start_a_formula) {
  temp_dir dir;
  const child_result r = run_bounded({"export", kCases + "csv-formula.json", "--format", "csv"}, dir.path);
  ASSERT_EQ(r.exit, 0) << r.err;
  expect_bounded(r);
  for (const char* cell :
       {"'=HYPERLINK(\"\"http://e.test/x\"\",\"\"click\"\")", "'+cmd|' /C calc'!A0", ",'-1+1,", ",\"'@SUM(1,2)\","})
    EXPECT_TRUE(has(r.out, cell)) << cell << " in:\n" << r.out;
  for (const char* raw : {",=", ",+", ",-", ",@", ",\"=", ",\"+", ",\"-", ",\"@"})
    EXPECT_FALSE(has(r.out, raw)) << raw << " in:\n" << r.out;
}

// ------------------------------------------------------------------ 7, 11: hostile names

/// File names an attacker picks: XML's CDATA end, a byte that is not UTF-8, terminal escapes that
/// clear the screen and paint "ALL GREEN", a newline that forges a line, a bidi override.
const std::vector<std::string> kHostileFileNames = {"x]]>y.json", "bad\xff.json",
                                                    "\x1b[2J\x1b[1;32mALL GREEN\x1b[0m.json",
                                                    "a\ngpubench: FORGED.json",
                                                    "\xe2\x80\xae"
                                                    "evil.json"};

void expect_inert_terminal_text(const std::string& text, const std::string& what) {
  EXPECT_FALSE(has(text, "\x1b")) << what << " carries an escape:\n" << text;
  EXPECT_FALSE(has(text, "\xe2\x80\xae")) << what << " carries a bidi override";
  EXPECT_FALSE(has(text, "\nFORGED") || has(text, "\ngpubench: FORGED")) << what << " has a forged line:\n" << text;
}

TEST(hostile_output, hostile_file_names_break_no_output) {
  if (!has_xmllint()) GTEST_SKIP() << "xmllint is not installed (scripts/setup-deps.sh installs libxml2-utils)";
  temp_dir dir;
  fs::copy_file(kReference + "h200-ch01-r2.json", dir.path / "new.json");
  for (const std::string& name : kHostileFileNames) {
    SCOPED_TRACE(name);
    fs::copy_file(kReference + "h200-ch01.json", dir.path / name, fs::copy_options::overwrite_existing);
    const child_result r =
        run_bounded({"compare", name, "new.json", "--junit", "j.xml", "--markdown", "m.md", "--json", "c.json"},
                    dir.path);
    EXPECT_EQ(r.exit, 0) << r.err;
    expect_bounded(r);
    EXPECT_EQ(xml_errors(dir.path / "j.xml"), "");
    EXPECT_FALSE(ojson::parse(slurp(dir.path / "c.json"), nullptr, false).is_discarded());
    expect_inert_terminal_text(r.out + r.err, "the console");
    expect_inert_terminal_text(slurp(dir.path / "m.md"), "the markdown");
    if (gpubench::find_gnuplot().empty()) continue;
    const child_result svg = run_bounded({"roofline", "--from", name, "--out", "r.svg", "--force"}, dir.path);
    EXPECT_EQ(svg.exit, 0) << svg.err;
    EXPECT_EQ(xml_errors(dir.path / "r.svg"), "");
    expect_inert_terminal_text(svg.out + svg.err, "roofline's console");
    // A name that does not exist: the error message names it, shown and not obeyed.
    const child_result missing = run_bounded({"export", "missing-" + name, "--format", "csv"}, dir.path);
    EXPECT_EQ(missing.exit, 2);
    expect_inert_terminal_text(missing.err, "the error message");
  }
}

TEST(hostile_output, hostile_names_inside_a_profile_break_no_output) {
  if (!has_xmllint()) GTEST_SKIP() << "xmllint is not installed (scripts/setup-deps.sh installs libxml2-utils)";
  temp_dir dir;
  const std::string p = kCases + "hostile-names.json";
  const child_result r =
      run_bounded({"compare", p, p, "--junit", "j.xml", "--markdown", "m.md", "--json", "c.json"}, dir.path);
  EXPECT_EQ(r.exit, 0) << r.err;
  EXPECT_EQ(xml_errors(dir.path / "j.xml"), "");
  expect_inert_terminal_text(r.out + r.err, "the console");
  const std::string md = slurp(dir.path / "m.md");
  EXPECT_FALSE(has(md, "<b>")) << md;       // raw HTML from a name stays text
  EXPECT_FALSE(has(md, "[x](http")) << md;  // and a link stays text
  for (const std::string format : {"markdown", "csv"}) {
    const child_result e = run_bounded({"export", p, "--format", format}, dir.path);
    EXPECT_EQ(e.exit, 0) << e.err;
    expect_inert_terminal_text(e.out, format);
    if (format == "markdown") EXPECT_FALSE(has(e.out, "<b>")) << e.out;
  }
  if (gpubench::find_gnuplot().empty()) GTEST_SKIP() << "gnuplot is not installed";
  const child_result svg = run_bounded({"roofline", "--from", p, "--out", "r.svg"}, dir.path);
  EXPECT_EQ(svg.exit, 0) << svg.err;
  EXPECT_EQ(xml_errors(dir.path / "r.svg"), "");
  const child_result table = run_bounded({"roofline", "--from", p, "--format", "table"}, dir.path);
  EXPECT_EQ(table.exit, 0) << table.err;
  expect_inert_terminal_text(table.out, "the roofline table");
}

}  // namespace
