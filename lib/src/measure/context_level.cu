// The context's graph-replay level; see gpubench/context_level.hpp.
#include <algorithm>
#include <chrono>
#include <vector>

#include "gpubench/context_level.hpp"
#include "gpubench/cuda.hpp"

namespace gpubench {

namespace {

constexpr int kThreads = 256;
constexpr int kWarmReplays = 5;
constexpr int kTimedReplays = 31;

// The shape of a launch-bound step: one block, one multiply-add per thread, each kernel reading
// the one before it, so the replay is a chain the front end walks node by node.
__global__ void level_step(const float* __restrict__ in, float* __restrict__ out, float b) {
  out[threadIdx.x] = 0.75f * in[threadIdx.x] + b;
}

}  // namespace

double context_graph_level_s(int device) {
  GPUBENCH_CUDA(cudaSetDevice(device));
  GPUBENCH_CUDA(cudaFree(nullptr));  // the context, if this process has not made it yet
  cuda_stream stream;
  device_buffer<float> ping(kThreads), pong(kThreads);
  GPUBENCH_CUDA(cudaMemsetAsync(ping.get(), 0, ping.bytes(), stream.get()));
  const cuda_graph graph(stream.get(), [&] {
    for (int k = 0; k < kContextLevelKernels; ++k) {
      const float* in = k % 2 == 0 ? ping.get() : pong.get();
      float* out = k % 2 == 0 ? pong.get() : ping.get();
      level_step<<<1, kThreads, 0, stream.get()>>>(in, out, 0.01f * static_cast<float>(k % 13));
      GPUBENCH_CHECK_LAUNCH();
    }
  });
  for (int i = 0; i < kWarmReplays; ++i) graph.launch(stream.get());
  GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
  std::vector<double> t;
  t.reserve(kTimedReplays);
  for (int i = 0; i < kTimedReplays; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    graph.launch(stream.get());
    GPUBENCH_CUDA(cudaStreamSynchronize(stream.get()));
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + kTimedReplays / 2, t.end());
  return t[kTimedReplays / 2];
}

}  // namespace gpubench
