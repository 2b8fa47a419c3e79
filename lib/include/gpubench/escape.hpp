#pragma once
/// One escaping layer per output kind, for text that came from outside gpubench: names and free
/// text from profiles others made, file names, argv (docs/profile-schema.md, "Text in outputs").
/// Each output kind has its own function and every writer of that kind calls it: terminal,
/// markdown, CSV, XML and SVG, JSON here, HTML in lib/src/report/html_escape.hpp. Each is tested
/// with the same hostile corpus (tests/unit/escape_test.cpp) and fuzzed (tests/fuzz/).
///
/// All of them first make the text visible (visible_text): what a reader cannot see, or what a
/// terminal or a renderer would act on, is written as an escape a person can read instead. CUDA-free.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpubench {

/// True for a code point shown as an escape by visible_text: controls (C0, DEL, C1), format
/// characters (Unicode category Cf: bidi embeddings, overrides and isolates, zero-width spaces
/// and joiners, the byte-order mark, tag characters), the line and paragraph separators,
/// variation selectors and noncharacters. Bidi overrides can make "slower" read as "rewols"
/// and reorder a line (Boucher & Anderson, "Trojan Source", USENIX Security 2023).
bool hidden_code_point(char32_t c);

/// Valid UTF-8 in which every hidden code point (hidden_code_point) is written `\u{202e}`, every
/// ASCII control `\x1b` (newline and tab included: a name is one line), and every byte that is not
/// part of valid UTF-8 `\xff`. Everything else is kept as it is.
std::string visible_text(std::string_view s);

/// Valid UTF-8 in which every hidden code point and every byte that is not part of valid UTF-8
/// becomes U+FFFD (the replacement character), so that nothing is silently dropped; with
/// `keep_layout`, tab and newline stay. The HTML report's layer (lib/src/report/html_escape.hpp)
/// builds on it: in a page a visible replacement character reads better than an escape.
std::string replace_hidden(std::string_view s, bool keep_layout);

/// A terminal line's text: visible_text. No escape sequence, no newline, no bidi override reaches
/// the terminal, so a file named "\e[2J...ALL GREEN" is shown, not obeyed.
std::string terminal_text(std::string_view s);

/// Markdown inline text (a table cell, a heading, a list item), for CommonMark and GitHub's
/// markdown: visible_text, then every character markdown gives a meaning inline (\ ` * ~ [ ] < > & |)
/// is backslash-escaped, so a name shows as written and never becomes raw HTML, a link, an image,
/// emphasis or a new table cell. ('_' is left alone: in a name it is inside a word, where GitHub
/// does not emphasise.)
std::string markdown_text(std::string_view s);

/// A markdown code span: `visible text`, a backtick inside becoming ' (a code span cannot hold its
/// own delimiter) and '|' escaped (GitHub splits table cells at it even inside a code span).
std::string markdown_code(std::string_view s);

/// One CSV field (RFC 4180): visible_text; a field starting with = + - @ (or a tab or CR) gets a
/// leading ' so that a spreadsheet shows it as text instead of running it as a formula (OWASP,
/// "CSV Injection"); quoted, quotes doubled, when it holds a comma or a quote.
std::string csv_field(std::string_view s);

/// XML 1.0 character data or an attribute value (either quote): visible_text (so only characters
/// XML allows remain), then & < > " ' as entities. Never inside CDATA.
std::string xml_text(std::string_view s);

/// A label that gnuplot writes into an SVG (or a PNG): visible_text, except that an ASCII control
/// (a newline, a tab, an escape) becomes a space, as gnuplot_quote makes it; and "]]>" written "]] >".
/// gnuplot's SVG terminal escapes < and & but not that sequence, which XML forbids in text.
std::string svg_label_text(std::string_view s);

/// A JSON document as text: nlohmann's dump, with any byte that is not valid UTF-8 replaced by
/// U+FFFD instead of throwing (a file name from argv may hold one). Strings are otherwise kept as
/// they are: JSON is read by programs, and a program showing them escapes for its own output.
std::string json_text(const nlohmann::ordered_json& j, int indent = 2);

}  // namespace gpubench
