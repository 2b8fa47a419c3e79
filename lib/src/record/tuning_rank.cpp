// Ranking a tuning pair's configurations at one size: the fastest median is the tuned configuration.
// Pure arithmetic over the records, so the CPU tests check it and any saved profile can be re-ranked.
#include <algorithm>
#include <vector>

#include "gpubench/record.hpp"

namespace gpubench {

namespace {
bool rankable(const record& r) {
  return r.tuning && r.status == record_status::passed && r.stats && r.stats->median > 0;
}
}  // namespace

void rank_tuning(std::span<record> size_records) {
  std::vector<record*> ranked;
  for (record& r : size_records) {
    if (!r.tuning) continue;
    r.tuning->rank = 0;
    if (rankable(r)) ranked.push_back(&r);
  }
  // Stable: equal medians keep the declaration order, so a re-rank of the same records agrees.
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const record* a, const record* b) { return a->stats->median < b->stats->median; });
  for (std::size_t i = 0; i < ranked.size(); ++i) ranked[i]->tuning->rank = i + 1;
}

std::optional<tuning_summary> summarize_tuning(std::span<const record> size_records, double near) {
  tuning_summary s;
  std::vector<const record*> by_rank;
  for (const record& r : size_records) {
    if (!r.tuning) continue;
    ++s.configurations;
    if (r.tuning->rank > 0 && rankable(r)) by_rank.push_back(&r);
  }
  if (by_rank.empty()) return std::nullopt;
  std::stable_sort(by_rank.begin(), by_rank.end(),
                   [](const record* a, const record* b) { return a->tuning->rank < b->tuning->rank; });
  s.ranked = by_rank.size();
  s.best = by_rank[0];
  if (by_rank.size() > 1) s.runner_up = by_rank[1];
  if (!size_records.empty() && size_records.front().tuning && size_records.front().tuning->rank > 0)
    s.baseline = &size_records.front();
  const double limit = s.best->stats->median * (1 + near);
  for (std::size_t i = 1; i < by_rank.size(); ++i)
    if (by_rank[i]->stats->median <= limit) s.near_best.push_back(by_rank[i]);
  return s;
}

}  // namespace gpubench
