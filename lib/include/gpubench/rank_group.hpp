#pragma once
/// One process per GPU (docs/fleet.md, "Collectives, one process per GPU"): the processes of one
/// collective run, launched by mpirun or srun, and what they must agree on. CUDA-free.
///
/// A pair whose variants call collectives runs the same schedule in every process: each builds
/// its State (bootstrapping the communicator through broadcast()), verifies its own result, and
/// samples in lockstep (lockstep_executor), so that every process makes the same decisions from
/// the same numbers. The MPI implementation is mpi_world() (lib/src/ranks_mpi/, built only where
/// find_package(MPI) succeeds); tests use threads.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpubench/sampling.hpp"

namespace gpubench {

class rank_group {
 public:
  virtual ~rank_group() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// This process's index among the group's processes on its host (picks its GPU).
  [[nodiscard]] virtual int local_rank() const = 0;
  /// Returns once every rank has called it.
  virtual void barrier() = 0;
  /// `bytes` of rank `root` into every rank's `bytes` (the same length everywhere).
  virtual void broadcast(std::span<std::byte> bytes, int root) = 0;
  /// Element-wise maximum over the ranks, on every rank.
  virtual std::vector<double> max(std::span<const double> values) = 0;
  /// Every rank's text, in rank order, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& text) = 0;
  /// "MPI (Open MPI v4.1.4), 2 ranks", for the profile and messages.
  [[nodiscard]] virtual std::string describe() const = 0;

  /// Objects that live as long as the group, one per key: what the pairs build once per process
  /// (a communicator) and share between sizes. Released, last key first, when the group goes.
  std::shared_ptr<void>& slot(const std::string& key) { return slots_[key]; }

 protected:
  /// Implementations call this first in their destructors, while they can still communicate.
  void release_slots() { slots_.clear(); }

 private:
  std::map<std::string, std::shared_ptr<void>> slots_;
};

/// Each rank's failure in one line, from every rank's text in rank order ("" for a rank that did
/// not fail): "every rank: X" when all failed alike, else "ranks 0, 2: X; rank 1: Y".
std::string rank_reasons(const std::vector<std::string>& per_rank);

/// Runs `f` on every rank and agrees on its outcome: when it threw on any rank, every rank throws
/// runtime_error with each failing rank's message ("rank 1: out of memory"), so that no rank goes
/// on into a collective that another will never join.
void agree(rank_group& group, const std::function<void()>& f);

/// One rank's executor, split where the ranks meet: prepare() does the untimed work before a
/// sample (the L2 flush) and waits for it; timed() is the timed span alone.
class rank_executor : public sample_executor {
 public:
  virtual void prepare(std::size_t variant) = 0;
  virtual sample_reading timed(std::size_t variant) = 0;
  sample_reading sample(std::size_t variant) override {
    prepare(variant);
    return timed(variant);
  }
};

/// The schedule's executor for one rank of a collective run. Every call agrees across the ranks
/// (agree()), and a sample is timed as nccl-tests times one: each rank prepares, a barrier, each
/// rank's timed span, then the slowest rank's time is the sample on every rank. now_s() is rank
/// 0's clock on every rank. With identical samples and clocks, measure_rounds() makes the same
/// decisions on every rank: the same number of rounds and samples, the same stops.
class lockstep_executor final : public sample_executor {
 public:
  lockstep_executor(rank_executor& local, rank_group& group) : local_(local), group_(group) {}
  void begin_round(int round) override;
  void warm_up(std::size_t variant, int runs) override;
  sample_reading sample(std::size_t variant) override;
  double now_s() override;
  void rest(double seconds) override;
  [[nodiscard]] double round_offset_s() const override { return local_.round_offset_s(); }

 private:
  rank_executor& local_;
  rank_group& group_;
};

/// A group of `n` ranks as threads of this process, for tests: run(f) calls f(group) on n threads
/// and returns once all have returned; an exception on a thread is rethrown after all have ended.
void run_thread_ranks(int n, const std::function<void(rank_group&)>& f);

}  // namespace gpubench
