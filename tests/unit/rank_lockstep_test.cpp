/// Unit tests for collectives run one process per GPU (gpubench/rank_group.hpp), with threads as
/// the ranks: every rank's schedule makes the same decisions from the slowest rank's times, a
/// barrier separates every rank's preparation from any rank's timed span, and one rank's failure
/// fails the variant on every rank with that rank's reason (so no rank waits in a collective
/// alone). tests/mpi/ runs the same checks through MPI with mpirun -np 2.
#include <atomic>
#include <mutex>

#include <gtest/gtest.h>

#include "gpubench/error.hpp"
#include "gpubench/rank_group.hpp"

namespace {

using namespace gpubench;

/// A scripted rank: variant v's k-th sample takes base[v] × (1 + 0.05 rank) × a rank-specific
/// wobble; its clock advances by what it samples, from an offset of its own (clocks of different
/// hosts disagree). Optionally throws on one sample.
class scripted_rank final : public rank_executor {
 public:
  scripted_rank(int rank, int ranks, std::atomic<long>& prepared, std::atomic<long>& early)
      : rank_(rank), ranks_(ranks), prepared_(prepared), early_(early), clock_(1000.0 * rank) {}
  void begin_round(int) override {}
  void warm_up(std::size_t, int) override {}
  void prepare(std::size_t) override { prepared_.fetch_add(1); }
  sample_reading timed(std::size_t variant) override {
    ++calls_;
    // Every rank must have prepared this sample before any rank's timed span starts.
    if (prepared_.load() < calls_ * ranks_) early_.fetch_add(1);
    if (rank_ == fail_rank && int(variant) == fail_variant && ++variant_calls_ == fail_at) throw runtime_error("boom");
    const double base = variant == 0 ? 1e-3 : 2e-3;
    const double wobble = 1.0 + 0.003 * double((calls_ * (rank_ + 3)) % 7);
    const double t = base * (1.0 + 0.05 * rank_) * wobble;
    local_times.push_back(t);
    clock_ += t;
    return {.time_s = t, .span_s = t, .sm_clock_mhz = 1000.0 + rank_};
  }
  double now_s() override { return clock_; }

  std::vector<double> local_times;  ///< every time this rank measured, in order
  int fail_rank = -1, fail_variant = -1, fail_at = 0;

 private:
  int rank_, ranks_;
  std::atomic<long>& prepared_;
  std::atomic<long>& early_;
  double clock_;
  long calls_ = 0;
  int variant_calls_ = 0;
};

struct rank_outcome {
  std::vector<timing_data> timing;
  std::vector<std::string> errors;
  std::vector<double> local_times;
};

std::vector<rank_outcome> run_lockstep(int ranks, int fail_rank = -1) {
  std::vector<rank_outcome> out(static_cast<std::size_t>(ranks));
  std::atomic<long> prepared{0}, early{0};
  run_thread_ranks(ranks, [&](rank_group& g) {
    scripted_rank local(g.rank(), g.size(), prepared, early);
    local.fail_rank = fail_rank;
    local.fail_variant = 1;
    local.fail_at = 4;
    lockstep_executor ex(local, g);
    rank_outcome& mine = out[std::size_t(g.rank())];
    mine.timing.resize(2);
    std::vector<measure_slot> slots{{0, &mine.timing[0], {}}, {1, &mine.timing[1], {}}};
    schedule_options o;
    o.rounds = 3;
    o.total.min_samples = 12;
    o.total.max_noise = 1e-9;  // never converges: the sample cap and the time limit decide
    o.total.timeout_s = 0.2;
    o.total.max_samples = 60;
    measure_rounds(ex, slots, o);
    for (const auto& s : slots) mine.errors.push_back(s.error);
    mine.local_times = local.local_times;
  });
  EXPECT_EQ(early.load(), 0) << "a rank started timing before another had prepared";
  return out;
}

TEST(rankLockstep, EveryRankKeepsTheSameSamplesTheSlowestRanks) {
  const auto out = run_lockstep(3);
  for (std::size_t v = 0; v < 2; ++v) {
    const timing_data& t0 = out[0].timing[v];
    EXPECT_FALSE(t0.samples_s.empty());
    EXPECT_EQ(t0.rounds.size(), 3u);
    for (std::size_t r = 1; r < out.size(); ++r) {
      EXPECT_EQ(out[r].timing[v].samples_s, t0.samples_s) << "rank " << r << " variant " << v;
      EXPECT_EQ(out[r].timing[v].rounds.size(), t0.rounds.size());
      for (std::size_t k = 0; k < t0.rounds.size(); ++k)
        EXPECT_EQ(out[r].timing[v].rounds[k].samples, t0.rounds[k].samples);
      EXPECT_EQ(out[r].timing[v].stopped, t0.stopped);
      EXPECT_TRUE(out[r].timing[v].span_s.empty());  // each rank's own span is not the agreed figure
    }
  }
  // Each kept sample is the largest of the ranks' times for that call: rank 2's factor (1.10 against
  // rank 1's 1.05) outweighs any wobble (at most 1.8%), so it is rank 2's time every time.
  std::vector<double> kept;
  const auto& t = out[0].timing;
  // Every rank made the same calls in the same order, so call k's kept sample is the largest of
  // the ranks' k-th times.
  for (std::size_t k = 0; k < out[2].local_times.size(); ++k) {
    double m = 0;
    for (const auto& r : out) m = std::max(m, r.local_times.at(k));
    EXPECT_EQ(m, out[2].local_times[k]);
    kept.push_back(m);
  }
  std::vector<double> all(t[0].samples_s);
  all.insert(all.end(), t[1].samples_s.begin(), t[1].samples_s.end());
  std::sort(all.begin(), all.end());
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(all, kept);
}

TEST(rankLockstep, OneRanksFailureFailsTheVariantOnEveryRank) {
  const auto out = run_lockstep(2, 1);
  for (const auto& r : out) {
    EXPECT_EQ(r.errors[0], "");
    EXPECT_NE(r.errors[1].find("rank 1: boom"), std::string::npos) << r.errors[1];
    EXPECT_FALSE(r.timing[0].samples_s.empty());  // the other variant went on
  }
  EXPECT_EQ(out[0].timing[0].samples_s, out[1].timing[0].samples_s);
}

TEST(rankLockstep, AgreeThrowsOnEveryRankWithEachFailingRanksReason) {
  std::vector<std::string> seen(3);
  run_thread_ranks(3, [&](rank_group& g) {
    try {
      agree(g, [&] {
        if (g.rank() != 1) throw runtime_error("out of memory on rank " + std::to_string(g.rank()));
      });
    } catch (const error& e) {
      seen[std::size_t(g.rank())] = e.what();
    }
  });
  for (const auto& s : seen) EXPECT_EQ(s, "rank 0: out of memory on rank 0; rank 2: out of memory on rank 2");
}

TEST(rankLockstep, ThreadGroupCollectives) {
  std::mutex m;
  std::vector<std::string> gathered;
  run_thread_ranks(4, [&](rank_group& g) {
    std::uint64_t id = g.rank() == 2 ? 0xfeedbeefULL : 0;
    g.broadcast(std::as_writable_bytes(std::span<std::uint64_t>(&id, 1)), 2);
    EXPECT_EQ(id, 0xfeedbeefULL);
    const double mine[2] = {double(g.rank()), -double(g.rank())};
    EXPECT_EQ(g.max(mine), (std::vector<double>{3.0, 0.0}));
    const auto all = g.all_gather(std::string(std::size_t(g.rank()), 'x'));
    std::lock_guard lock(m);
    if (g.rank() == 0) gathered = all;
  });
  EXPECT_EQ(gathered, (std::vector<std::string>{"", "x", "xx", "xxx"}));
}

}  // namespace
