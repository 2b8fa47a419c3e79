// The collective run's schedule in lockstep (gpubench/rank_group.hpp). Timing follows nccl-tests
// (src/common.cu: a barrier before each timed region, and the slowest rank's time is the result);
// the agreement after every step keeps one rank's failure from leaving the others waiting in a
// collective it will never join.
#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/error.hpp"
#include "gpubench/rank_group.hpp"

namespace gpubench {

std::string rank_reasons(const std::vector<std::string>& per_rank) {
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;  // text -> ranks, in first-seen order
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    if (per_rank[r].empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == per_rank[r]; });
    if (it == groups.end()) groups.push_back({per_rank[r], {r}});
    else it->second.push_back(r);
  }
  if (groups.size() == 1 && groups[0].second.size() == per_rank.size() && per_rank.size() > 1)
    return "every rank: " + groups[0].first;
  std::vector<std::string> parts;
  for (const auto& [text, ranks] : groups)
    parts.push_back(fmt::format("{} {}: {}", ranks.size() == 1 ? "rank" : "ranks", fmt::join(ranks, ", "), text));
  return fmt::format("{}", fmt::join(parts, "; "));
}

void agree(rank_group& group, const std::function<void()>& f) {
  std::string failure;
  try {
    f();
  } catch (const std::exception& e) {
    failure = e.what();
    if (failure.empty()) failure = "failed";
  }
  const double mine = failure.empty() ? 0.0 : 1.0;
  if (group.max(std::span<const double>(&mine, 1)).at(0) == 0.0) return;
  throw runtime_error(rank_reasons(group.all_gather(failure)));
}

void lockstep_executor::begin_round(int round) {
  agree(group_, [&] { local_.begin_round(round); });
}

void lockstep_executor::warm_up(std::size_t variant, int runs) {
  agree(group_, [&] { local_.warm_up(variant, runs); });
}

sample_reading lockstep_executor::sample(std::size_t variant) {
  agree(group_, [&] { local_.prepare(variant); });
  group_.barrier();
  sample_reading mine;
  std::string failure;
  try {
    mine = local_.timed(variant);
  } catch (const std::exception& e) {
    failure = e.what();
    if (failure.empty()) failure = "failed";
  }
  // One reduction carries the time, the throttle flag and whether any rank failed.
  const double local[3] = {mine.time_s, mine.throttled ? 1.0 : 0.0, failure.empty() ? 0.0 : 1.0};
  const std::vector<double> worst = group_.max(local);
  if (worst.at(2) != 0.0) {
    throw runtime_error(rank_reasons(group_.all_gather(failure)));
  }
  sample_reading out = mine;  // the clock of this rank's GPU; the time is the slowest rank's
  out.time_s = worst[0];
  out.throttled = worst[1] != 0.0;
  out.span_s.reset();  // each rank's raw span differs: only the agreed figure is kept
  return out;
}

double lockstep_executor::now_s() {
  double t = group_.rank() == 0 ? local_.now_s() : 0.0;
  group_.broadcast(std::as_writable_bytes(std::span<double>(&t, 1)), 0);
  return t;
}

void lockstep_executor::rest(double seconds) {
  agree(group_, [&] { local_.rest(seconds); });
}

}  // namespace gpubench
