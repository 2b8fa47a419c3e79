// The regions of a variant's result (gpubench/result_regions.hpp).
#include "gpubench/result_regions.hpp"

#include <fmt/format.h>

#include "gpubench/error.hpp"

namespace gpubench {

std::vector<output_view> result_regions(const pair_state& state, std::string_view variant) {
  std::vector<output_view> regions{state.output(variant)};
  for (auto& extra : state.extra_outputs(variant)) {
    if (extra.type != regions.front().type)
      throw runtime_error(fmt::format("variant '{}': extra output {} holds {} but output() holds {}; every region of a "
                                      "result must have one element type (they are verified as one array)",
                                      variant, regions.size(), to_string(extra.type), to_string(regions.front().type)));
    regions.push_back(extra);
  }
  return regions;
}

std::size_t result_bytes(const std::vector<output_view>& regions) {
  std::size_t bytes = 0;
  for (const auto& r : regions) bytes += r.count * size_of(r.type);
  return bytes;
}

}  // namespace gpubench
