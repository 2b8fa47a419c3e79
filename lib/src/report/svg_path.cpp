// Douglas–Peucker over gnuplot's polylines. A report inlines every chart of every profile, and
// gnuplot samples a roof drawn as a function at hundreds of points along a straight line: on the
// committed profiles such paths were most of the page's bytes.
#include "report/svg_path.hpp"

#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

namespace gpubench::detail {

namespace {

struct point {
  double x = 0, y = 0;
  std::string_view text;  ///< "1244.51,1163.75", written back as it was
};

// "x,y" → point; false when the token is anything else.
bool parse_point(std::string_view t, point& p) {
  const std::size_t comma = t.find(',');
  if (comma == std::string_view::npos || comma == 0 || comma + 1 >= t.size()) return false;
  const std::string xs(t.substr(0, comma)), ys(t.substr(comma + 1));
  char* end = nullptr;
  p.x = std::strtod(xs.c_str(), &end);
  if (end != xs.c_str() + xs.size() || !std::isfinite(p.x)) return false;
  p.y = std::strtod(ys.c_str(), &end);
  if (end != ys.c_str() + ys.size() || !std::isfinite(p.y)) return false;
  p.text = t;
  return true;
}

double distance_to_line(const point& p, const point& a, const point& b) {
  const double dx = b.x - a.x, dy = b.y - a.y, length = std::hypot(dx, dy);
  if (length == 0) return std::hypot(p.x - a.x, p.y - a.y);
  return std::fabs(dy * (p.x - a.x) - dx * (p.y - a.y)) / length;
}

// Marks the points Douglas–Peucker keeps (iteratively: a polyline may have thousands of points).
std::vector<bool> keep(const std::vector<point>& line, double tolerance) {
  std::vector<bool> kept(line.size(), false);
  if (line.empty()) return kept;
  kept.front() = kept.back() = true;
  std::vector<std::pair<std::size_t, std::size_t>> spans{{0, line.size() - 1}};
  while (!spans.empty()) {
    const auto [first, last] = spans.back();
    spans.pop_back();
    double worst = 0;
    std::size_t at = first;
    for (std::size_t i = first + 1; i < last; ++i)
      if (const double d = distance_to_line(line[i], line[first], line[last]); d > worst) worst = d, at = i;
    if (worst > tolerance) {
      kept[at] = true;
      spans.emplace_back(first, at);
      spans.emplace_back(at, last);
    }
  }
  return kept;
}

}  // namespace

std::string simplify_polyline_path(std::string_view d, double tolerance) {
  std::vector<std::vector<point>> lines;
  for (std::size_t i = 0; i < d.size();) {
    while (i < d.size() && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r')) ++i;
    if (i >= d.size()) break;
    const char command = d[i];
    if (command != 'M' && command != 'L') return std::string(d);  // not a plain polyline
    std::size_t end = i + 1;
    while (end < d.size() && d[end] != ' ' && d[end] != '\t' && d[end] != '\n' && d[end] != '\r') ++end;
    point p;
    if (!parse_point(d.substr(i + 1, end - i - 1), p)) return std::string(d);
    if (command == 'M') lines.emplace_back();
    if (lines.empty()) return std::string(d);  // a line before any move
    lines.back().push_back(p);
    i = end;
  }
  std::string out;
  out.reserve(d.size() / 2);
  for (const auto& line : lines) {
    const std::vector<bool> kept = keep(line, tolerance);
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (!kept[i]) continue;
      if (!out.empty()) out += ' ';
      out += i == 0 ? 'M' : 'L';
      out += line[i].text;
    }
  }
  return out;
}

}  // namespace gpubench::detail
