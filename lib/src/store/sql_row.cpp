// Reading a result column whichever way the database sent it: SQLite's typed values, PostgreSQL's
// text (store/sql_connection.hpp).
#include <charconv>
#include <cstdlib>

#include "gpubench/error.hpp"
#include "store/sql_connection.hpp"

namespace gpubench::detail {

bool sql_row::is_null(std::size_t i) const { return std::holds_alternative<std::nullptr_t>(columns_.at(i)); }

std::string sql_row::text(std::size_t i) const {
  const sql_value& v = columns_.at(i);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  return {};
}

std::int64_t sql_row::integer(std::size_t i) const {
  const sql_value& v = columns_.at(i);
  if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<std::int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&v)) {
    std::int64_t out = 0;
    const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), out);
    if (ec != std::errc() || end != s->data() + s->size())
      throw usage_error("the run store holds '" + s->substr(0, 40) + "' where a whole number belongs: is it damaged?");
    return out;
  }
  return 0;
}

std::optional<double> sql_row::real(std::size_t i) const {
  const sql_value& v = columns_.at(i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* n = std::get_if<std::int64_t>(&v)) return static_cast<double>(*n);
  if (const auto* s = std::get_if<std::string>(&v)) {
    // PostgreSQL sends float8 as its shortest exact text (extra_float_digits 1, the default since 12).
    char* end = nullptr;
    const double d = std::strtod(s->c_str(), &end);
    if (end == s->c_str() || *end != '\0')
      throw usage_error("the run store holds '" + s->substr(0, 40) + "' where a number belongs: is it damaged?");
    return d;
  }
  return std::nullopt;
}

}  // namespace gpubench::detail
