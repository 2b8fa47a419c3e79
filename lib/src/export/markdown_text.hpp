#pragma once
// Markdown helpers shared by the exporters: the markdown layer of gpubench/escape.hpp.
#include <string>
#include <string_view>

#include "gpubench/escape.hpp"

namespace gpubench::detail {

/// A table cell (or any inline text): shown as written, never raw HTML, a link, emphasis or a
/// new cell, on one line (gpubench/escape.hpp, markdown_text).
inline std::string md_cell(std::string_view s) { return markdown_text(s); }

}  // namespace gpubench::detail
