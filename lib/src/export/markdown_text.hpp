#pragma once
// Markdown helpers shared by the exporters.
#include <string>
#include <string_view>

namespace gpubench::detail {

/// A table cell: pipes escaped, line breaks flattened (a cell is one line).
inline std::string md_cell(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace gpubench::detail
