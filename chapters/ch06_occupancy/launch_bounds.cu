// One kernel compiled under four register budgets: registers that limit occupancy, launch bounds
// that trade them for resident warps, and a cap so tight that the compiler spills.
#include "occupancy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;
constexpr int kTerms = 24;  // polynomial terms, x^0 .. x^23

// s(x) = sum_k x^k / (k+1), k = 0..23, summed from the highest power down: for |x| < 1 the terms
// shrink with k, and adding the small ones first is the accurate order. It is also why the
// register budget matters: all 22 powers are computed going up and consumed coming down, so each
// value's powers are live at once, and the four values of a float4 are independent. Given
// registers, the compiler interleaves the four (ILP, ~4 x 24 live values); given few, it does them
// one after another; given fewer than one value needs, it spills to local memory. Explicit
// round-to-nearest intrinsics keep the result bit-identical under any schedule.
__device__ __forceinline__ float power_series(float x) {
  float p[kTerms];
  p[1] = x;
#pragma unroll
  for (int k = 2; k < kTerms; ++k) p[k] = __fmul_rn(p[k - 1], x);
  float s = __fmul_rn(p[kTerms - 1], 1.0f / kTerms);
#pragma unroll
  for (int k = kTerms - 2; k >= 1; --k) s = __fmaf_rn(p[k], 1.0f / float(k + 1), s);
  return __fadd_rn(s, 1.0f);  // k = 0: x^0 / 1
}
constexpr double kFlopsPerValue = (kTerms - 2) + 1 + 2.0 * (kTerms - 2) + 1;  // powers, top term, FMAs, last add
static_assert(kFlopsPerValue == 68);

// A persistent grid-stride loop with one float4 in flight per thread (no unrolling), as in
// occupancy_memory: the bytes in flight, and so the bandwidth, follow the resident warps, and
// the resident warps follow the registers. The body is the same for every budget.
#define GPUBENCH_CH06_SERIES_BODY                                                                               \
  const auto* x4 = reinterpret_cast<const float4*>(x);                                                         \
  auto* y4 = reinterpret_cast<float4*>(y);                                                                     \
  const std::size_t n4 = n / 4, stride = std::size_t(gridDim.x) * blockDim.x;                                  \
  _Pragma("unroll 1") for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4;          \
                           i += stride) {                                                                       \
    const float4 v = x4[i];                                                                                     \
    y4[i] = float4{power_series(v.x), power_series(v.y), power_series(v.z), power_series(v.w)};                 \
  }                                                                                                             \
  if (blockIdx.x == 0 && threadIdx.x < n % 4) y[4 * n4 + threadIdx.x] = power_series(x[4 * n4 + threadIdx.x]);

// __launch_bounds__(256, B) promises blocks of at most 256 threads and asks for B of them per SM,
// so the compiler keeps registers at or below 65536 / (256 B): 255 (its maximum) for B = 1, 64 for
// B = 4, 32 for B = 8. __maxnreg__(24) caps registers directly, below what one value's powers need.
template <int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks)
    series_bounded(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  GPUBENCH_CH06_SERIES_BODY
}
__global__ void __maxnreg__(24) series_spilling(const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  GPUBENCH_CH06_SERIES_BODY
}
#undef GPUBENCH_CH06_SERIES_BODY

struct series_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y;
  ch06::plan_table plans;

  series_state(const size_point& z, const gpubench::setup_context& ctx) : n(std::size_t(z["n"])), x(n), y(n) {
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    // Each budget's grid is what fits at once at its own occupancy (a persistent grid).
    plans["min_blocks_1"] = ch06::full_persistent(series_bounded<1>, kThreads);
    plans["min_blocks_4"] = ch06::full_persistent(series_bounded<4>, kThreads);
    plans["min_blocks_8"] = ch06::full_persistent(series_bounded<8>, kThreads);
    plans["max_regs_24"] = ch06::full_persistent(series_spilling, kThreads);
  }
  gpubench::output_view output(std::string_view) const override { return {y.get(), n}; }
  gpubench::launch_facts facts(std::string_view variant) const override { return ch06::facts_of(plans, variant); }
};

template <class... Args>
void launch(void (*kernel)(Args...), const series_state& s, const char* name, gpubench::stream_t stream) {
  const ch06::launch_plan& p = s.plans.at(name);
  kernel<<<p.grid, p.threads, 0, stream>>>(s.x.get(), s.y.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<series_state>(
        "launch_bounds", "A register-hungry kernel under launch bounds: fewer registers, more warps, then spills")
        .explain(
            "A power series of 24 terms per value, summed from the highest power down (the accurate order for |x| < "
            "1), which keeps every power of a value live until the sum reaches it; one float4 per thread per "
            "iteration, as in occupancy_memory, so the kernel is memory-bound (68 FLOPs per 8 bytes, below the ridge "
            "point) and needs many resident warps to keep enough bytes in flight. The four variants are the same "
            "source compiled under four register budgets, and each record reports what the compiled kernel uses "
            "(registers and local-memory bytes per thread, from cudaFuncGetAttributes) and the occupancy that allows "
            "(occupancy calculator). min_blocks_1 tells the compiler it may use every register: it interleaves the "
            "four values of a float4 for ILP and uses over 100 registers, which leaves room for 2 blocks of 256 "
            "threads per SM (25% occupancy): register use limits occupancy. min_blocks_4 (at most 64 registers) "
            "makes it compute the values one after another instead, with no spills, for 50% occupancy: more bytes in "
            "flight, and the time should fall. min_blocks_8 (at most 32) reaches 100% occupancy at the price of a "
            "few spilled bytes; max_regs_24 caps registers further, below what one value's powers need, so the "
            "compiler spills more: the same 100% occupancy plus local-memory stores and loads in every iteration, "
            "the other side of the trade-off. The floor is the DRAM bytes over bandwidth; the best budget should "
            "reach 85% of it. This build's ptxas (CUDA 13.0, sm_90) reports 105 / 64 / 32 / 24 registers and 0 / 0 "
            "/ 12 / 44 bytes of spill stores per thread (a 16 and a 40 byte stack frame, which is what "
            "local_bytes_per_thread shows); another compiler may choose differently, and the launch facts always "
            "say what ran.")
        .axis("n", {1 << 20, 1 << 26})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 8 * n, .flops = kFlopsPerValue * n};  // x read, y written once
        })
        .variant("min_blocks_1", "__launch_bounds__(256, 1): up to 255 registers, the compiler interleaves values",
                 [](series_state& s, gpubench::stream_t st) { launch(series_bounded<1>, s, "min_blocks_1", st); })
        .variant("min_blocks_4", "__launch_bounds__(256, 4): at most 64 registers, 4 blocks per SM",
                 [](series_state& s, gpubench::stream_t st) { launch(series_bounded<4>, s, "min_blocks_4", st); })
        .variant("min_blocks_8",
                 "__launch_bounds__(256, 8): at most 32 registers, 8 blocks per SM, a few bytes spilled",
                 [](series_state& s, gpubench::stream_t st) { launch(series_bounded<8>, s, "min_blocks_8", st); })
        .variant("max_regs_24", "__maxnreg__(24): fewer registers than a value needs, spills to local memory",
                 [](series_state& s, gpubench::stream_t st) { launch(series_spilling, s, "max_regs_24", st); })
        .check(gpubench::tolerance::exact());  // the same rounded operations per value under every budget

}  // namespace
