// The HTML report's library side: escaping of hostile text, gnuplot's SVG made fit for one page,
// Tukey boxes by hand, the box plots' gnuplot script held to gnuplot's quoting rules, the page's
// structure for committed profiles (every chapter, pair and record), the first screen's summary
// with intervals, speedup charts, counters, a tuning grid's heatmap, the comparison regressions
// first with its interval bars, and a profile full of markup and shell syntax that must come out
// as text.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpubench/format.hpp"
#include "gpubench/report.hpp"
#include "gpubench/roofline.hpp"
#include "gpubench/speedup_interval.hpp"
#include "gpubench/stats.hpp"
#include "report/box_plot.hpp"
#include "report/html_escape.hpp"
#include "report/html_interval.hpp"
#include "report/html_parts.hpp"
#include "report/svg_inline.hpp"
#include "report/speedup_chart.hpp"
#include "report/svg_path.hpp"
#include "process/gnuplot_process.hpp"
#include "synthetic_tuning.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace gpubench;

namespace {

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }
std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_gnuplot() { return !find_gnuplot().empty(); }

fs::path committed(const std::string& name) { return fs::path(GPUBENCH_SOURCE_DIR) / "profiles/reference" / name; }

report_input input_of(const std::vector<std::string>& names) {
  report_input in;
  for (const auto& n : names) in.profiles.push_back({"profiles/reference/" + n, read_profile(committed(n))});
  return in;
}

/// The current directory moved to a fresh one for a scope: a command that gnuplot ran would
/// leave its probe file here.
struct scratch_cwd {
  fs::path saved = fs::current_path(), path;
  scratch_cwd() {
    std::string tmpl = (fs::temp_directory_path() / "gpubench_report_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path = tmpl;
    fs::current_path(path);
  }
  ~scratch_cwd() {
    fs::current_path(saved);
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};


}  // namespace

TEST(ReportEscape, HostileTextBecomesText) {
  using detail::html_escape;
  EXPECT_EQ(html_escape("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(html_escape("a & b"), "a &amp; b");
  EXPECT_EQ(html_escape("\"double\" 'single' `back`"), "&quot;double&quot; &#39;single&#39; &#96;back&#96;");
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // already-escaped text is escaped again: it is text
  EXPECT_EQ(html_escape("µs — 13.6×"), "µs — 13.6×");  // UTF-8 passes through
  EXPECT_EQ(html_escape("tab\tline\n"), "tab\tline\n");
  EXPECT_EQ(html_escape(std::string("nul\0bell\a", 9)), "nul\xEF\xBF\xBD" "bell\xEF\xBF\xBD");
  EXPECT_EQ(html_escape("esc\x1b[31m del\x7f"), "esc\xEF\xBF\xBD[31m del\xEF\xBF\xBD");
  EXPECT_EQ(html_escape("csi\xC2\x9B" "2J"), "csi\xEF\xBF\xBD" "2J");  // a C1 control: both bytes go
  EXPECT_EQ(html_escape(""), "");
  EXPECT_EQ(detail::html_id("batched_gemm"), "batched_gemm");
  EXPECT_EQ(detail::html_id("a b\"<x>#/[m=1]"), "a_b__x____m_1_");
}

TEST(ReportSvg, InlinedSvgIsScopedAndStripped) {
  const std::string svg = "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n<!-- c -->\n"
                          "<svg \n viewBox=\"0 0 600 330\"\n xmlns=\"http://www.w3.org/2000/svg\"\n "
                          "xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n>\n"
                          "<title>Gnuplot</title>\n<g id=\"gnuplot_canvas\">\n<defs><path id='gpPt7' d='M0,0'/>\n"
                          "<use xlink:href='#gpPt7' id='gpPt8'/><path id='gpPt9' d='M1,1'/></defs>\n<g "
                          "id=\"gnuplot_plot_1\"><title>a</title></g>"
                          "<g id=\"gnuplot_plot_1\"></g>\n<use xlink:href='#gpPt8'/>\n<rect filter='url(#textbox)'/>\n"
                          "<text>url(#kept) id='kept' &lt;b></text>\n</g>\n</svg>\n";
  const std::string out = detail::inline_svg(svg, "p1-b0-", "ch01/x: <\"title\">", "boxplot");
  EXPECT_TRUE(out.starts_with("<svg")) << out;
  EXPECT_TRUE(out.ends_with("</svg>")) << out;
  EXPECT_FALSE(has(out, "<?xml") || has(out, "<!--") || has(out, "xmlns") || has(out, "http")) << out;
  EXPECT_TRUE(has(out, "role=\"img\" aria-label=\"ch01/x: &lt;&quot;title&quot;&gt;\" class=\"boxplot\">")) << out;
  EXPECT_TRUE(has(out, "<title>ch01/x: &lt;&quot;title&quot;&gt;</title>")) << out;
  EXPECT_TRUE(has(out, "id=\"p1-b0-gnuplot_canvas\"")) << out;
  EXPECT_TRUE(has(out, "id='p1-b0-gpPt7'") && has(out, "xlink:href='#p1-b0-gpPt7'")) << out;
  // A definition nothing refers to goes; one referred to through another kept one stays.
  EXPECT_TRUE(has(out, "id='p1-b0-gpPt8'") && has(out, "xlink:href='#p1-b0-gpPt8'")) << out;
  EXPECT_FALSE(has(out, "gpPt9")) << out;
  EXPECT_TRUE(has(out, "id=\"p1-b0-gnuplot_plot_1\"") && has(out, "id=\"p1-b0-gnuplot_plot_1-2\"")) << out;  // gnuplot's repeat
  EXPECT_TRUE(has(out, "filter='url(#p1-b0-textbox)'")) << out;
  EXPECT_TRUE(has(out, "<text>url(#kept) id='kept' &lt;b></text>")) << "text is not markup:\n" << out;
  EXPECT_EQ(detail::svg_view_width(svg), 600);
  EXPECT_EQ(detail::svg_view_width("<svg width='3'>"), 0);
}

// gnuplot's empty style groups go (nested ones too), groups with an id or with anything drawn in
// them stay, and indentation after a line break goes while text keeps its spaces.
TEST(ReportSvg, EmptyStyleGroupsAndIndentationAreDropped) {
  const std::string svg =
      "<svg viewBox='0 0 9 9'>\n<g fill=\"none\" color=\"black\">\n\t</g>\n"
      "<g stroke='red'>\n\t<g fill='none'>\n</g>\n</g>\n<g id='keep'></g>\n"
      "<g stroke='blue'>\n\t\t<path d='M1,1 L2,2' />\n</g>\n<text> a  b </text>\n</svg>";
  const std::string out = detail::inline_svg(svg, "p-", "t", "c");
  EXPECT_FALSE(has(out, "color=\"black\"") || has(out, "stroke='red'") || has(out, "fill='none'")) << out;
  EXPECT_TRUE(has(out, "<g id='p-keep'></g>")) << out;
  EXPECT_TRUE(has(out, "<g stroke='blue'>\n<path d='M1,1 L2,2' />\n</g>")) << out;
  EXPECT_TRUE(has(out, "<text> a  b </text>")) << out;
  EXPECT_FALSE(has(out, "\t")) << out;
}

TEST(ReportSvg, RefusesWhatWouldRunOrLoad) {
  const auto refused = [](const std::string& body) {
    try {
      (void)detail::inline_svg("<svg viewBox='0 0 1 1'>" + body + "</svg>", "p-", "t", "c");
    } catch (const error& e) {
      return e.code() == exit_code::runtime_failure;
    }
    return false;
  };
  EXPECT_TRUE(refused("<script>alert(1)</script>"));
  EXPECT_TRUE(refused("<SCRIPT>alert(1)</SCRIPT>"));
  EXPECT_TRUE(refused("<rect onload='alert(1)'/>"));
  EXPECT_TRUE(refused("<image href='https://example.com/x.png'/>"));
  EXPECT_TRUE(refused("<use href='https://example.com/s.svg#p'/>"));
  EXPECT_TRUE(refused("<rect style='fill:url(https://example.com/p)'/>"));
  EXPECT_TRUE(refused("<foreignObject><p>x</p></foreignObject>"));
  EXPECT_TRUE(refused("<![CDATA[ x ]]>"));
  EXPECT_FALSE(refused("<rect fill='url(#p)'/><use xlink:href='#q'/>"));
  EXPECT_THROW((void)detail::inline_svg("no svg here", "p-", "t", "c"), error);
}

TEST(ReportSvg, PolylinesLoseOnlyPointsOnTheirLine) {
  using detail::simplify_polyline_path;
  EXPECT_EQ(simplify_polyline_path("M0,0 L1,1 L2,2 L3,3", 0.1), "M0,0 L3,3");
  EXPECT_EQ(simplify_polyline_path("M0,0 L1,0 L2,0 L2,1 L2,2", 0.1), "M0,0 L2,0 L2,2");  // the corner stays
  EXPECT_EQ(simplify_polyline_path("M0,0 L1,0 L2,0 M5,5 L6,6 L7,7", 0.1), "M0,0 L2,0 M5,5 L7,7");
  EXPECT_EQ(simplify_polyline_path("M0,0 L1,0.05 L2,0", 0.1), "M0,0 L2,0");        // within the tolerance
  EXPECT_EQ(simplify_polyline_path("M0,0 L1,0.5 L2,0", 0.1), "M0,0 L1,0.5 L2,0");  // beyond it
  EXPECT_EQ(simplify_polyline_path("M1244.51,1163.75 L1244.68,1163.57\n\t\tL1244.86,1163.39", 0.1),
            "M1244.51,1163.75 L1244.86,1163.39");  // gnuplot's line breaks; kept points keep their text
  // Anything but absolute moves and lines comes back as it was.
  for (const char* d : {"M-1,0 h2 M0,-1 v2", "M0,0 L1,1 z", "M0,0 C1,1 2,2 3,3", "L1,1 L2,2", "M0,0 L1,x", ""})
    EXPECT_EQ(simplify_polyline_path(d, 0.1), d) << d;
  // A long straight run: a thousand points, two kept.
  std::string d = "M0,0";
  for (int i = 1; i <= 1000; ++i) d += " L" + std::to_string(i) + "," + std::to_string(2 * i);
  EXPECT_EQ(simplify_polyline_path(d, 0.1), "M0,0 L1000,2000");
}

TEST(ReportBoxPlot, TukeyBoxByHand) {
  // 1..10 and 100: type-7 quartiles at ranks 2.5, 5, 7.5 → 3.5, 6, 8.5; IQR 5, fences -4 and 16.
  const std::vector<double> v{7, 1, 2, 100, 3, 4, 5, 6, 8, 9, 10};
  const detail::box_stats b = detail::tukey_box(v);
  EXPECT_EQ(b.count, 11u);
  EXPECT_DOUBLE_EQ(b.q1, 3.5);
  EXPECT_DOUBLE_EQ(b.median, 6);
  EXPECT_DOUBLE_EQ(b.q3, 8.5);
  EXPECT_DOUBLE_EQ(b.low, 1);
  EXPECT_DOUBLE_EQ(b.high, 10);
  EXPECT_EQ(b.outliers, std::vector<double>{100});
  // The same quartiles as the profile's summary, so the chart and the table agree.
  const summary s = summarize(v);
  EXPECT_DOUBLE_EQ(b.q1, s.q1);
  EXPECT_DOUBLE_EQ(b.median, s.median);
  EXPECT_DOUBLE_EQ(b.q3, s.q3);
  const detail::box_stats one = detail::tukey_box(std::vector<double>{2e-6});
  EXPECT_DOUBLE_EQ(one.low, 2e-6);
  EXPECT_DOUBLE_EQ(one.high, 2e-6);
  EXPECT_TRUE(one.outliers.empty());
}

TEST(ReportBoxPlot, ScriptQuotesEveryNameAndDataHoldsOnlyNumbers) {
  detail::box_chart c;
  c.groups = {"n='1' `touch probe_group`", "n=2\nsystem('touch probe_nl')"};
  c.series = {"baseline", "it's `touch probe_series` \"x\" $(touch probe_dollar) \\"};
  std::vector<double> samples;
  for (int i = 0; i < 50; ++i) samples.push_back(1e-3 * (1 + 0.001 * (i % 7)));
  samples.push_back(5e-3);  // an outlier far above: counted, not drawn
  c.boxes = {{0, 0, samples}, {0, 1, samples}, {1, 1, samples}, {1, 0, {}}};
  const detail::box_plot_files f = detail::box_plots_gnuplot({c, c}, "/tmp/x `touch probe_dir`", "/tmp/it's.dat");
  expect_inert_gnuplot(f.script);
  EXPECT_TRUE(has(f.script, "data = '/tmp/it''s.dat'")) << f.script;
  EXPECT_TRUE(has(f.script, "set output '/tmp/x `touch probe_dir`/box1.svg'")) << f.script;
  EXPECT_TRUE(has(f.script, "title " + gnuplot_quote(c.series[1]))) << f.script;
  EXPECT_TRUE(has(f.script, gnuplot_quote(c.groups[1]))) << f.script;
  EXPECT_TRUE(has(f.script, "set label '1 ↑'")) << f.script;
  std::size_t rows = 0;
  for (std::size_t at = 0, end; at < f.data.size(); at = end + 1) {
    end = f.data.find('\n', at);
    const std::string row = f.data.substr(at, end - at);
    if (row.empty() || row[0] == '#') continue;
    for (char ch : row) EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(ch)) || std::strchr(" .-+e", ch)) << row;
    ++rows;
  }
  EXPECT_EQ(rows, 2u * 3u) << f.data;  // two charts of three boxes; the outlier is off the chart
}

TEST(ReportBoxPlot, RendersHostileNamesAsTextWithoutRunningAnything) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const scratch_cwd here;
  detail::box_chart c;
  c.groups = {"m=`touch probe_group`"};
  c.series = {"<b>it's</b> `touch probe_series`"};
  c.boxes = {{0, 0, {1.0, 1.1, 0.9, 1.05, 1.0}}};
  const detail::private_dir scratch;
  const auto svgs = detail::render_box_plots({c}, find_gnuplot(), scratch.path());
  ASSERT_EQ(svgs.size(), 1u);
  EXPECT_TRUE(has(svgs[0], "&lt;b>it's&lt;/b> `touch probe_series`")) << svgs[0];
  EXPECT_FALSE(fs::exists(here.path / "probe_group") || fs::exists(here.path / "probe_series"));
}

TEST(ReportHtml, EveryChapterPairAndRecordOfCommittedProfiles) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  report_input in = input_of({"h100-ch01.json", "h100-ch03-metrics.json"});
  in.chapters[3] = "Arithmetic intensity";
  in.pairs["ch03/softmax_fusion"] = {"Softmax", "Fusing saves <passes>.", {{"baseline", "three kernels"}}};
  std::vector<std::string> steps;
  const std::string html = html_report(in, [&](std::size_t done, std::size_t total, const std::string& what) {
    steps.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + what);
  });
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>")) << html.substr(0, 100);
  EXPECT_TRUE(html.ends_with("</html>\n"));
  EXPECT_TRUE(has(html, "content=\"default-src 'none'; style-src 'unsafe-inline'\"")) << "the page may load nothing";
  // One box-plot run and one roofline per chapter, then "done".
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps.back(), "3/3 done");

  for (std::size_t i = 0; i < in.profiles.size(); ++i) {
    const profile& p = in.profiles[i].prof;
    const std::string anchor = "p" + std::to_string(i + 1);
    EXPECT_TRUE(has(html, "<section class=\"profile\" id=\"" + anchor + "\" data-source=\"" + in.profiles[i].source + "\">"));
    std::set<int> chapters;
    std::set<std::string> pairs;
    for (std::size_t k = 0; k < p.records.size(); ++k) {
      const record& r = p.records[k];
      chapters.insert(r.chapter);
      pairs.insert(r.pair);
      EXPECT_TRUE(has(html, "<tr id=\"" + anchor + "-r" + std::to_string(k + 1) + "\">")) << r.id();
      EXPECT_TRUE(has(html, "<strong>" + r.variant + "</strong>")) << r.id();
    }
    for (int ch : chapters) {
      const std::string id = fmt::format("{}-ch{:02d}", anchor, ch);
      const std::size_t at = html.find("<section class=\"chapter\" id=\"" + id + "\"");
      ASSERT_NE(at, std::string::npos) << id;
      // The roofline comes first in its chapter, as inline SVG.
      const std::size_t figure = html.find("<figure class=\"roofline\">", at);
      ASSERT_NE(figure, std::string::npos) << id;
      const std::size_t svg = html.find("<svg", figure);
      EXPECT_LT(svg, html.find("</figure>", figure)) << id;
      EXPECT_TRUE(has(html.substr(svg, html.find('>', svg) - svg), "class=\"roofline\"")) << id;
      EXPECT_LT(figure, html.find("<section class=\"pair\"", at)) << id;
    }
    for (const auto& pair : pairs) EXPECT_EQ(count(html, "-" + pair + "\" data-pair=\""), 1u) << pair;
  }
  EXPECT_EQ(count(html, "<figure class=\"roofline\">"), 2u);
  EXPECT_EQ(count(html, "<figure class=\"boxplot\""), 6u);  // three pairs in each profile
  EXPECT_TRUE(has(html, "Chapter 3 <span class=\"title\">— Arithmetic intensity</span>"));
  EXPECT_TRUE(has(html, "<p class=\"explanation\">Fusing saves &lt;passes&gt;.</p>"));
  EXPECT_TRUE(has(html, "<small>three kernels</small>"));
  EXPECT_TRUE(has(html, "This gpubench does not know this pair"));  // pairs without notes
  EXPECT_TRUE(has(html, "Ceilings, measured"));                     // ch03-metrics embeds measured ones
  EXPECT_TRUE(has(html, "Ceilings, theoretical"));                  // h100-ch01 has none
  // Self-contained: nothing that loads or runs.
  const std::string l = lower(html);
  for (const char* bad : {"<script", "<link", "<img", "<iframe", " src=", "@import", "url(http", "href=\"http", "href='http"})
    EXPECT_FALSE(has(l, bad)) << bad;
}

TEST(ReportHtml, ComparisonListsRegressionsFirst) {
  comparison c;
  c.base_source = "base.json";
  c.new_source = "new.json";
  auto add = [&](const std::string& id, verdict v, double ratio, bool critical = false) {
    record_comparison r;
    r.id = id;
    r.result = v;
    r.critical = critical;
    r.ratio = {ratio, ratio * 0.98, ratio * 1.02};
    r.base_median = 1e-3;
    r.new_median = ratio * 1e-3;
    c.records.push_back(r);
  };
  add("same_a", verdict::same, 1.0);
  add("faster_a", verdict::faster, 0.8);
  add("slower_small", verdict::slower, 1.08);
  add("inconclusive_a", verdict::inconclusive, 1.1);
  add("slower_big", verdict::slower, 1.3);
  add("slower_critical", verdict::slower, 1.2, true);
  std::vector<std::string> order;
  for (const record_comparison* r : regressions_first(c)) order.push_back(r->id);
  EXPECT_EQ(order, (std::vector<std::string>{"slower_critical", "slower_big", "slower_small", "inconclusive_a", "faster_a",
                                             "same_a"}));
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  report_input in = input_of({"h100-ch01.json"});
  in.compare = c;
  const std::string html = html_report(in);
  const std::size_t section = html.find("<section class=\"compare\" id=\"compare\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(section, html.find("<section class=\"profile\""));  // before the profiles
  std::size_t last = section;
  for (const auto& id : order) {
    const std::size_t at = html.find("<code>" + id + "</code>", section);
    ASSERT_NE(at, std::string::npos) << id;
    EXPECT_GT(at, last) << id << " out of order";
    last = at;
  }
  EXPECT_TRUE(has(html, "slower (critical)"));
  EXPECT_TRUE(has(html, "3 slower (1 critical)"));
}

TEST(ReportHtml, ComparisonSaysWhenRecordsWereJudgedOnTheRawEventSpan) {
  comparison c;
  c.base_source = "base.json";
  c.new_source = "new.json";
  record_comparison r;
  r.id = "ch02/transpose/tiled[n=1024]";
  r.result = verdict::same;
  r.ratio = {1.0, 0.99, 1.01};
  r.base_median = r.new_median = 9e-6;
  c.records.push_back(r);
  EXPECT_FALSE(has(detail::html_compare(c, {}), "timed differently"));
  c.records[0].figures_differ = true;
  EXPECT_TRUE(has(detail::html_compare(c, {}), "<p class=\"warning\">⚠ 1 record was timed differently in base and new"));
}

// A profile whose every free-text field holds markup and shell syntax, read through nothing that
// would clean it: the page shows it as text, and no command runs.
TEST(ReportHtml, HostileProfileTextStaysText) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const scratch_cwd here;
  report_input in = input_of({"h100-ch01.json"});
  in.profiles[0].source = "prof\"<b>`touch probe_source`.json";
  profile& p = in.profiles[0].prof;
  const std::string evil = "<script>alert(1)</script><img src=x onerror=alert(2)>`touch probe_text`'\"&";
  p.prov.device.name = "H100 " + evil;
  p.prov.hostname = evil;
  p.prov.argv = {"gpubench", evil};
  p.prov.git_sha = evil;
  for (record& r : p.records) {
    r.reason = evil;
    if (r.variant != "baseline") r.variant = "v`touch probe_variant`<i>";
    r.check.message = evil;
  }
  p.records[1].status = record_status::error;
  in.pairs["ch01/batched_gemm"] = {evil, evil, {{"baseline", evil}}};
  in.chapters[1] = evil;
  const std::string html = html_report(in);
  const std::string l = lower(html);
  for (const char* bad : {"<script", "<img", "<i>", "<b>"}) EXPECT_FALSE(has(l, bad)) << bad;
  EXPECT_TRUE(has(html, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#96;touch probe_text&#96;&#39;&quot;&amp;"));
  for (const char* probe : {"probe_source", "probe_text", "probe_variant"})
    EXPECT_FALSE(fs::exists(here.path / probe)) << probe << ": a command ran";
}

TEST(ReportHtml, MissingGnuplotIsAUsageErrorNamingIt) {
  const char* old = std::getenv("PATH");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("PATH", "/nonexistent-gpubench-test", 1);
  const std::string message = usage_message([&] { (void)html_report(input_of({"h100-ch01.json"})); });
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_TRUE(has(message, "gnuplot") && has(message, "gnuplot-nox")) << message;
  EXPECT_TRUE(has(usage_message([] { (void)html_report(report_input{}); }), "no profile"));
}

// What a record measured about itself shows under its variant: launch facts (chapter 6), a
// tuning rank, and goodput (ch01/training_step), each escaped like any profile text.
TEST(ReportHtml, VariantCellShowsLaunchFactsRankAndGoodput) {
  record r;
  r.chapter = 1;
  r.pair = "training_step";
  r.variant = "graph";
  r.size = size_point({{"batch", 32}});
  r.timing.samples_s = {1e-3, 1e-3, 1e-3};
  r.stats = summarize(r.timing.samples_s);
  r.facts = {{"registers_per_thread", 64}, {"theoretical_occupancy_pct", 50}};
  r.tuning = tuning_result{{}, 1};
  r.goodput = goodput_info{0.431, 0.862e-3, 2e-3, 5, ""};
  record unmeasured = r;
  unmeasured.variant = "baseline";
  unmeasured.facts.clear();
  unmeasured.tuning.reset();
  unmeasured.goodput = goodput_info{0, 0, 0, 0, "CUPTI <unavailable>"};
  const std::string t = detail::html_record_table({&unmeasured, &r}, {}, {});
  EXPECT_NE(t.find("launch: "), std::string::npos) << t;
  EXPECT_NE(t.find("64 registers"), std::string::npos) << t;
  EXPECT_NE(t.find("tuning rank 1 (best)"), std::string::npos) << t;
  EXPECT_NE(t.find("goodput 43.1% (GPU kernels 862"), std::string::npos) << t;
  EXPECT_NE(t.find("goodput: CUPTI &lt;unavailable&gt;"), std::string::npos) << t;
}

// gnuplot writes some attributes with spaces around '=' (a filled polygon's "fill = 'rgb(...)'"):
// the attribute keeps its value, or the band behind a chart would vanish.
TEST(ReportSvg, SpacesAroundEqualsKeepTheValue) {
  const std::string out = detail::inline_svg(
      "<svg viewBox=\"0 0 10 10\"><polygon fill = 'rgb(230, 230, 230)' points  =  '1,2 3,4 '/></svg>", "p1-", "t", "c");
  EXPECT_TRUE(has(out, "<polygon fill='rgb(230, 230, 230)' points='1,2 3,4 ' />")) << out;
}

TEST(ReportCharts, LogTicksLadderAndNarrow) {
  EXPECT_EQ(detail::log_ticks(0.8, 30), (std::vector<double>{1, 2, 5, 10, 20}));
  EXPECT_EQ(detail::log_ticks(0.5, 2000), (std::vector<double>{1, 10, 100, 1000}));
  const std::vector<double> narrow = detail::log_ticks(0.9, 1.2);  // a comparison's ratios
  ASSERT_EQ(narrow.size(), 3u);
  EXPECT_NEAR(narrow[0], 0.9, 1e-12);
  EXPECT_NEAR(narrow[1], 1.0, 1e-12);
  EXPECT_NEAR(narrow[2], 1.1, 1e-12);
}

// The first screen answers the question: for every pair of the chapter, the fastest variant at its
// largest size and its speedup over the baseline with the interval speedup_interval() gives, before
// any profile's section; each pair then has a speedup chart on a log axis.
TEST(ReportHtml, SummaryFirstWithIntervalsAndLadderCharts) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const report_input in = input_of({"h100-ch07.json"});
  const std::string html = html_report(in);
  const std::size_t summary = html.find("<section class=\"summary\" id=\"summary\">");
  ASSERT_NE(summary, std::string::npos);
  EXPECT_LT(summary, html.find("<section class=\"profile\""));
  const profile& p = in.profiles[0].prof;
  const auto find = [&](const std::string& id) {
    return &*std::find_if(p.records.begin(), p.records.end(), [&](const record& r) { return r.id() == id; });
  };
  const auto s = speedup_interval(*find("ch07/sgemm_ladder/naive[n=8192]"), *find("ch07/sgemm_ladder/cublas[n=8192]"));
  ASSERT_TRUE(s.has_value());
  const std::size_t row = html.find("<tr data-pair=\"sgemm_ladder\">", summary);
  ASSERT_NE(row, std::string::npos);
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_TRUE(has(cells, "<strong>cublas</strong>")) << cells;
  EXPECT_TRUE(has(cells, "n=8192")) << cells;
  EXPECT_TRUE(has(cells, format_factor(s->estimate))) << cells;
  EXPECT_TRUE(has(cells, detail::interval_text(*s))) << cells;
  EXPECT_TRUE(has(cells, "class=\"x good\"")) << "a 9.6× speedup lies outside the same band: " << cells;
  EXPECT_TRUE(has(cells, "<span class=\"range good\"")) << cells;
  // tma_copy's best is within the same band: no colour.
  const std::size_t tma = html.find("<tr data-pair=\"tma_copy\">", summary);
  const std::string tma_cells = html.substr(tma, html.find("</tr>", tma) - tma);
  EXPECT_TRUE(has(tma_cells, "class=\"x \"")) << tma_cells;
  // Every pair has its speedup chart, drawn on a log axis with the ladder's values written.
  EXPECT_EQ(count(html, "<figure class=\"speedup\""), 5u);
  const std::size_t ladder = html.find("id=\"p1-ch07-sgemm_ladder\"");
  const std::size_t chart = html.find("<svg", html.find("<figure class=\"speedup\"", ladder));
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_TRUE(has(svg, ">10×<")) << "a log axis ticks 1×, 2×, 5×, 10×";
  EXPECT_TRUE(has(svg, ">" + format_factor(s->estimate) + "<")) << "the headline size's values are written";
  // The box plots stay, on demand.
  EXPECT_EQ(count(html, "<details class=\"spread\"><summary>Spread of the samples"), 5u);
}

// The first screen holds every chapter: a block per chapter, on its own speedup scale, and the
// blocks in two columns on a wide page once there are several (one alone spans the page).
TEST(ReportHtml, SummaryBlockPerChapterInColumns) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string many = html_report(input_of({"h100-ch01.json", "h100-ch04.json", "h100-ch07.json"}));
  const std::size_t summary = many.find("<section class=\"summary\" id=\"summary\">");
  ASSERT_NE(summary, std::string::npos);
  const std::string first = many.substr(summary, many.find("</section>", summary) - summary);
  EXPECT_TRUE(has(first, "<div class=\"glance cols\">")) << first;
  for (const int ch : {1, 4, 7}) {
    const std::size_t card = first.find(fmt::format("<div class=\"card\" data-chapter=\"{}\">", ch));
    ASSERT_NE(card, std::string::npos) << ch;
    const std::string block = first.substr(card, first.find("</table></div>", card) - card);
    EXPECT_EQ(count(block, "<table class=\"glance\">"), 1u) << "one table per chapter: " << block;
    EXPECT_EQ(count(block, "<div class=\"track-axis\">"), 1u) << "its own speedup scale: " << block;
    EXPECT_TRUE(has(block, fmt::format("<p class=\"chapter\" title=\"Chapter {}", ch))) << block;
  }
  // The size stays, after the pair's name and whole in its tooltip: reduction's headline size.
  EXPECT_TRUE(has(first, "<span class=\"size\" title=\"n=268435456\"><span>n=268435456</span></span>")) << first;
  const std::string one = html_report(input_of({"h100-ch07.json"}));
  const std::size_t alone = one.find("<section class=\"summary\" id=\"summary\">");
  EXPECT_EQ(one.find("<div class=\"glance cols\">", alone), std::string::npos) << "one chapter spans the page";
  EXPECT_NE(one.find("<div class=\"glance\">", alone), std::string::npos);
}

// A summary's axis over a narrow track keeps only labels that do not overlap, decades first; the
// comparison's wide tracks keep them all. Intervals past 1000 read without an exponent.
TEST(ReportHtml, TrackAxisLabelsDoNotOverlap) {
  const detail::log_track t{0.9, 2500};
  const std::string all = detail::html_track_axis(t);
  EXPECT_EQ(count(all, "<span "), detail::log_ticks(0.9, 2500).size());
  const std::string narrow = detail::html_track_axis(t, 88);
  EXPECT_LT(count(narrow, "<span "), count(all, "<span "));
  EXPECT_TRUE(has(narrow, ">1×<")) << narrow;
  EXPECT_TRUE(has(narrow, ">10×<")) << narrow;
  EXPECT_FALSE(has(narrow, ">2×<")) << "2× sits too close to 1× on 88 px: " << narrow;
  // Label centres, left to right, at least two short labels' half widths and a gap apart.
  std::vector<double> at;
  for (std::size_t i = narrow.find("left:"); i != std::string::npos; i = narrow.find("left:", i + 1))
    at.push_back(std::stod(narrow.substr(i + 5)) * 88 / 100);
  ASSERT_GE(at.size(), 3u) << narrow;
  for (std::size_t i = 1; i < at.size(); ++i) EXPECT_GE(at[i] - at[i - 1], 10.5) << narrow;
  EXPECT_EQ(detail::interval_text({1973.7, 1934.2, 2018.9}), "[1930, 2020]");
  EXPECT_EQ(detail::interval_text({1.24, 0.8412, 1.834}), "[0.841, 1.83]");
  EXPECT_EQ(detail::interval_text({2e5, 123456, 234567}), "[1.23e+05, 2.35e+05]");
}

// Counters up front: SM and memory throughput as bars, bytes and FLOP/s against the model, and the
// reason a counted FLOP/s differs from the model's (softmax's exp expands into many FP instructions).
TEST(ReportHtml, CountersAsSpeedOfLight) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string html = html_report(input_of({"h100-ch03-metrics.json"}));
  EXPECT_EQ(count(html, "<table class=\"counters\">"), 3u);
  EXPECT_TRUE(has(html, "<span class=\"solbar\"><span style=\"width:"));
  EXPECT_TRUE(has(html, "FLOPs counted above the model")) << "the reason for a counted FLOP/s above the model's";
  EXPECT_TRUE(has(html, "the model counts the math as written"));
  // One footnote per kind of reason and table, not one per row: six softmax rows share one.
  EXPECT_LE(count(html, "the model counts the math as written"), 3u);
  EXPECT_GE(count(html, "<sup>1</sup>"), 6u);
  EXPECT_TRUE(has(html, "DRAM bytes: counters saw")) << "intensity_ladder/fused's bytes below the model are explained";
}

// A tuning grid (made up in code: no committed profile has one): a heatmap instead of a speedup
// chart, the table fastest first with the winner marked and folded away, and on the roofline only
// each size's default and best.
TEST(ReportHtml, TuningGridAsHeatmap) {
  if (!has_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  report_input in;
  in.profiles.push_back({"synthetic.json", test::synthetic_tuning_profile()});
  in.pairs["ch06/synthetic_grid"] = {"a grid", "made up", {}, {{"b", "threads per block"}, {"e", "float4 per thread"}}};
  const std::string html = html_report(in);
  EXPECT_EQ(count(html, "<figure class=\"heatmap\""), 1u);
  EXPECT_EQ(count(html, "<figure class=\"speedup\""), 0u);
  const std::size_t chart = html.find("<svg", html.find("<figure class=\"heatmap\""));
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_TRUE(has(svg, "b: threads per block")) << "the x axis names its parameter";
  EXPECT_TRUE(has(svg, "e=8"));
  EXPECT_EQ(count(svg, "best b256_e2"), 3u) << "each size's panel names its best";
  EXPECT_TRUE(has(svg, "not timed")) << "the failed configuration leaves a marked hole";
  EXPECT_TRUE(has(html, "<details class=\"table\"><summary>All 60 configurations, fastest first per size</summary>"));
  EXPECT_EQ(count(html, "class=\"winner\""), 3u);
  const std::size_t winner = html.find("class=\"winner\"");
  EXPECT_TRUE(has(html.substr(winner, 400), "<strong>b256_e2</strong>")) << html.substr(winner, 400);
  EXPECT_TRUE(has(html, "(54 more in the heatmap below)"));
  // The box plot names the configurations along x, one colour per size (three), not twenty.
  const std::size_t box = html.find("<svg", html.find("<figure class=\"boxplot\""));
  const std::string boxes = html.substr(box, html.find("</svg>", box) - box);
  EXPECT_TRUE(has(boxes, ">b256_e2<"));
  EXPECT_TRUE(has(boxes, ">n=1048576<"));
}

// A record that stopped at the time limit is noisy only when its own noise is above the run's target.
TEST(ReportHtml, NoisyOnlyAboveTheTarget) {
  record r;
  r.chapter = 1;
  r.pair = "p";
  r.variant = "v";
  r.size = size_point({{"n", 1}});
  r.timing.samples_s = {1e-3, 1.0001e-3, 0.9999e-3, 1e-3, 1e-3};
  r.timing.stopped = stop_reason::timeout;
  r.stats = summarize(r.timing.samples_s);
  detail::record_table_context cx;
  cx.noise_target = 0.005;
  const std::string quiet = detail::html_record_table({&r}, {}, cx);
  EXPECT_FALSE(has(quiet, ">noisy<")) << quiet;
  EXPECT_TRUE(has(quiet, "the record's noise is within the target")) << quiet;
  r.stats->rel_noise = 0.02;
  EXPECT_TRUE(
      has(detail::html_record_table({&r}, {}, cx), ">noisy</span> <small>noise 2.0% above the run's target of 0.5%"));
}

// The comparison draws each record's interval against the same band, on one axis.
TEST(ReportHtml, ComparisonDrawsEveryIntervalAgainstTheBand) {
  comparison c;
  c.base_source = "base.json";
  c.new_source = "new.json";
  c.options.threshold = 0.05;
  for (const auto& [id, v, ratio] : {std::tuple{"a", verdict::slower, 1.2}, std::tuple{"b", verdict::same, 1.0},
                                     std::tuple{"c", verdict::faster, 0.8}}) {
    record_comparison r;
    r.id = id;
    r.result = v;
    r.ratio = {ratio, ratio * 0.98, ratio * 1.02};
    c.records.push_back(r);
  }
  const std::string html = detail::html_compare(c, {});
  EXPECT_EQ(count(html, "<div class=\"track\""), 3u);
  EXPECT_EQ(count(html, "<span class=\"range bad\""), 1u);   // slower: red
  EXPECT_EQ(count(html, "<span class=\"range good\""), 1u);  // faster: green
  EXPECT_EQ(count(html, "<span class=\"range \""), 1u);      // same: no colour
  EXPECT_EQ(count(html, "<span class=\"band\""), 3u);
  // Regressions first: the first row is a's, slower, and its bar is the red one.
  const std::size_t first = html.find("<span class=\"range ");
  EXPECT_EQ(html.compare(first, 23, "<span class=\"range bad\""), 0) << html.substr(first, 40);
}

// The comparison's trend column: each record's median per run, the new run's dot coloured by its
// verdict, the values in the title; a record with fewer than two medians gets no line.
TEST(ReportHtml, ComparisonTrendPerRecord) {
  comparison c;
  c.options.threshold = 0.05;
  for (const auto& [id, v] : {std::pair{"a", verdict::slower}, std::pair{"b", verdict::same}}) {
    record_comparison r;
    r.id = id;
    r.result = v;
    r.ratio = {1.2, 1.1, 1.3};
    c.records.push_back(r);
  }
  std::map<std::string, detail::compared_series> trends;
  trends["a"] = {{1e-3, 1.01e-3, 1.2e-3}, 2};
  trends["b"] = {{std::nan(""), 1e-3, std::nan("")}, 2};
  const std::string html = detail::html_compare(c, {}, &trends);
  EXPECT_TRUE(has(html, "<th>trend <small>per run</small></th>")) << html;
  EXPECT_EQ(count(html, "<svg class=\"trend\""), 1u) << "b has a single median: no line";
  EXPECT_TRUE(has(html, "median per run: 1.000 ms → 1.010 ms → 1.200 ms (new)")) << html;
  EXPECT_TRUE(has(html, "r=\"3.2\" fill=\"#b42318\"")) << "the slower record's new run is red\n" << html;
  EXPECT_FALSE(has(detail::html_compare(c, {}), "trend")) << "no trends, no column";
}

// Long ids and sizes get break opportunities where they read; markup in them stays text.
TEST(ReportHtml, BreakableIdsStayEscaped) {
  EXPECT_EQ(detail::html_breakable("ch01/x[m=1,n=<2>]"), "ch01/<wbr>x<wbr>[m=1,<wbr>n=&lt;2&gt;]");
}
