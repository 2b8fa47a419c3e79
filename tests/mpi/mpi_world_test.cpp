// The MPI rank group and the lockstep schedule through real MPI, without a GPU: run as
// `mpirun -np 2 gpubench_mpi_test` (tests/CMakeLists.txt). Rank 0 prints the closing count; any
// failed check on any rank makes every rank exit 1.
#include <cstdio>
#include <string>

#include "gpubench/error.hpp"
#include "gpubench/mpi_world.hpp"
#include "gpubench/rank_group.hpp"

namespace {

using namespace gpubench;

// A rank whose k-th sample takes (1 + k % 5 / 100) ms × (1 + rank / 10): rank 1 is always slower.
class scripted final : public rank_executor {
 public:
  explicit scripted(int rank) : rank_(rank) {}
  void begin_round(int) override {}
  void warm_up(std::size_t, int) override {}
  void prepare(std::size_t) override {}
  sample_reading timed(std::size_t) override {
    const double t = 1e-3 * (1 + double(k_++ % 5) / 100) * (1 + rank_ / 10.0);
    clock_ += t;
    return {.time_s = t};
  }
  double now_s() override { return clock_ + 500.0 * rank_; }

 private:
  int rank_;
  long k_ = 0;
  double clock_ = 0;
};

}  // namespace

int main() {
  int checks = 0, failures = 0;
  const auto check = [&](bool ok, const std::string& what) {
    ++checks;
    if (!ok) {
      ++failures;
      std::fprintf(stderr, "mpi_world_test: FAILED: %s\n", what.c_str());
    }
  };
  auto g = open_mpi_world();
  check(g->size() == 2, "two ranks (run under mpirun -np 2)");
  check(g->local_rank() == g->rank(), "both ranks on this host, local rank = rank");
  std::uint64_t id = g->rank() == 0 ? 0x1234abcdULL : 0;
  g->broadcast(std::as_writable_bytes(std::span<std::uint64_t>(&id, 1)), 0);
  check(id == 0x1234abcdULL, "broadcast from rank 0");
  const double v[2] = {double(g->rank()), 10.0 - g->rank()};
  const auto m = g->max(v);
  check(m.size() == 2 && m[0] == 1.0 && m[1] == 10.0, "element-wise max");
  const auto all = g->all_gather(std::string(std::size_t(g->rank() + 1), char('a' + g->rank())));
  check(all == std::vector<std::string>{"a", "bb"}, "all_gather in rank order");
  std::string caught;
  try {
    agree(*g, [&] {
      if (g->rank() == 1) throw runtime_error("no GPU here");
    });
  } catch (const error& e) {
    caught = e.what();
  }
  check(caught == "rank 1: no GPU here", "agree: every rank throws rank 1's reason, got '" + caught + "'");

  scripted local(g->rank());
  lockstep_executor ex(local, *g);
  timing_data t;
  std::vector<measure_slot> slots{{0, &t, {}}};
  schedule_options o;
  o.rounds = 2;
  o.total.min_samples = 10;
  o.total.max_samples = 40;
  o.total.max_noise = 1e-9;
  measure_rounds(ex, slots, o);
  std::string mine;
  for (const double s : t.samples_s) mine += std::to_string(s) + ",";
  const auto both = g->all_gather(mine);
  check(!t.samples_s.empty() && both[0] == both[1], "both ranks kept the same samples");
  bool slowest = !t.samples_s.empty();
  for (const double s : t.samples_s) slowest = slowest && s >= 1.1e-3 - 1e-12;  // rank 1's times, never rank 0's
  check(slowest, "every sample is the slower rank's time");

  const double mine_failures = failures;
  const int any = int(g->max(std::span<const double>(&mine_failures, 1)).at(0));
  if (g->rank() == 0) std::printf("mpi_world_test: %d passed, %d failed\n", checks - failures, failures);
  return any == 0 ? 0 : 1;
}
