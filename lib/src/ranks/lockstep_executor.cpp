// The collective run's schedule in lockstep (gpubench/rank_group.hpp). Timing follows nccl-tests
// (src/common.cu: a barrier before each timed region, and the slowest rank's time is the result);
// the agreement after every step keeps one rank's failure from leaving the others waiting in a
// collective it will never join.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpubench/error.hpp"
#include "gpubench/rank_group.hpp"

namespace gpubench {

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
  const std::vector<std::string> all = group.all_gather(failure);
  std::vector<std::string> parts;
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty()) parts.push_back(fmt::format("rank {}: {}", r, all[r]));
  throw runtime_error(fmt::format("{}", fmt::join(parts, "; ")));
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
    const std::vector<std::string> all = group_.all_gather(failure);
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < all.size(); ++r)
      if (!all[r].empty()) parts.push_back(fmt::format("rank {}: {}", r, all[r]));
    throw runtime_error(fmt::format("{}", fmt::join(parts, "; ")));
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
