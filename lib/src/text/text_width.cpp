// Console text by display columns (gpubench/text_width.hpp).
#include "gpubench/text_width.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

namespace gpubench {

namespace {

// Bytes of the UTF-8 sequence that starts with `lead` (1 for a stray continuation byte or an
// invalid lead, so that every byte is consumed and counted once).
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Length of the ANSI escape sequence (CSI: ESC '[' parameters, one final byte in @..~) at `i`,
// or 0 when none starts there.
std::size_t escape_length(std::string_view s, std::size_t i) {
  if (s[i] != '\x1b' || i + 1 >= s.size() || s[i + 1] != '[') return 0;
  std::size_t j = i + 2;
  while (j < s.size() && !(s[j] >= '@' && s[j] <= '~')) ++j;
  return j < s.size() ? j + 1 - i : s.size() - i;
}

// The next character at byte `i`: its length in bytes and its width in columns (0 for an escape).
std::pair<std::size_t, std::size_t> next_char(std::string_view s, std::size_t i) {
  if (const std::size_t e = escape_length(s, i); e > 0) return {e, 0};
  const std::size_t n = sequence_length(static_cast<unsigned char>(s[i]));
  if (n > s.size() - i) return {1, 1};  // cut short by the end: one byte, one column
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return {1, 1};  // truncated: one byte, one column
  return {n, 1};
}

std::size_t width_from_environment() {
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr || *columns == '\0') return 0;
  const std::string_view text(columns);
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) return kMaxConsoleWidth;
  if (error != std::errc() || end != text.data() + text.size()) return 0;  // not a whole number: ignored
  return value;
}

// One paragraph (no '\n') into lines of at most `width` columns.
void wrap_paragraph(std::string_view text, std::size_t width, std::string_view breaks, std::vector<std::string>& out) {
  bool first = true;
  while (true) {
    if (!first)
      while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    first = false;
    if (display_width(text) <= width) {
      out.emplace_back(text);
      return;
    }
    // Walk the first `width` columns, remembering the last space (break before it) and the last
    // break character (break after it).
    std::size_t i = 0, columns = 0, last_space = 0, after_break = 0;
    while (i < text.size()) {
      const auto [bytes, cols] = next_char(text, i);
      if (columns + cols > width) break;
      if (text[i] == ' ' && i > 0) last_space = i;
      columns += cols;
      i += bytes;
      if (bytes == 1 && breaks.find(text[i - 1]) != std::string_view::npos) after_break = i;
    }
    if (i < text.size() && text[i] == ' ') last_space = i;  // the first `width` columns end a word
    const std::size_t cut = last_space > 0 ? last_space : after_break > 0 ? after_break : std::max<std::size_t>(i, 1);
    std::string_view line = text.substr(0, cut);
    while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
    out.emplace_back(line);
    text.remove_prefix(cut);
  }
}

}  // namespace

std::size_t console_width(std::FILE* stream) {
  std::size_t width = width_from_environment();
  if (width == 0 && stream != nullptr && isatty(fileno(stream)) != 0) {
    winsize ws{};
    if (ioctl(fileno(stream), TIOCGWINSZ, &ws) == 0) width = ws.ws_col;
  }
  if (width == 0) width = 80;
  return std::clamp(width, kMinConsoleWidth, kMaxConsoleWidth);
}

std::size_t display_width(std::string_view text) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto [bytes, cols] = next_char(text, i);
    columns += cols;
    i += bytes;
  }
  return columns;
}

std::string pad_right(std::string_view text, std::size_t width) {
  const std::size_t w = display_width(text);
  return std::string(text) + std::string(w < width ? width - w : 0, ' ');
}

std::string pad_left(std::string_view text, std::size_t width) {
  const std::size_t w = display_width(text);
  return std::string(w < width ? width - w : 0, ' ') + std::string(text);
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::string_view breaks) {
  std::vector<std::string> out;
  width = std::max<std::size_t>(width, 1);
  for (std::size_t from = 0;;) {
    const std::size_t to = std::min(text.find('\n', from), text.size());
    wrap_paragraph(text.substr(from, to - from), width, breaks, out);
    if (to >= text.size()) break;
    from = to + 1;
  }
  return out;
}

std::string wrap_with_lead(std::string_view lead, std::string_view text, std::size_t width, std::string_view breaks) {
  const std::size_t indent = display_width(lead);
  const std::size_t room = width > indent ? width - indent : 1;
  std::string out;
  bool first = true;
  for (const std::string& line : wrap_text(text, room, breaks)) {
    out += first ? std::string(lead) : std::string(indent, ' ');
    out += line + "\n";
    first = false;
  }
  return out;
}

std::vector<std::string> table_row(std::string_view indent, const std::vector<text_column>& columns,
                                   const std::vector<std::string>& cells,
                                   const std::function<std::string(std::size_t, const std::string&)>& paint) {
  std::vector<std::vector<std::string>> parts(columns.size());
  std::size_t height = 1;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    parts[i] = wrap_text(i < cells.size() ? cells[i] : std::string(), columns[i].width, columns[i].breaks);
    height = std::max(height, parts[i].size());
  }
  std::vector<std::string> lines;
  for (std::size_t l = 0; l < height; ++l) {
    std::string line(indent);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string text = l < parts[i].size() ? parts[i][l] : std::string();
      const std::size_t w = display_width(text), pad = w < columns[i].width ? columns[i].width - w : 0;
      const std::string shown = paint && !text.empty() ? paint(i, text) : text;
      line += i == 0 ? "" : "  ";
      line += columns[i].right ? std::string(pad, ' ') + shown : shown + std::string(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace gpubench
