#pragma once
// Which measurements a comparison has already counted, by record id and by content (the samples
// themselves), so that a history run given twice, or a copy of one under another name, or a
// record copied from the base, is not taken for another independent run: drift estimated from
// copies is zero, and a hundred copies would make any shift look certain. CUDA-free.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpubench::detail {

class repeated_measurements {
 public:
  /// True when a record with this id and exactly these samples was added before; otherwise adds it
  /// and returns false. `samples` must outlive this object.
  bool seen_before(const std::string& id, const std::vector<double>& samples) {
    const std::size_t h = std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(samples.data()), samples.size() * sizeof(double)));
    auto& same_id = by_id_[id];
    for (const auto& [hash, other] : same_id)
      if (hash == h && *other == samples) return true;  // equal content, not only an equal hash
    same_id.emplace_back(h, &samples);
    return false;
  }

 private:
  std::unordered_map<std::string, std::vector<std::pair<std::size_t, const std::vector<double>*>>> by_id_;
};

}  // namespace gpubench::detail
