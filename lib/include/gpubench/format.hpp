#pragma once
/// Numbers with units and sensible precision for people (console, markdown). CUDA-free.
#include <string>

namespace gpubench {

/// Seconds as "212.3 µs", "1.234 ms", "12.50 ns", "2.500 s" (4 significant digits).
std::string format_duration(double seconds);
/// Decimal SI with a unit: format_si(1.26e7, "B") == "12.6 MB", format_si(7.9e11, "FLOP/s") == "790 GFLOP/s".
std::string format_si(double value, const char* unit);
/// A percentage with one decimal ("0.3%") or two below 0.1% ("0.04%").
std::string format_percent(double fraction);
/// A speedup factor: "13.6×" (two decimals below 10, one above).
std::string format_factor(double factor);

}  // namespace gpubench
