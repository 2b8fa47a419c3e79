// The progress line of `run` (see progress.hpp).
#include "report/progress.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace gpubench::detail {

std::optional<double> estimate_time_left(const progress_state& p) {
  if (p.sizes_total == 0 || p.sizes_done == 0 || p.sizes_done > static_cast<double>(p.sizes_total)) return std::nullopt;
  const double finished_s = std::max(0.0, p.elapsed_s - p.size_elapsed_s);
  const double per_size = finished_s / p.sizes_done;
  const double left = per_size * (static_cast<double>(p.sizes_total) - p.sizes_done) - p.size_elapsed_s;
  return std::max(0.0, left);
}

std::string format_clock(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

namespace {

/// The sizes finished in whole, the shares of swept sizes' rounds summed (1/3 three times is 1).
std::size_t whole_sizes(double done) { return static_cast<std::size_t>(std::max(0.0, done) + 1e-9); }

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }

std::size_t columns(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return !is_continuation(c); }));
}

/// Keeps the first `width` code points; the last becomes "…" when something was cut.
std::string cut(const std::string& s, std::size_t width) {
  if (columns(s) <= width) return s;
  if (width == 0) return {};
  std::size_t kept = 0, i = 0;
  for (; i < s.size(); ++i) {
    if (is_continuation(s[i])) continue;
    if (kept == width - 1) break;
    ++kept;
  }
  return s.substr(0, i) + "…";
}

}  // namespace

std::string progress_line(const progress_state& p, std::size_t width) {
  std::string head = "[";
  if (p.sizes_total > 0)
    head += fmt::format("{}/{} · ", std::min(whole_sizes(p.sizes_done) + 1, p.sizes_total), p.sizes_total);
  head += format_clock(p.elapsed_s);
  if (const auto left = estimate_time_left(p)) head += " · ~" + format_clock(*left) + " left, est.";
  head += "]";
  std::string line = head;
  if (!p.pair_id.empty()) line += " " + p.pair_id;
  if (!p.size.empty()) line += " [" + p.size + "]";
  if (!p.activity.empty()) line += "  " + p.activity;
  return cut(line, width);
}

}  // namespace gpubench::detail
