#pragma once
/// A record's trend over the stored runs, with its change points: what `history --changes` prints
/// and the report draws. CUDA-free.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpubench/change_points.hpp"
#include "gpubench/store.hpp"

namespace gpubench {

struct record_trend {
  record_series series;                           ///< oldest run first
  std::vector<change_point> changes;              ///< indexes into series.points
  std::optional<std::int64_t> base_run, new_run;  ///< runs to mark (a comparison's two sides)
};

/// Every series of `q` with at least `min_points` points, and its change points.
std::vector<record_trend> record_trends(run_store& store, const series_query& q, std::size_t min_points = 2,
                                        const change_point_options& options = {});

}  // namespace gpubench
