// Sum of a large float array: one atomic per element vs block and warp reductions vs CUB.
#include <algorithm>

#include <cub/device/device_reduce.cuh>

#include "gpubench/cuda.hpp"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Inputs are multiples of 2^-8 in [-1, 1]: every partial sum of n of them is an integer multiple
// of 2^-8 of magnitude <= n, exactly representable in double while n <= 2^45. Accumulated in
// double, every summation order gives the same bits, so the variants compare exactly.
__global__ void quantize(float* data, std::size_t n) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (i < n) data[i] = rintf(data[i] * 256.f) * (1.f / 256.f);  // powers of two: both products exact
}

__global__ void atomic_per_element_kernel(const float* __restrict__ in, std::size_t n, double* acc) {
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  if (i < n) atomicAdd(acc, double(in[i]));
}

// One element per thread, summed in shared memory by halving the active threads each step
// (sequential addressing: active threads stay contiguous, no divergent warps until the last five
// steps), a barrier per step, then one atomic per block.
__global__ void block_tree_kernel(const float* __restrict__ in, std::size_t n, double* acc) {
  __shared__ double partial[kThreads];
  const std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  partial[threadIdx.x] = i < n ? double(in[i]) : 0.0;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(acc, partial[0]);
}

__device__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;  // complete in lane 0
}

__device__ double sum4(float4 v) { return (double(v.x) + double(v.y)) + (double(v.z) + double(v.w)); }

// A grid that just fills the GPU; each thread strides over the array in 16-byte loads, four
// independent loads per iteration so enough bytes are in flight to cover DRAM latency. The block's
// partial sums meet in registers through shuffles; shared memory only carries one value per warp.
__global__ void __launch_bounds__(kThreads)
    warp_shuffle_kernel(const float4* __restrict__ in4, std::size_t n4, const float* __restrict__ tail,
                        int tail_count, double* acc) {
  const std::size_t stride = gridDim.x * std::size_t(kThreads);
  std::size_t i = blockIdx.x * std::size_t(kThreads) + threadIdx.x;
  double sum = 0;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 a = in4[i], b = in4[i + stride], c = in4[i + 2 * stride], d = in4[i + 3 * stride];
    sum += (sum4(a) + sum4(b)) + (sum4(c) + sum4(d));
  }
  for (; i < n4; i += stride) sum += sum4(in4[i]);
  if (blockIdx.x == 0 && int(threadIdx.x) < tail_count) sum += double(tail[threadIdx.x]);  // n % 4 leftovers

  __shared__ double warp_sums[kWarps];
  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0);
    if (lane == 0) atomicAdd(acc, sum);
  }
}

unsigned blocks_for(std::size_t threads) { return unsigned((threads + kThreads - 1) / kThreads); }

struct reduction_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> input;  // cudaMalloc: 256-byte aligned, so float4 loads are legal
  gpubench::device_buffer<double> sum;
  gpubench::device_buffer<unsigned char> cub_temp;
  unsigned shuffle_blocks = 0;

  reduction_state(const size_point& z, const gpubench::setup_context& ctx)
      : n(std::size_t(z["n"])), input(n), sum(1) {
    gpubench::fill_uniform(input.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    quantize<<<blocks_for(n), kThreads, 0, ctx.stream>>>(input.get(), n);
    GPUBENCH_CHECK_LAUNCH();
    // CUB's scratch is sized and allocated here: the variant times the reduction, not a cudaMalloc.
    std::size_t temp_bytes = 0;
    GPUBENCH_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, input.get(), sum.get(), n, ctx.stream));
    cub_temp = gpubench::device_buffer<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
    // Enough resident blocks to fill every SM, no more (fewer for small n: no idle blocks).
    int device = 0, sms = 0, per_sm = 0;
    GPUBENCH_CUDA(cudaGetDevice(&device));
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPUBENCH_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, warp_shuffle_kernel, kThreads, 0));
    shuffle_blocks = std::max(1u, std::min(unsigned(sms * per_sm), blocks_for(n / 4)));
  }

  gpubench::output_view output(std::string_view) const override {
    return {sum.get(), 1, gpubench::element_type::f64};
  }
  // The atomic variants add into the result, so resetting it is part of their work.
  void reset(gpubench::stream_t stream) const { GPUBENCH_CUDA(cudaMemsetAsync(sum.get(), 0, sizeof(double), stream)); }
};

void atomic_per_element(reduction_state& s, gpubench::stream_t stream) {
  s.reset(stream);
  atomic_per_element_kernel<<<blocks_for(s.n), kThreads, 0, stream>>>(s.input.get(), s.n, s.sum.get());
  GPUBENCH_CHECK_LAUNCH();
}

void block_tree(reduction_state& s, gpubench::stream_t stream) {
  s.reset(stream);
  block_tree_kernel<<<blocks_for(s.n), kThreads, 0, stream>>>(s.input.get(), s.n, s.sum.get());
  GPUBENCH_CHECK_LAUNCH();
}

void warp_shuffle(reduction_state& s, gpubench::stream_t stream) {
  s.reset(stream);
  const std::size_t n4 = s.n / 4;
  warp_shuffle_kernel<<<s.shuffle_blocks, kThreads, 0, stream>>>(reinterpret_cast<const float4*>(s.input.get()), n4,
                                                                 s.input.get() + 4 * n4, int(s.n - 4 * n4), s.sum.get());
  GPUBENCH_CHECK_LAUNCH();
}

// With a double output CUB accumulates in double (CCCL 3.0, CUDA 13): DeviceReduce::Sum
// (cub/device/device_reduce.cuh) sets InitT = OutputT = the value type of d_out = double;
// DispatchReduce (cub/device/dispatch/dispatch_reduce.cuh) takes AccumT =
// ::cuda::std::__accumulator_t<plus<>, float, double>, which cuda/std/__functional/invoke.h
// defines as decay_t<invoke_result_t<plus<>, double, float>> = double; and AgentReduce
// (cub/agent/agent_reduce.cuh) converts every loaded float to AccumT before adding. Sum writes
// its result rather than adding to it, so no reset is needed.
void cub_sum(reduction_state& s, gpubench::stream_t stream) {
  std::size_t temp_bytes = s.cub_temp.size();
  GPUBENCH_CUDA(cub::DeviceReduce::Sum(s.cub_temp.get(), temp_bytes, s.input.get(), s.sum.get(), s.n, stream));
}

const gpubench::registration reg =
    gpubench::pair<reduction_state>("reduction",
                                    "Sum of a float array: per-element atomics vs block, warp and CUB reductions")
        .explain("Summing an array only has to read it once, so DRAM bandwidth is the floor; what differs is how "
                 "the partial sums are combined. The baseline has every thread atomically add its element to one "
                 "accumulator: all those read-modify-writes hit one address, which the L2 slice owning it "
                 "performs one after another, so the sum runs at one address's atomic rate instead of at DRAM "
                 "speed. block_tree first sums each block's elements in shared memory (half the threads add "
                 "pairs, then a quarter, ..., with a barrier per step) and issues one atomic per block, 256 "
                 "times fewer. warp_shuffle launches just enough blocks to fill the GPU and has each thread sum "
                 "many elements read as 16-byte vectors with several loads in flight, keeping the running sum in "
                 "a register; a warp then combines its 32 sums register to register with __shfl_down_sync (no "
                 "shared memory, no barrier), leaving one atomic per resident block. cub::DeviceReduce::Sum is "
                 "the library reference. Inputs are multiples of 2^-8 in [-1, 1] and every variant accumulates "
                 "in double, so every partial sum is exact and all summation orders give the same bits.")
        .axis("n", {1 << 20, 1 << 28})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          // Read every float once, write one double. The n additions are done in double (that is
          // what makes the result exact), hence fp64; either way they are far below the DRAM floor.
          return gpubench::work{.bytes = 4 * n + 8, .flops = n, .flops_kind = gpubench::flop_kind::fp64};
        })
        .variant("atomic_per_element", "every thread atomicAdds its element to one double", atomic_per_element)
        .variant("block_tree", "shared-memory tree per 256-thread block, one atomic per block", block_tree)
        .variant("warp_shuffle", "GPU-filling grid, float4 loads, __shfl_down_sync, one atomic per block", warp_shuffle)
        .variant("cub", "cub::DeviceReduce::Sum with a double output", cub_sum)
        .check(gpubench::tolerance::exact());

}  // namespace
