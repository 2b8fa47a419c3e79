// A chain of short kernels: launched one by one on a stream vs captured once and replayed as a graph.
#include "gpubench/cuda.hpp"

namespace {

using gpubench::size_point;

constexpr int kThreads = 256;  // one block: each kernel is as short as a kernel gets

// x_out = a * x_in + b_step. b differs per step, so the result depends on every kernel having
// run, in order, exactly once.
__global__ void step(const float* __restrict__ in, float* __restrict__ out, float b) {
  out[threadIdx.x] = 0.75f * in[threadIdx.x] + b;
}

float step_offset(int k) { return 0.01f * static_cast<float>(k % 13); }

struct chain_state : gpubench::pair_state {
  int kernels;
  gpubench::device_buffer<float> input, ping, pong;
  // Declared after the buffers it launches on: the very same launch sequence, captured once.
  gpubench::cuda_graph graph;

  chain_state(const size_point& z, const gpubench::setup_context& ctx)
      : kernels(int(z["kernels"])),
        input(random_input(ctx)),
        ping(kThreads),
        pong(kThreads),
        graph(ctx.stream, [&] { launch_chain(ctx.stream); }) {}

  // Filled before the capture starts: inside it, the fill would become a node of the graph.
  static gpubench::device_buffer<float> random_input(const gpubench::setup_context& ctx) {
    gpubench::device_buffer<float> b(kThreads);
    gpubench::fill_uniform(b.get(), b.size(), ctx.seed, -1.f, 1.f, ctx.stream);
    return b;
  }

  // Kernel 0 reads the pristine input, then ping/pong alternate: no reset needed between runs.
  void launch_chain(gpubench::stream_t stream) const {
    for (int k = 0; k < kernels; ++k) {
      const float* in = k == 0 ? input.get() : (k % 2 == 1 ? ping.get() : pong.get());
      float* out = k % 2 == 0 ? ping.get() : pong.get();
      step<<<1, kThreads, 0, stream>>>(in, out, step_offset(k));
      GPUBENCH_CHECK_LAUNCH();
    }
  }
  [[nodiscard]] float* result() const { return (kernels - 1) % 2 == 0 ? ping.get() : pong.get(); }

  gpubench::output_view output(std::string_view) const override { return {result(), std::size_t(kThreads)}; }
};

const gpubench::registration reg =
    gpubench::pair<chain_state>("cuda_graphs", "A chain of tiny kernels: stream launches vs one CUDA graph replay")
        .explain("Each kernel here does almost nothing (256 fused multiply-adds), so the cost is the launch: the "
                 "CPU-side cudaLaunchKernel call and the GPU front end scheduling one grid after another. "
                 "Capturing the chain once into a CUDA graph and replaying it with one cudaGraphLaunch hands the "
                 "whole dependency chain to the GPU at once; the driver's per-launch CPU work disappears and the "
                 "front end moves from one node to the next without waiting for the host. Timed on the host "
                 "(enqueue to completion), because the host's launch cost is the point; the per-kernel cost is "
                 "the time over the chain length.")
        .axis("kernels", {100, 1000})
        .work([](const size_point& z) {
          const double k = double(z["kernels"]);
          // The chain must read its input once and write its output once; every step is one FMA per element.
          return gpubench::work{.bytes = 2.0 * kThreads * 4, .flops = 2.0 * kThreads * k, .items = k, .item_name = "kernel"};
        })
        .variant("baseline", "one cudaLaunchKernel per kernel on a stream",
                 [](chain_state& s, gpubench::stream_t stream) { s.launch_chain(stream); })
        .variant("optimized", "cudaGraphLaunch of the captured chain",
                 [](chain_state& s, gpubench::stream_t stream) { s.graph.launch(stream); })
        .check(gpubench::tolerance::exact())
        .timing(gpubench::timing_method::host_wall);

}  // namespace
