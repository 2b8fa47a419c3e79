#pragma once
/// Console text by display columns: the width output wraps to, the width of a UTF-8 string, and
/// wrapping at spaces. Every character gpubench prints (µ, ±, ×, →, …) takes one column, so a
/// code point is a column. CUDA-free.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

/// The narrowest and widest console width honoured: below 40 columns no table fits, and a huge
/// $COLUMNS must not make a line allocation run away.
inline constexpr std::size_t kMinConsoleWidth = 40, kMaxConsoleWidth = 1000;

/// The width console output wraps to: $COLUMNS when it is a whole number, else the terminal's
/// width when `stream` is a terminal, else 80; clamped to [kMinConsoleWidth, kMaxConsoleWidth].
std::size_t console_width(std::FILE* stream);

/// Columns `text` takes on a terminal: its UTF-8 code points, ANSI escape sequences (ESC [ ... m)
/// excluded. Bytes that are not valid UTF-8 count one column each.
std::size_t display_width(std::string_view text);

/// `text` left-aligned in `width` columns (padded with spaces; longer text is returned whole).
std::string pad_right(std::string_view text, std::size_t width);
/// `text` right-aligned in `width` columns.
std::string pad_left(std::string_view text, std::size_t width);

/// `text` broken into lines of at most `width` columns, at spaces where it can (the spaces at a
/// break are dropped), else after one of `breaks` (e.g. "/,[" for a record id), else anywhere
/// between code points. A '\n' in `text` always breaks. Never returns an empty vector.
std::vector<std::string> wrap_text(std::string_view text, std::size_t width, std::string_view breaks = "");

/// `text` wrapped to `width` columns (as wrap_text, with `breaks`) with `lead` before its first
/// line and as many spaces before the others, each line ended by '\n'.
std::string wrap_with_lead(std::string_view lead, std::string_view text, std::size_t width,
                           std::string_view breaks = "");

/// A column of a text table: its width in columns, its alignment, and where a cell with no
/// space to wrap at may break (e.g. "/[," for a record id).
struct text_column {
  std::size_t width = 0;
  bool right = false;  ///< right-aligned (numbers)
  std::string_view breaks;
};

/// One table row as lines: each cell wrapped in its column and padded to it, columns joined by
/// two spaces after `indent`, as many lines as the tallest cell, trailing spaces trimmed.
/// `paint`, when given, decorates a cell's text (not its padding), e.g. with colour; it gets the
/// column's index.
std::vector<std::string> table_row(std::string_view indent, const std::vector<text_column>& columns,
                                   const std::vector<std::string>& cells,
                                   const std::function<std::string(std::size_t, const std::string&)>& paint = {});

}  // namespace gpubench
