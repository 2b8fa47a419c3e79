// A latency-bound kernel (one dependent FMA chain per thread) swept over block size and resident
// blocks per SM: how many warps hide the arithmetic pipeline's latency.
#include "occupancy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kSteps = 1024;  // dependent FMAs per element

// Each thread walks its elements one at a time (`#pragma unroll 1`: two elements' chains are
// never interleaved, which would be ILP, the next pair's subject); within an element every FMA
// waits for the previous one. The only parallelism an SM scheduler can find is other warps.
__global__ void chain_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = ch06::fma_chain<kSteps>(x[i]);
}

struct latency_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y;
  ch06::plan_table plans;

  latency_state(const size_point& z, const gpubench::setup_context& ctx) : n(std::size_t(z["n"])), x(n), y(n) {
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    for (const auto& c : ch06::residency_grid().configs())
      plans[c.name()] = ch06::capped_persistent(chain_kernel, int(c["b"]), int(c["k"]));
  }
  gpubench::output_view output(std::string_view) const override { return {y.get(), n}; }
  gpubench::launch_facts facts(std::string_view variant) const override { return ch06::facts_of(plans, variant); }
};

void run(latency_state& s, gpubench::stream_t stream, const gpubench::tuning_config& c) {
  const ch06::launch_plan& p = s.plans.at(c.name());
  chain_kernel<<<p.grid, p.threads, p.shared, stream>>>(s.x.get(), s.y.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<latency_state>("occupancy_latency",
                                  "A dependent FMA chain over block sizes and resident blocks per SM")
        .explain(
            "Each element goes through 1024 FMAs, each needing the previous one's result: 2048 FLOPs per 8 bytes, so "
            "the floor is the FP32 peak, and the kernel is latency-bound: an FFMA's result is ready only a few cycles "
            "after it issues, so a warp with one chain can issue one FMA per latency, and each of the SM's four "
            "schedulers needs several such warps to issue every cycle. Nothing else hides that latency here (one "
            "element at a time per thread, no ILP), so the sweep over b threads per block and at most k resident "
            "blocks per SM (capped with shared memory, as in occupancy_memory) shows how many resident warps the FP32 "
            "pipes need: time falls in proportion to b*k, then flattens once every scheduler always has a warp ready, "
            "at a much lower occupancy than the memory-bound pair needs, because an FMA's latency is tens of times "
            "shorter than a DRAM access. Each record shows its theoretical occupancy (occupancy calculator) and, with "
            "--metrics, the achieved one. The best configurations should reach 85% of the FP32 floor; those below "
            "the knee are limited by issue latency, which the counters show as a low sm_throughput_pct at an achieved "
            "occupancy equal to the theoretical one.")
        .axis("n", {1 << 20, 1 << 24})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 8 * n, .flops = 2.0 * kSteps * n};  // x read, y written once; 1024 FMAs each
        })
        .tune(ch06::residency_grid(), "b256_k8", run)
        .check(gpubench::tolerance::exact());  // the same FMA sequence per element in every configuration

}  // namespace
