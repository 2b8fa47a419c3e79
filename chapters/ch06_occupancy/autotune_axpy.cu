// Autotuning as a pair kind: z = a·x + y over a grid of (threads per block, float4 per thread);
// `run` measures every configuration and names the best per size and GPU.
#include <algorithm>

#include "occupancy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr float kA = 1.5f;

// Each thread loads E float4 of x and E of y before it computes anything, so 2E independent
// 16-byte loads are in flight per thread; the E float4 a thread owns are a block's width apart,
// so every warp access stays coalesced. The last n % 4 elements are done by block 0.
template <int E>
__global__ void axpy_kernel(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ z,
                            std::size_t n) {
  const auto* x4 = reinterpret_cast<const float4*>(x);  // cudaMalloc'd: 256-byte aligned
  const auto* y4 = reinterpret_cast<const float4*>(y);
  auto* z4 = reinterpret_cast<float4*>(z);
  const std::size_t n4 = n / 4;
  const std::size_t base = std::size_t(blockIdx.x) * blockDim.x * E + threadIdx.x;
  float4 a[E], b[E];
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const std::size_t i = base + std::size_t(j) * blockDim.x;
    a[j] = i < n4 ? x4[i] : float4{};
    b[j] = i < n4 ? y4[i] : float4{};
  }
#pragma unroll
  for (int j = 0; j < E; ++j) {
    const std::size_t i = base + std::size_t(j) * blockDim.x;
    if (i < n4)
      z4[i] = float4{__fmaf_rn(kA, a[j].x, b[j].x), __fmaf_rn(kA, a[j].y, b[j].y), __fmaf_rn(kA, a[j].z, b[j].z),
                     __fmaf_rn(kA, a[j].w, b[j].w)};
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) {
    const std::size_t i = 4 * n4 + threadIdx.x;
    z[i] = __fmaf_rn(kA, x[i], y[i]);
  }
}

using kernel_fn = void (*)(const float*, const float*, float*, std::size_t);

kernel_fn kernel_for(std::int64_t e) {
  switch (e) {
    case 1: return axpy_kernel<1>;
    case 2: return axpy_kernel<2>;
    case 4: return axpy_kernel<4>;
    case 8: return axpy_kernel<8>;
    default: return nullptr;
  }
}

// The grid: 5 block sizes x 4 widths. Block size trades scheduling granularity (and the last
// wave's tail) against how many blocks fit per SM; elements per thread trade bytes in flight per
// thread (ILP) against fewer, fatter threads and more registers. Every combination can launch.
gpubench::tuning_grid axpy_grid() {
  return gpubench::tuning_grid()
      .param("b", "threads per block", {64, 128, 256, 512, 1024})
      .param("e", "float4 of x and of y per thread", {1, 2, 4, 8});
}

struct axpy_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y, z;
  ch06::plan_table plans;
  std::unordered_map<std::string, std::string> unlaunchable;  // configuration -> why it cannot launch here

  axpy_state(const size_point& sz, const gpubench::setup_context& ctx)
      : n(std::size_t(sz["n"])), x(n), y(n), z(n) {
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(y.get(), n, gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    for (const auto& c : axpy_grid().configs()) {
      const auto b = c["b"], e = c["e"];
      const std::size_t per_block = std::size_t(b * e);
      ch06::launch_plan p;
      p.threads = int(b);
      p.grid = unsigned(std::max<std::size_t>(1, (n / 4 + per_block - 1) / per_block));  // one block even for n < 4
      p.facts = gpubench::kernel_facts(kernel_for(e), p.threads, 0, p.grid);
      // A block whose threads need more registers than an SM has cannot launch at all (with this
      // build's 80 registers for e = 8, b = 1024 would need 81920 of the SM's 65536). Such a
      // configuration is skipped with the reason, as Triton's autotuner drops a config that runs
      // out of resources; the others still run.
      if (p.facts.at("blocks_per_sm") < 1) {
        unlaunchable[c.name()] = "b=" + std::to_string(b) + " threads of " +
                                 std::to_string(int(p.facts.at("registers_per_thread"))) +
                                 " registers each do not fit on one SM: the launch would fail";
        p.grid = 0;
      }
      plans[c.name()] = p;
    }
  }
  gpubench::output_view output(std::string_view) const override { return {z.get(), n}; }
  gpubench::launch_facts facts(std::string_view variant) const override { return ch06::facts_of(plans, variant); }
};

void run(axpy_state& s, gpubench::stream_t stream, const gpubench::tuning_config& c) {
  const ch06::launch_plan& p = s.plans.at(c.name());
  if (p.grid == 0) throw gpubench::not_supported(s.unlaunchable.at(c.name()));
  kernel_for(c["e"])<<<p.grid, p.threads, 0, stream>>>(s.x.get(), s.y.get(), s.z.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<axpy_state>("autotune_axpy", "z = 1.5x + y tuned over threads per block and float4 per thread")
        .explain(
            "Autotuning as a pair kind: the registry takes a grid of launch configurations of one kernel (here b "
            "threads per block x e float4 of x and y per thread, 20 configurations), registers each as a variant "
            "named like b256_e4 with b256_e1, the textbook launch, as the baseline, and the engine verifies, "
            "interleaves and times them like any variants. run ranks the configurations per size (rank 1 is the "
            "tuned one), prints the best with its margin over the runner-up and the configurations within 2% of "
            "it, and keeps every configuration in the profile (records[i].tuning); list shows the grid. The kernel "
            "is memory-bound (12 bytes per element, read x and y, write z, for 2 FLOPs): its floor is the DRAM "
            "bytes over bandwidth, and the tuned configuration should reach 85% of it at the large sizes. A "
            "configuration that cannot launch (b1024_e8 in this build: 80 registers x 1024 threads exceed an SM's "
            "65536) is skipped with the reason and never ranked, as Triton's autotuner drops a config that runs out "
            "of resources. What can "
            "differ between GPUs is how many bytes must be in flight (bandwidth x latency): an H200 moves more bytes "
            "per second than an H100 with the same 132 SMs, so it may need more float4 per thread or more resident "
            "threads, and its tuned configuration may differ. gpubench's tuning key is the pair, the size (every "
            "axis value) and the GPU (the profile's device name and compute capability): each run measures every "
            "configuration again, nothing is cached between runs. Triton's autotuner keys on the values of the "
            "kernel arguments named in key=[...] plus the dtypes of its tensor arguments; it benchmarks every "
            "config the first time a key is seen and caches the best config per key in memory for the process, "
            "and with cache_results=True on disk, where the key also holds the Triton version, the kernel's source "
            "hash and the target (backend and architecture, e.g. sm_90), not the GPU model: an H100 and an H200 "
            "share it.")
        .axis("n", {1 << 20, 1 << 23, 1 << 26})
        .work([](const size_point& sz) {
          const double n = double(sz["n"]);
          return gpubench::work{.bytes = 12 * n, .flops = 2 * n};  // x and y read once, z written once; one FMA each
        })
        .tune(axpy_grid(), "b256_e1", run)
        .check(gpubench::tolerance::exact());  // one FMA per element, the same in every configuration

}  // namespace
