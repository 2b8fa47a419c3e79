// A rank group of threads in one process (gpubench/rank_group.hpp, run_thread_ranks): the same
// calls as MPI's, so that the lockstep schedule and the agreement on failures are tested without a
// launcher or a GPU. Each collective writes its contribution, meets the others at a barrier, reads
// the result, and meets them again before anyone may write the next one.
#include <algorithm>
#include <barrier>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "gpubench/error.hpp"
#include "gpubench/rank_group.hpp"

namespace gpubench {

namespace {

struct board {
  explicit board(int n) : sync(n), doubles(std::size_t(n)), texts(std::size_t(n)) {}
  std::barrier<> sync;
  std::vector<std::byte> bytes;
  std::vector<std::vector<double>> doubles;
  std::vector<std::string> texts;
};

class thread_rank final : public rank_group {
 public:
  thread_rank(int rank, int size, board& b) : rank_(rank), size_(size), b_(b) {}
  ~thread_rank() override { release_slots(); }
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] int local_rank() const override { return rank_; }
  void barrier() override { b_.sync.arrive_and_wait(); }
  void broadcast(std::span<std::byte> bytes, int root) override {
    if (rank_ == root) b_.bytes.assign(bytes.begin(), bytes.end());
    b_.sync.arrive_and_wait();
    if (b_.bytes.size() != bytes.size()) throw runtime_error("broadcast: the ranks passed different lengths");
    std::copy(b_.bytes.begin(), b_.bytes.end(), bytes.begin());
    b_.sync.arrive_and_wait();
  }
  std::vector<double> max(std::span<const double> values) override {
    b_.doubles[std::size_t(rank_)].assign(values.begin(), values.end());
    b_.sync.arrive_and_wait();
    std::vector<double> out(values.begin(), values.end());
    for (const auto& other : b_.doubles)
      for (std::size_t i = 0; i < out.size() && i < other.size(); ++i) out[i] = std::max(out[i], other[i]);
    b_.sync.arrive_and_wait();
    return out;
  }
  std::vector<std::string> all_gather(const std::string& text) override {
    b_.texts[std::size_t(rank_)] = text;
    b_.sync.arrive_and_wait();
    std::vector<std::string> out = b_.texts;
    b_.sync.arrive_and_wait();
    return out;
  }
  [[nodiscard]] std::string describe() const override { return fmt::format("threads, {} ranks", size_); }

 private:
  int rank_, size_;
  board& b_;
};

}  // namespace

void run_thread_ranks(int n, const std::function<void(rank_group&)>& f) {
  if (n < 1) throw usage_error("run_thread_ranks: at least one rank");
  board b(n);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      try {
        thread_rank g(r, n, b);
        f(g);
      } catch (...) {
        errors[std::size_t(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace gpubench
