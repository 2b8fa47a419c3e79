// Record trends from the store, with their change points (gpubench/trend.hpp).
#include <vector>

#include "gpubench/trend.hpp"

namespace gpubench {

std::vector<record_trend> record_trends(run_store& store, const series_query& q, std::size_t min_points,
                                        const change_point_options& options) {
  std::vector<record_trend> out;
  for (auto& s : store.series(q)) {
    if (s.points.size() < min_points) continue;
    record_trend t;
    std::vector<double> values;
    values.reserve(s.points.size());
    for (const auto& p : s.points) values.push_back(p.median_s);
    t.changes = e_divisive_means(values, options);
    t.series = std::move(s);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace gpubench
