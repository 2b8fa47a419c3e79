#pragma once
// A tuning pair's grid as heatmaps, one per size: the first parameter along x (block size, say),
// the others along y (elements per thread), each cell coloured by its median time over the
// size's best and labelled with the time; the best configuration outlined in black, the pair's
// default (its baseline) dashed. Twenty configurations read at a glance this way, where as points
// on a roofline or boxes in a legend of 20 colours they are a blob. Drawn by gnuplot as SVG at
// most the page's width, text at 11–12 px. CUDA-free.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpubench/record.hpp"
#include "report/gnuplot_batch.hpp"

namespace gpubench::detail {

struct tuning_heatmap {
  std::string x_name, y_name;                 ///< axis titles
  std::vector<std::string> x_ticks, y_ticks;  ///< column and row labels, in order
  struct cell {
    std::size_t x = 0, y = 0;
    std::string name;   ///< the configuration, "b256_e4"
    double time_s = 0;  ///< the median; 0 when the configuration was not timed (failed, skipped)
    bool best = false, baseline = false;
  };
  struct panel {
    std::string title;  ///< the size
    std::vector<cell> cells;
  };
  std::vector<panel> panels;
};

/// The heatmaps of one tuning pair's records (profile order, every one with `tuning` set): one
/// panel per size, titled by `size_labels` (the size's varying axes). `param_names` gives each
/// parameter tag's description for the axis titles (may be empty). Nothing when the records have
/// no configuration to place.
std::optional<tuning_heatmap> heatmap_of(const std::vector<const record*>& records,
                                         const std::vector<std::string>& sizes,
                                         const std::vector<std::string>& size_labels,
                                         const std::map<std::string, std::string>& param_names);

/// The script drawing map i into `dir / "heatmap<i>.svg"`, its data in `dir / data_name`.
gnuplot_job tuning_heatmaps_gnuplot(const std::vector<tuning_heatmap>& maps, const std::filesystem::path& dir,
                                    const std::string& data_name);

}  // namespace gpubench::detail
