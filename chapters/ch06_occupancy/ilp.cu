// One dependent FMA chain per thread vs 4 and 8 independent chains, at low and high occupancy:
// instruction-level parallelism stands in for warps.
#include <stdexcept>

#include "occupancy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kSteps = 256;   // dependent FMAs per element
constexpr int kThreads = 128;  // 4 warps per block, one per SM scheduler

// Thread t handles elements t, t + T, t + 2T, ... (T = threads in the grid), the same elements
// in every variant. ILP of them at a time have their chains advanced in lock step, so each step
// issues ILP independent FMAs; the fewer than ILP left at the end go one at a time, so no variant
// computes a chain the others do not. With ILP = 1 this is occupancy_latency's kernel. Element i's
// chain is the same FMA sequence whatever ILP is, so every variant writes the same bits.
template <int ILP>
__global__ void ilp_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (; i + (ILP - 1) * threads < n; i += ILP * threads) {
    float v[ILP];
#pragma unroll
    for (int j = 0; j < ILP; ++j) v[j] = x[i + j * threads];
    // 128 FMAs per loop iteration for every ILP, so the loop's 3 bookkeeping instructions cost each
    // variant the same 2% of its issue slots.
    constexpr int kUnrollSteps = 128 / ILP;
#pragma unroll kUnrollSteps
    for (int s = 0; s < kSteps; ++s) {
#pragma unroll
      for (int j = 0; j < ILP; ++j) v[j] = __fmaf_rn(v[j], ch06::kChainA, ch06::kChainB);
    }
#pragma unroll
    for (int j = 0; j < ILP; ++j) y[i + j * threads] = v[j];
  }
#pragma unroll 1
  for (; i < n; i += threads) y[i] = ch06::fma_chain<kSteps>(x[i]);
}

struct ilp_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y;
  ch06::plan_table plans;

  ilp_state(const size_point& z, const gpubench::setup_context& ctx) : n(std::size_t(z["n"])), x(n), y(n) {
    const std::int64_t warps = z["warps_per_sm"];
    if (warps < 4 || warps > 64 || warps % 4 != 0)
      throw std::invalid_argument("warps_per_sm must be a multiple of 4 from 4 to 64 (blocks of 4 warps, at most 16)");
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    const int blocks = int(warps / 4);
    plans["ilp1"] = ch06::capped_persistent(ilp_kernel<1>, kThreads, blocks);
    plans["ilp4"] = ch06::capped_persistent(ilp_kernel<4>, kThreads, blocks);
    plans["ilp8"] = ch06::capped_persistent(ilp_kernel<8>, kThreads, blocks);
  }
  gpubench::output_view output(std::string_view) const override { return {y.get(), n}; }
  gpubench::launch_facts facts(std::string_view variant) const override { return ch06::facts_of(plans, variant); }
};

template <int ILP>
void run(ilp_state& s, gpubench::stream_t stream) {
  const ch06::launch_plan& p = s.plans.at("ilp" + std::to_string(ILP));
  ilp_kernel<ILP><<<p.grid, p.threads, p.shared, stream>>>(s.x.get(), s.y.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<ilp_state>("ilp", "One FMA chain per thread vs 4 and 8 independent chains, at 4 to 64 warps per SM")
        .explain(
            "The same 256-step dependent FMA chain per element as occupancy_latency (floor: the FP32 peak), with each "
            "thread advancing 1, 4 or 8 elements' chains in lock step. A scheduler can issue an FMA when its operand "
            "is ready; with one chain per warp that is once per FMA latency, so it needs several warps; with 4 or 8 "
            "independent chains, each warp has that many FMAs ready every cycle, and one warp per scheduler can keep "
            "the pipe busy. The axis warps_per_sm sets the resident warps (blocks of 128 threads, capped per SM with "
            "shared memory as in occupancy_memory): at 4 warps per SM (one per scheduler) ilp1 is latency-bound and "
            "ilp4 and ilp8 should run several times faster; at 64 warps every variant should reach the FP32 floor, "
            "and the extra chains only cost registers (shown with the launch facts). So ILP substitutes for "
            "occupancy: 4 chains at 4 warps do what 1 chain needs about four times the warps for. Where ilp1 at low "
            "occupancy stays far below the floor, the counters name the limiter: a low sm_throughput_pct at full "
            "achieved occupancy. Every variant gives each thread the same elements; an ILP variant takes them ILP at "
            "a time and the last few (fewer than ILP) one by one, so all three do exactly the same FMAs. At the small "
            "size with 64 warps per SM each thread has only about 4 elements, too few for 8 chains: read the large "
            "size.")
        .axis("n", {1 << 20, 1 << 24})
        .axis("warps_per_sm", {4, 16, 64})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 8 * n, .flops = 2.0 * kSteps * n};  // x read, y written once; 256 FMAs each
        })
        .variant("ilp1", "one chain per thread at a time", run<1>)
        .variant("ilp4", "4 independent chains per thread, advanced in lock step", run<4>)
        .variant("ilp8", "8 independent chains per thread, advanced in lock step", run<8>)
        .check(gpubench::tolerance::exact());  // each element's chain is the same FMA sequence in every variant

}  // namespace
