#include "gpubench/format.hpp"

#include <cmath>

#include <fmt/format.h>

namespace gpubench {

namespace {
// Four significant digits: 1.234, 12.34, 123.4. The thresholds are where rounding carries into
// the next digit (9.9996 is "10.00", not "10.000"), so the digit count holds at the boundaries.
std::string four_digits(double v) {
  const double a = std::fabs(v);
  if (a >= 99.995) return fmt::format("{:.1f}", v);
  if (a >= 9.9995) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}
}  // namespace

std::string format_duration(double s) {
  if (!std::isfinite(s)) return "n/a";
  const double a = std::fabs(s);
  // A value that rounds to 1000.0 of a unit is shown in the next one (999.96 µs is "1.000 ms").
  if (a >= 0.99995) return four_digits(s) + " s";
  if (a >= 0.99995e-3) return four_digits(s * 1e3) + " ms";
  if (a >= 0.99995e-6) return four_digits(s * 1e6) + " µs";
  return four_digits(s * 1e9) + " ns";
}

std::string format_si(double v, const char* unit) {
  if (!std::isfinite(v)) return "n/a";
  static constexpr const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i = 0;
  double a = std::fabs(v);
  while (a >= 999.5 && i < 6) {  // 999.5 would print as "1000" with no decimals
    a /= 1000;
    v /= 1000;
    ++i;
  }
  const std::string num = a >= 99.95 ? fmt::format("{:.0f}", v) : a >= 9.995 ? fmt::format("{:.1f}", v) : fmt::format("{:.2f}", v);
  return fmt::format("{} {}{}", num, prefixes[i], unit);
}

std::string format_percent(double f) {
  if (!std::isfinite(f)) return "n/a";
  const double p = f * 100;
  return std::fabs(p) < 0.1 ? fmt::format("{:.2f}%", p) : fmt::format("{:.1f}%", p);
}

std::string format_factor(double x) {
  if (!std::isfinite(x)) return "n/a";
  return x >= 9.995 ? fmt::format("{:.1f}×", x) : fmt::format("{:.2f}×", x);
}

}  // namespace gpubench
