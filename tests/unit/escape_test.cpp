/// Unit tests for gpubench/escape.hpp and the HTML layer (report/html_escape.hpp): every output
/// kind's escaping over one hostile corpus (names with "]]>", bytes that are not UTF-8, control and
/// escape bytes, bidi overrides, zero-width characters, formula prefixes, tab, CR), each held to
/// what its output needs. tests/fuzz/ checks the same properties on fuzzed text.
#include "gpubench/escape.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "report/html_escape.hpp"
#include "test_support.hpp"

namespace {

using namespace std::string_literals;

const std::vector<std::string> kCorpus = {
    "plain_name",
    "µs × → ✓ 日本",  // printable text is kept as it is
    "x]]>y",
    "]]]]>>",
    "<![CDATA[x]]>",
    "</testcase><script>alert(1)</script>",
    "a & b &amp; &#x41;",
    "\xff",
    "bad\xff.json",
    "\xc0\xaf",
    "\xed\xa0\x80",
    "\xf4\x90\x80\x80",
    "\xe2\x82",
    "\xf0\x9f",
    "\x80\xbf",
    "\x1b[2J\x1b[1;32mALL GREEN\x1b[0m",
    "a\ngpubench: FORGED",
    "line\r\nbreak",
    "tab\there",
    "nul\0byte"s,
    "del\x7f",
    "c1\xc2\x9b"
    "2J",
    "\xc2\x85next",
    "\xe2\x80\xae"
    "evil",
    "\xe2\x81\xa6isolate\xe2\x81\xa9",
    "zero\xe2\x80\x8bwidth",
    "\xef\xbb\xbf"
    "bom",
    "joiner\xe2\x80\x8d",
    "line\xe2\x80\xa8sep",
    "\xf3\xa0\x81\x81tag",
    "nonchar\xef\xbf\xbe",
    "\xef\xb7\x90",
    "=HYPERLINK(\"http://e.test\",\"x\")",
    "+cmd|' /C calc'!A0",
    "-1+1",
    "@SUM(1,2)",
    "\t=1",
    "\r=1",
    "| [x](http://e.test) ![i](x) <b>bold</b> `code` *em* ~s~ \\",
    "'quoted' \"double\" `back`",
    "",
};

/// Decodes `s` as UTF-8; false when any byte is not part of a valid sequence. Each code point goes to `f`.
template <class F>
bool each_code_point(const std::string& s, F f) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80                 ? 1
                    : c >= 0xC2 && c <= 0xDF ? 2
                    : c >= 0xE0 && c <= 0xEF ? 3
                    : c >= 0xF0 && c <= 0xF4 ? 4
                                             : 0;
    if (n == 0 || i + n > s.size()) return false;
    char32_t cp = n == 1 ? c : c & (0xFF >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    const char32_t min = n == 1 ? 0 : n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    f(cp);
    i += n;
  }
  return true;
}

/// Valid UTF-8 with no hidden code point (controls, bidi, zero-width, noncharacters); `layout`
/// allows tab and newline.
void expect_visible(const std::string& out, const std::string& in, bool layout = false) {
  const bool valid = each_code_point(out, [&](char32_t c) {
    if (layout && (c == '\t' || c == '\n')) return;
    EXPECT_FALSE(gpubench::hidden_code_point(c)) << "U+" << std::hex << static_cast<unsigned>(c) << " kept from " << in;
  });
  EXPECT_TRUE(valid) << "not UTF-8: from " << in;
}

TEST(escape, visible_text_keeps_printable_text_and_shows_the_rest) {
  EXPECT_EQ(gpubench::visible_text("plain µs × 日本"), "plain µs × 日本");
  EXPECT_EQ(gpubench::visible_text("\x1b[2J"), "\\x1b[2J");
  EXPECT_EQ(gpubench::visible_text("a\nb\tc"), "a\\x0ab\\x09c");
  EXPECT_EQ(gpubench::visible_text("bad\xff.json"), "bad\\xff.json");
  EXPECT_EQ(gpubench::visible_text("\xe2\x80\xae"
                                   "evil"),
            "\\u{202e}evil");
  EXPECT_EQ(gpubench::visible_text("zero\xe2\x80\x8bwidth"), "zero\\u{200b}width");
  EXPECT_EQ(gpubench::visible_text("c1\xc2\x9b"), "c1\\u{009b}");
  EXPECT_EQ(gpubench::visible_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate is not UTF-8
  for (const std::string& s : kCorpus) {
    expect_visible(gpubench::visible_text(s), s);
    expect_visible(gpubench::terminal_text(s), s);
  }
}

TEST(escape, replace_hidden_marks_each_with_the_replacement_character) {
  EXPECT_EQ(gpubench::replace_hidden("a\x1b"
                                     "b\xff"
                                     "c\xe2\x80\xae",
                                     false),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c\xEF\xBF\xBD");
  EXPECT_EQ(gpubench::replace_hidden("a\tb\nc", true), "a\tb\nc");
  for (const std::string& s : kCorpus) expect_visible(gpubench::replace_hidden(s, false), s);
}

/// Every character markdown acts on inline is preceded by a backslash that is not itself escaped.
void expect_inert_markdown(const std::string& md, const std::string& in) {
  for (std::size_t i = 0; i < md.size(); ++i) {
    if (md[i] == '\\') {
      ++i;  // an escape and what it escapes
      continue;
    }
    EXPECT_EQ(std::string("`*~[]<>&|").find(md[i]), std::string::npos)
        << "unescaped '" << md[i] << "' in " << md << " from " << in;
  }
}

TEST(escape, markdown_text_shows_names_as_written) {
  EXPECT_EQ(gpubench::markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(gpubench::markdown_text("<b>x</b>"), "\\<b\\>x\\</b\\>");
  EXPECT_EQ(gpubench::markdown_text("[x](http://e.test)"), "\\[x\\](http://e.test)");
  EXPECT_EQ(gpubench::markdown_text("batched_gemm"), "batched_gemm");
  for (const std::string& s : kCorpus) {
    const std::string md = gpubench::markdown_text(s);
    expect_visible(md, s);
    expect_inert_markdown(md, s);
  }
}

TEST(escape, markdown_code_is_one_code_span) {
  EXPECT_EQ(gpubench::markdown_code("a`b|c"), "`a'b\\|c`");
  for (const std::string& s : kCorpus) {
    const std::string code = gpubench::markdown_code(s);
    expect_visible(code, s);
    ASSERT_GE(code.size(), 2u);
    EXPECT_EQ(code.front(), '`');
    EXPECT_EQ(code.back(), '`');
    EXPECT_EQ(code.substr(1, code.size() - 2).find('`'), std::string::npos) << code;
    for (std::size_t i = 0; i < code.size(); ++i)
      if (code[i] == '|') EXPECT_EQ(code[i - 1], '\\') << code;
  }
}

TEST(escape, csv_field_never_starts_a_formula) {
  EXPECT_EQ(gpubench::csv_field("=1+1"), "'=1+1");
  EXPECT_EQ(gpubench::csv_field("@SUM(1,2)"), "\"'@SUM(1,2)\"");
  EXPECT_EQ(gpubench::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(gpubench::csv_field("ch01/copy/baseline[n=1]"), "ch01/copy/baseline[n=1]");
  for (const std::string& s : kCorpus) {
    const std::string f = gpubench::csv_field(s);
    expect_visible(f, s);
    // The cell's value: the field without its quotes (and doubled quotes undone).
    std::string value = f;
    if (!f.empty() && f.front() == '"') {
      value.clear();
      for (std::size_t i = 1; i + 1 < f.size(); ++i) {
        value += f[i];
        if (f[i] == '"') ++i;
      }
    }
    if (!value.empty()) EXPECT_EQ(std::string("=+-@\t\r").find(value.front()), std::string::npos) << f << " from " << s;
    EXPECT_EQ(f.find_first_of("\r\n"), std::string::npos) << f;
  }
}

bool has_xmllint() { return run_shell("command -v xmllint >/dev/null 2>&1").status == 0; }

TEST(escape, xml_text_is_well_formed_in_text_and_attributes) {
  std::string doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<corpus>\n";
  for (const std::string& s : kCorpus) {
    const std::string x = gpubench::xml_text(s);
    expect_visible(x, s);
    EXPECT_EQ(x.find_first_of("<>\"'"), std::string::npos) << x;
    EXPECT_EQ(x.find("]]>"), std::string::npos) << x;
    doc += "  <name value=\"" + x + "\" other='" + x + "'>" + x + "</name>\n";
  }
  doc += "</corpus>\n";
  if (!has_xmllint()) GTEST_SKIP() << "xmllint is not installed (scripts/setup-deps.sh installs libxml2-utils)";
  temp_dir dir;
  std::ofstream(dir.path / "corpus.xml", std::ios::binary) << doc;
  const shell_result r = run_shell("xmllint --noout '" + (dir.path / "corpus.xml").string() + "' 2>&1");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(escape, svg_labels_never_end_a_cdata_section) {
  EXPECT_EQ(gpubench::svg_label_text("x]]>y"), "x]] >y");
  EXPECT_EQ(gpubench::svg_label_text("]]]]>>"), "]]]] >>");
  for (const std::string& s : kCorpus) {
    const std::string l = gpubench::svg_label_text(s);
    expect_visible(l, s);
    EXPECT_EQ(l.find("]]>"), std::string::npos) << l;
  }
}

TEST(escape, html_escape_leaves_no_markup_and_nothing_hidden) {
  for (const std::string& s : kCorpus) {
    const std::string h = gpubench::detail::html_escape(s);
    expect_visible(h, s, /*layout=*/true);
    EXPECT_EQ(h.find_first_of("<>\"'`"), std::string::npos) << h;
  }
  EXPECT_EQ(gpubench::detail::html_escape("\xe2\x80\xae"
                                          "evil"),
            "\xEF\xBF\xBD"
            "evil");
  EXPECT_EQ(gpubench::detail::html_escape("bad\xff"), "bad\xEF\xBF\xBD");
}

TEST(escape, json_text_is_always_valid_json) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const std::string& s : kCorpus) j.push_back(s);
  const std::string text = gpubench::json_text(j);
  const auto back = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(back.is_discarded()) << text;
  ASSERT_EQ(back.size(), kCorpus.size());
  for (std::size_t i = 0; i < kCorpus.size(); ++i) {
    const std::string got = back[i].get<std::string>();
    EXPECT_TRUE(each_code_point(got, [](char32_t) {})) << "not UTF-8 from " << kCorpus[i];
    // Valid UTF-8 is kept exactly (JSON is for programs); the rest becomes U+FFFD.
    if (each_code_point(kCorpus[i], [](char32_t) {})) EXPECT_EQ(got, kCorpus[i]);
  }
}

}  // namespace
