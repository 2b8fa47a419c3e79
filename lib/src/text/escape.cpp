// The escaping layers of gpubench/escape.hpp: one UTF-8 walk (visible_text) shared by all, and a
// few lines per output kind on top of it.
#include "gpubench/escape.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <utility>

namespace gpubench {

namespace {

/// Unicode 15.0's format characters (category Cf), the separators Zl and Zp, the variation
/// selectors and the noncharacters U+FDD0..U+FDEF, as closed ranges (the noncharacters U+xFFFE
/// and U+xFFFF of every plane are tested apart).
constexpr std::array<std::pair<char32_t, char32_t>, 23> kHidden{{
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
    {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},   {0x200B, 0x200F},   {0x2028, 0x202E},
    {0x2060, 0x2064},   {0x2066, 0x206F},   {0xFDD0, 0xFDEF},   {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},
    {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
}};

/// Decodes one UTF-8 sequence at s[i]: its code point and length, or length 0 when the bytes there
/// are not valid UTF-8 (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF,
/// or a sequence cut short).
std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return {c, 1};
  std::size_t n = 0;
  char32_t cp = 0, min = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07, min = 0x10000;
  else return {0, 0};
  if (i + n > s.size()) return {0, 0};
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, n};
}

void hex_byte(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

}  // namespace

bool hidden_code_point(char32_t c) {
  if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) return true;
  if ((c & 0xFFFE) == 0xFFFE) return true;  // U+xFFFE and U+xFFFF of every plane
  for (const auto& [lo, hi] : kHidden)
    if (c >= lo && c <= hi) return true;
  return false;
}

namespace {

/// Walks `s` as UTF-8: every code point that is not hidden is copied, every hidden one and every
/// byte that is not valid UTF-8 goes to `hidden(out, code point or byte, is_byte)`; with
/// `keep_layout`, tab and newline are copied as well.
template <class Hidden>
std::string walk(std::string_view s, bool keep_layout, Hidden hidden) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto [cp, n] = decode(s, i);
    if (n == 0) {
      hidden(out, static_cast<unsigned char>(s[i]), true);
      ++i;
      continue;
    }
    if (!hidden_code_point(cp) || (keep_layout && (cp == '\n' || cp == '\t'))) out.append(s.substr(i, n));
    else hidden(out, cp, false);
    i += n;
  }
  return out;
}

/// How visible_text shows a hidden code point or an invalid byte: \x1b, \xff, \u{202e}.
void show_hidden(std::string& out, char32_t c, bool is_byte) {
  if (is_byte || c < 0x80) {
    hex_byte(out, static_cast<unsigned char>(c));
  } else {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u{%04x}", static_cast<unsigned>(c));
    out += buf;
  }
}

}  // namespace

std::string visible_text(std::string_view s) { return walk(s, false, show_hidden); }

std::string replace_hidden(std::string_view s, bool keep_layout) {
  return walk(s, keep_layout, [](std::string& out, char32_t, bool) { out += "\xEF\xBF\xBD"; });
}

std::string terminal_text(std::string_view s) { return visible_text(s); }

std::string markdown_text(std::string_view s) {
  std::string out;
  for (const char c : visible_text(s)) {
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '~':
      case '[':
      case ']':
      case '<':
      case '>':
      case '&':
      case '|': out += '\\'; break;
      default: break;
    }
    out += c;
  }
  return out;
}

std::string markdown_code(std::string_view s) {
  std::string out = "`";
  for (const char c : visible_text(s)) {
    if (c == '`') out += '\'';
    else if (c == '|') out += "\\|";
    else out += c;
  }
  return out + "`";
}

std::string csv_field(std::string_view s) {
  std::string text = visible_text(s);
  if (!text.empty() &&
      (text[0] == '=' || text[0] == '+' || text[0] == '-' || text[0] == '@' || text[0] == '\t' || text[0] == '\r'))
    text.insert(0, 1, '\'');
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string xml_text(std::string_view s) {
  std::string out;
  for (const char c : visible_text(s)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_label_text(std::string_view s) {
  // An ASCII control becomes a space, as gnuplot_quote makes it (a label is one line); every other
  // hidden code point and invalid byte is shown as visible_text shows it.
  std::string out = walk(s, false, [](std::string& o, char32_t c, bool is_byte) {
    if (!is_byte && (c < 0x20 || c == 0x7F)) o += ' ';
    else show_hidden(o, c, is_byte);
  });
  for (std::size_t at = out.find("]]>"); at != std::string::npos; at = out.find("]]>", at + 4))
    out.insert(at + 2, 1, ' ');
  return out;
}

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace gpubench
