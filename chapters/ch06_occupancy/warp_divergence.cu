// A per-element branch whose direction alternates between neighbouring lanes, vs the same work with
// each warp given elements of one direction only.
#include "occupancy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;
constexpr int kSteps = 512;  // FMAs per element on either path
constexpr float kMapC = -1.9f;

// The two kinds of element. Both are one dependent FFMA per step, so both paths cost the same;
// their arithmetic differs (a contraction towards 0.5 vs the chaotic map v <- v^2 - 1.9) so the
// compiler cannot merge them into one loop with selected constants, which would remove the
// divergence instead of measuring it. v^2 - 1.9 keeps [-1.9, 1.71] (its own image) and starts in
// [-1, 1): every value stays finite, and chaos keeps each output dependent on its input.
__device__ __forceinline__ float path_even(float v) { return ch06::fma_chain<kSteps>(v); }
__device__ __forceinline__ float path_odd(float v) {
#pragma unroll 128
  for (int s = 0; s < kSteps; ++s) v = __fmaf_rn(v, v, kMapC);
  return v;
}
__device__ __forceinline__ float apply(std::size_t i, float v) { return (i & 1) ? path_odd(v) : path_even(v); }

// Thread i takes element i: lanes alternate even/odd, so every warp runs both loops one after the
// other, each with half its lanes masked off.
__global__ void alternating_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = apply(i, x[i]);
}

// The same elements, regrouped: in each tile of 64 elements, the even warp of a pair takes the 32
// even elements and the odd warp the 32 odd ones, so the branch is uniform across every warp. Each
// element still goes through its own path and lands in its own place; a warp's loads and stores now
// span 256 bytes of which it uses every other word (its partner warp uses the rest, through the same
// cache lines), which a kernel doing 512 FMAs per element does not feel.
__global__ void grouped_kernel(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t warp = t / 32, lane = t % 32;
  const std::size_t i = (warp / 2) * 64 + 2 * lane + (warp & 1);
  if (i < n) y[i] = apply(i, x[i]);
}

struct divergence_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y;
  unsigned alternating_blocks, grouped_blocks;
  gpubench::launch_facts alternating_facts, grouped_facts;

  divergence_state(const size_point& z, const gpubench::setup_context& ctx)
      : n(std::size_t(z["n"])),
        x(n),
        y(n),
        alternating_blocks(unsigned((n + kThreads - 1) / kThreads)),
        // Whole 64-element tiles: a ragged last tile's threads past n do nothing.
        grouped_blocks(unsigned(((n + 63) / 64 * 64 + kThreads - 1) / kThreads)) {
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    alternating_facts = gpubench::kernel_facts(alternating_kernel, kThreads, 0, alternating_blocks);
    grouped_facts = gpubench::kernel_facts(grouped_kernel, kThreads, 0, grouped_blocks);
  }
  gpubench::output_view output(std::string_view) const override { return {y.get(), n}; }
  gpubench::launch_facts facts(std::string_view variant) const override {
    return variant == "grouped" ? grouped_facts : alternating_facts;
  }
};

void alternating(divergence_state& s, gpubench::stream_t stream) {
  alternating_kernel<<<s.alternating_blocks, kThreads, 0, stream>>>(s.x.get(), s.y.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

void grouped(divergence_state& s, gpubench::stream_t stream) {
  grouped_kernel<<<s.grouped_blocks, kThreads, 0, stream>>>(s.x.get(), s.y.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<divergence_state>("warp_divergence",
                                     "A branch alternating between neighbouring lanes vs elements grouped by branch")
        .explain(
            "Even elements take one 512-step FMA chain, odd elements another: 1024 FLOPs per element either way, so "
            "the floor is the FP32 peak, at full occupancy. A warp issues one instruction for all its 32 lanes; when "
            "its lanes disagree on a branch it runs both sides one after the other, masking off the lanes that did "
            "not take each. With thread i on element i the direction alternates lane by lane, so every warp executes "
            "both chains at half width: twice the issue slots for the same FLOPs, and at best half the floor. "
            "grouped does exactly the same per-element work (the same branch on the element's index, the same output "
            "in the same place) but hands each warp 32 elements of one parity, so no warp diverges. It should run "
            "close to twice as fast and reach 85% of the floor; alternating's limiter is divergence, which the "
            "counters show as about 16 active threads per issued instruction (Nsight Compute's "
            "smsp__thread_inst_executed_per_inst_executed.ratio) at full occupancy. Sorting or binning work by branch "
            "is the general fix when the direction depends on data rather than the index; predication (computing "
            "both sides and selecting) only pays for branches a few instructions long, not for chains like these.")
        .axis("n", {1 << 20, 1 << 24})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 8 * n, .flops = 2.0 * kSteps * n};  // x read, y written; one path per element
        })
        .variant("alternating", "thread i on element i: each warp runs both paths, half its lanes idle in each",
                 alternating)
        .variant("grouped", "each warp on 32 elements of one parity: no warp diverges", grouped)
        .check(gpubench::tolerance::exact());  // the same operations per element, in the same order

}  // namespace
