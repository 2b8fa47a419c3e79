// Re-streaming on a GPU (docs/measurement.md, "Re-streaming"): with run_options::restream, fresh
// rounds move to streams of the runner's pool, and every run of a state, timed or not, happens on
// the stream the state was built with, since states may bind it (a cuBLAS handle does). A
// self-test pair (chapter 99, registered only in this binary) notes each stream its variants run
// on and every run on another stream than its state's.
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpubench/cuda.hpp"
#include "gpubench/registry.hpp"
#include "gpubench/runner.hpp"
#include "gpubench/size.hpp"

namespace gpubench {
namespace {

__global__ void add_one(const float* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i] + 1.f;
}

/// What the pair's variants saw since the last reset.
struct stream_log {
  std::set<stream_t> streams;
  int off_state_stream = 0;  ///< runs on another stream than the one their state was built with
};
stream_log seen;

struct bound_state : pair_state {
  stream_t built_on;
  device_buffer<float> in, out;
  bound_state(const size_point& z, const setup_context& ctx)
      : built_on(ctx.stream), in(std::size_t(z["n"])), out(std::size_t(z["n"])) {
    fill_uniform(in.get(), in.size(), ctx.seed, -1.f, 1.f, ctx.stream);
  }
  output_view output(std::string_view) const override { return {out.get(), out.size()}; }
};

void run_bound(bound_state& s, stream_t st) {
  seen.streams.insert(st);
  if (st != s.built_on) ++seen.off_state_stream;
  add_one<<<132, 256, 0, st>>>(s.in.get(), s.out.get(), s.in.size());
  GPUBENCH_CHECK_LAUNCH();
}

const registration bound =
    pair_builder<bound_state>(99, "stream_bound", "variants that must run on their state's stream")
        .explain("Notes the streams its variants run on.")
        .axis("n", {1 << 20})
        .work([](const size_point& z) { return work{.bytes = 8.0 * double(z["n"])}; })
        .variant("baseline", "adds one", run_bound)
        .variant("again", "adds one again", run_bound)
        .check(tolerance::exact())
        .goodput();  // runs the state once more after the rounds, outside the executor

const pair_def& bound_pair() { return *registry::global().select(99, {"stream_bound"}).front(); }

run_options options(bool restream) {
  run_options o = run_options::quick();
  o.rounds = 6;
  o.restream = restream;
  return o;
}

/// Runs the pair with or without restream, checks that both variants passed, and returns how many
/// streams its variants ran on.
std::size_t streams_of_a_run(bool restream) {
  seen = {};
  runner r(0, options(restream));
  run_observer quiet;
  const std::vector<record> records = r.run({&bound_pair()}, quiet);
  EXPECT_EQ(records.size(), 2u);
  for (const record& rec : records) EXPECT_EQ(rec.status, record_status::passed) << rec.reason;
  EXPECT_EQ(seen.off_state_stream, 0);
  return seen.streams.size();
}

TEST(restream, a_runs_rounds_move_between_streams_and_each_state_stays_on_its_own) {
  // Five fresh rounds, each drawing one of the pool's streams: all on one would be a stream not
  // drawn.
  EXPECT_GE(streams_of_a_run(true), 2u);
}

TEST(restream, without_it_every_round_keeps_the_runs_one_stream) { EXPECT_EQ(streams_of_a_run(false), 1u); }

TEST(restream, a_workers_open_size_keeps_each_state_on_its_stream_through_goodput) {
  seen = {};
  runner r(0, options(true));
  run_observer quiet;
  const pair_def& def = bound_pair();
  const size_point z = planned_sizes(def.axes, true, {}, def.id()).front();
  const std::vector<record> opened = r.open_size(def, z, quiet, true, true);
  ASSERT_EQ(opened.size(), 2u);
  for (const record& rec : opened) ASSERT_EQ(rec.status, record_status::passed) << rec.reason;
  std::vector<std::pair<std::string, double>> medians;
  for (int round = 0; round < 6; ++round) {
    const std::vector<record> timed = r.measure_open_round(round, 6, {"baseline", "again"}, -1);
    ASSERT_EQ(timed.size(), 2u);
    for (const record& rec : timed) EXPECT_EQ(rec.status, record_status::passed) << rec.reason;
    if (round == 5)
      for (const record& rec : timed) medians.emplace_back(rec.variant, rec.timing.samples_s.front());
  }
  const std::vector<record> finished = r.finish_open_size(medians);
  ASSERT_EQ(finished.size(), 2u);
  r.close_size();
  EXPECT_EQ(seen.off_state_stream, 0);
  EXPECT_GE(seen.streams.size(), 2u);
}

}  // namespace
}  // namespace gpubench
