// A 65536-bin histogram of n values: every element added straight into the global histogram with
// an atomic, vs thread block clusters (sm_90) whose 4 blocks split the bins between their shared
// memories and add into each other's through distributed shared memory (DSMEM), flushing to the
// global histogram once per cluster.
#include <algorithm>
#include <string>

#include <cooperative_groups.h>

#include "async_copy_helpers.cuh"

namespace {

using gpubench::size_point;
namespace cg = cooperative_groups;

// 65536 bins of 4 bytes = 256 KB: more than one block's shared memory can hold (227 KB on
// H100), so no block can keep a private copy of the whole histogram; a cluster of 4 blocks holds
// it as 4 slices of 64 KB.
constexpr int kBins = 1 << 16;
constexpr int kCluster = 4;
constexpr int kSlice = kBins / kCluster;                    // bins per block
constexpr std::size_t kSliceBytes = sizeof(unsigned) * kSlice;  // 64 KB
constexpr int kThreads = 512;
// A cluster zeroes and flushes 65536 bins: give each at least 2^18 elements, so that fixed cost
// stays small next to the counting at every size.
constexpr std::int64_t kMinPerCluster = std::int64_t(1) << 18;

// Values are uniform in [0, 1): bin = floor(x * 65536), clamped (the conversion saturates below).
__device__ __forceinline__ unsigned bin_of(float x) {
  return min(__float2uint_rz(x * float(kBins)), unsigned(kBins - 1));
}

// Calls f(bin) for every element, grid-stride over float4 loads (and a scalar tail).
template <class F>
__device__ __forceinline__ void for_each_bin(const float* __restrict__ x, std::int64_t n, F f) {
  const std::int64_t n4 = n / 4, stride = std::int64_t(gridDim.x) * blockDim.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 v = x4[i];
    f(bin_of(v.x));
    f(bin_of(v.y));
    f(bin_of(v.z));
    f(bin_of(v.w));
  }
  for (std::int64_t i = 4 * n4 + std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    f(bin_of(x[i]));
}

// 1. Every element is an atomic add on the global histogram: a read-modify-write at the L2 for
// each of the n elements, and no partial counting anywhere closer to the SM.
__global__ void __launch_bounds__(kThreads) hist_global(const float* __restrict__ x, std::int64_t n, unsigned* hist) {
  for_each_bin(x, n, [&](unsigned b) { atomicAdd(hist + b, 1u); });
}

// 2. A cluster of 4 blocks shares the histogram: block r of the cluster owns bins
// [r * 16384, (r + 1) * 16384) in its shared memory. Every element's bin is added, with a
// shared-memory atomic, in the block that owns it, local or remote (cluster.map_shared_rank maps
// another block's shared-memory address into this block's view, over the SM-to-SM network). Two
// cluster barriers frame the counting: no block may add into a slice before its owner zeroed it,
// and no block may flush or exit while others may still add into its slice. Then each block adds
// its non-zero bins to the global histogram: 65536 global atomics per cluster instead of one per
// element.
__global__ void __launch_bounds__(kThreads) hist_cluster(const float* __restrict__ x, std::int64_t n, unsigned* hist) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ unsigned slice[];
  cg::cluster_group cluster = cg::this_cluster();
  for (int i = threadIdx.x; i < kSlice; i += blockDim.x) slice[i] = 0;
  cluster.sync();
  for_each_bin(x, n, [&](unsigned b) {
    unsigned* owner = cluster.map_shared_rank(slice, b / kSlice);
    atomicAdd(owner + b % kSlice, 1u);
  });
  cluster.sync();
  unsigned* out = hist + std::size_t(cluster.block_rank()) * kSlice;
  for (int i = threadIdx.x; i < kSlice; i += blockDim.x)
    if (const unsigned c = slice[i]; c != 0) atomicAdd(out + i, c);
#else
  // Never launched: the State refuses GPUs below sm_90 before any launch.
  (void)x, (void)n, (void)hist;
  __trap();
#endif
}

struct hist_state : gpubench::pair_state {
  std::int64_t n;
  int grid_global = 0, grid_cluster = 0;
  gpubench::device_buffer<float> x;
  gpubench::device_buffer<unsigned> hist;

  hist_state(const size_point& z, const gpubench::setup_context& ctx) : n(checked(z["n"])) {
    ch07::require_sm90("thread block clusters and distributed shared memory");
    x = gpubench::device_buffer<float>(std::size_t(n));
    hist = gpubench::device_buffer<unsigned>(kBins);
    gpubench::fill_uniform(x.get(), x.size(), gpubench::derive_seed(ctx.seed, 1), 0.f, 1.f, ctx.stream);
    const int sms = ch07::sm_count();
    grid_global = sms * ch07::blocks_per_sm(hist_global, kThreads, 0);
    ch07::allow_dynamic_smem(hist_cluster, kSliceBytes);
    // As many clusters as can be resident at once, but no more than n / 2^18.
    cudaLaunchConfig_t cfg = config(1, ctx.stream);
    cudaLaunchAttribute attr = cluster_attr();
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(kCluster);
    int clusters = 0;
    GPUBENCH_CUDA(cudaOccupancyMaxActiveClusters(&clusters, hist_cluster, &cfg));
    if (clusters < 1)
      throw gpubench::not_supported("no cluster of 4 blocks with 64 KB of shared memory each fits on this GPU");
    clusters = int(std::min<std::int64_t>(clusters, std::max<std::int64_t>(1, n / kMinPerCluster)));
    grid_cluster = clusters * kCluster;
  }
  static std::int64_t checked(std::int64_t n) {
    // Counts are 32-bit; below 2^31 every count is also a finite float bit pattern (see output()).
    if (n < 1 || n >= (std::int64_t(1) << 31))
      throw gpubench::usage_error("cluster_histogram: n must be between 1 and 2^31 - 1, got " + std::to_string(n));
    return n;
  }
  static cudaLaunchConfig_t config(int grid, gpubench::stream_t stream) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(grid));
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kSliceBytes;
    cfg.stream = stream;
    return cfg;
  }
  static cudaLaunchAttribute cluster_attr() {
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = kCluster;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    return a;
  }
  // The histogram is 65536 uint32 counts. The engine compares float types, so it is declared as
  // f32 and checked bitwise (tolerance exact): equal bits are equal counts. Every count below 2^31
  // is the bit pattern of a finite float, and the engine's 0xFF poison is a NaN, so "finite" still
  // means "written".
  gpubench::output_view output(std::string_view) const override { return {hist.get(), hist.size()}; }
};

void global_atomics(hist_state& s, gpubench::stream_t stream) {
  GPUBENCH_CUDA(cudaMemsetAsync(s.hist.get(), 0, s.hist.bytes(), stream));
  hist_global<<<s.grid_global, kThreads, 0, stream>>>(s.x.get(), s.n, s.hist.get());
  GPUBENCH_CHECK_LAUNCH();
}

void cluster_dsmem(hist_state& s, gpubench::stream_t stream) {
  GPUBENCH_CUDA(cudaMemsetAsync(s.hist.get(), 0, s.hist.bytes(), stream));
  cudaLaunchConfig_t cfg = hist_state::config(s.grid_cluster, stream);
  cudaLaunchAttribute attr = hist_state::cluster_attr();
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  GPUBENCH_CUDA(cudaLaunchKernelEx(&cfg, hist_cluster, static_cast<const float*>(s.x.get()), s.n, s.hist.get()));
}

const gpubench::registration reg =
    gpubench::pair<hist_state>(
        "cluster_histogram", "65536-bin histogram: global atomics per element vs a cluster's distributed shared memory")
        .explain("The usual way to make a histogram fast is privatisation: each block counts into its own copy in "
                 "shared memory, where atomics are cheap, and merges it into the global histogram once. That works "
                 "only while the histogram fits in one block's shared memory; 65536 32-bit bins (256 KB) do not "
                 "(227 KB at most on H100), so the fallback is one global atomic per element, each a read-modify-"
                 "write at the L2 slice that owns the bin. Hopper's thread block clusters give a group of blocks, "
                 "co-scheduled on one GPC, access to each other's shared memory (distributed shared memory, DSMEM). "
                 "A cluster of 4 blocks can then hold the whole histogram, 64 KB per block: each element's count "
                 "goes to the block that owns its bin through a shared-memory atomic, local or over the SM-to-SM "
                 "network, and each cluster merges its counts into the global histogram once (65536 atomics per "
                 "cluster instead of one per element). cluster.sync() frames the counting: every slice is zeroed "
                 "before anyone adds into it, and no block flushes or exits while another may still be writing into "
                 "its shared memory. The zeroing and the flush cost a cluster 65536 bins whatever its share of the "
                 "input, so clusters are only launched for every 2^18 elements, and at small n the global atomics "
                 "still win. Counts are integers, so every order of the additions gives the same histogram, "
                 "checked bit for bit. Needs sm_90; the pair is skipped on older GPUs.")
        .axis("n", {1 << 20, 1 << 26, 1 << 28})
        .work([](const size_point& z) {
          // The values read once, the histogram written once.
          return gpubench::work{.bytes = 4.0 * double(z["n"]) + 4.0 * kBins, .items = double(z["n"]),
                                .item_name = "element"};
        })
        .variant("global_atomics", "memset, then one atomicAdd on the global histogram per element", global_atomics)
        .variant("cluster_dsmem", "memset, then clusters of 4 blocks count in DSMEM slices and flush once",
                 cluster_dsmem)
        .check(gpubench::tolerance::exact());  // integer counts: any order gives the same bits

}  // namespace
