// A streaming kernel (one float4 in flight per thread) swept over block size and resident blocks
// per SM: how many warps an SM must hold before DRAM is busy.
#include "occupancy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr float kScale = 1.5f, kShift = 0.25f;

// y = 1.5 x + 0.25 over a persistent grid. `#pragma unroll 1` keeps one 16-byte load in flight
// per thread per iteration (no load of the next iteration is hoisted above this one's store), so
// the bytes in flight are set by the resident threads alone: the quantity the sweep varies. The
// last n % 4 elements (only an overridden size has them) are done by the first threads of block 0.
__global__ void stream_fma(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t n4 = n / 4;
  const auto* x4 = reinterpret_cast<const float4*>(x);  // cudaMalloc'd: 256-byte aligned
  auto* y4 = reinterpret_cast<float4*>(y);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
#pragma unroll 1
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = x4[i];
    y4[i] = float4{__fmaf_rn(v.x, kScale, kShift), __fmaf_rn(v.y, kScale, kShift), __fmaf_rn(v.z, kScale, kShift),
                   __fmaf_rn(v.w, kScale, kShift)};
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) y[4 * n4 + threadIdx.x] = __fmaf_rn(x[4 * n4 + threadIdx.x], kScale, kShift);
}

struct memory_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y;
  ch06::plan_table plans;  // one per configuration, made here: occupancy queries stay out of the samples

  memory_state(const size_point& z, const gpubench::setup_context& ctx) : n(std::size_t(z["n"])), x(n), y(n) {
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    for (const auto& c : ch06::residency_grid().configs())
      plans[c.name()] = ch06::capped_persistent(stream_fma, int(c["b"]), int(c["k"]));
  }
  gpubench::output_view output(std::string_view) const override { return {y.get(), n}; }
  gpubench::launch_facts facts(std::string_view variant) const override { return ch06::facts_of(plans, variant); }
};

void run(memory_state& s, gpubench::stream_t stream, const gpubench::tuning_config& c) {
  const ch06::launch_plan& p = s.plans.at(c.name());
  stream_fma<<<p.grid, p.threads, p.shared, stream>>>(s.x.get(), s.y.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<memory_state>("occupancy_memory",
                                 "Streaming y = 1.5x + 0.25 over block sizes and resident blocks per SM")
        .explain(
            "A memory-bound kernel is fast when enough bytes are in flight to cover DRAM latency: Little's law, bytes "
            "in flight = bandwidth x latency: at the H100's 3 TB/s and a DRAM latency of several hundred nanoseconds, "
            "megabytes across the GPU, on the order of 10-20 KB per SM. Here "
            "each thread has exactly one 16-byte load in flight (a grid-stride loop that is not unrolled), so the "
            "bytes in flight are 16 B x resident threads, and the sweep sets the resident threads directly: b threads "
            "per block, and at most k blocks per SM, enforced by giving each block 1/k of the SM's shared memory "
            "(the kernel never touches it; every configuration runs with the same maximum-shared carveout, so the L1 "
            "beside it is the same size). The grid is exactly what fits at once, so every SM holds k blocks for the "
            "whole run. Each record shows the theoretical occupancy the occupancy calculator "
            "(cudaOccupancyMaxActiveBlocksPerMultiprocessor) gives for its launch, and with --metrics the achieved "
            "occupancy beside it. Expect time to fall as b*k grows and to flatten once about half the SM's 2048 "
            "threads are resident: configurations with the same b*k should tie, whatever the block size, and b=32 "
            "cannot pass 50% (an SM holds at most 32 blocks). The floor is the DRAM bytes (read x, write y: 8 B per "
            "element) over the measured bandwidth; the best configuration should reach 85% of it, and the "
            "low-occupancy ones are limited by latency, not bandwidth, which the counters show as a low "
            "dram_throughput_pct at an achieved occupancy equal to the theoretical one.")
        .axis("n", {1 << 20, 1 << 26})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 8 * n, .flops = 2 * n};  // x read once, y written once; one FMA each
        })
        .tune(ch06::residency_grid(), "b256_k8", run)
        .check(gpubench::tolerance::exact());  // one FMA per element, the same in every configuration

}  // namespace
