// A small MLP trained for a few steps on batches that arrive in host memory: the loop chapter 1's
// microbenchmarks come from. Per-step allocations and pageable synchronous copies vs buffers
// allocated once, vs pinned staging with the next batch's copy overlapping the current step, vs
// the whole step replayed as a CUDA graph.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "gpubench/cublas.hpp"

namespace {

using gpubench::size_point;

// 256 -> 1024 -> 1024 -> 10, ReLU between, softmax cross-entropy, plain SGD.
constexpr int kIn = 256, kHidden = 1024, kClasses = 10;
constexpr float kLearningRate = 0.05f;
constexpr std::size_t kW1 = std::size_t(kIn) * kHidden, kW2 = std::size_t(kHidden) * kHidden,
                      kW3 = std::size_t(kHidden) * kClasses;
// Parameters (and their gradients) live in one buffer, so one SGD kernel updates them all and the
// variant's output is that buffer: every weight after the last step.
constexpr std::size_t kB1 = kW1, kW2At = kB1 + kHidden, kB2 = kW2At + kW2, kW3At = kB2 + kHidden, kB3 = kW3At + kW3,
                      kParams = kB3 + kClasses;

constexpr unsigned kThreads = 256;
unsigned blocks_for(std::size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

__global__ void bias_relu(float* h, const float* b, int rows, int cols) {
  const std::size_t n = std::size_t(rows) * cols;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    h[i] = fmaxf(h[i] + b[i % cols], 0.f);
}

__global__ void add_bias(float* z, const float* b, int rows, int cols) {
  const std::size_t n = std::size_t(rows) * cols;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    z[i] += b[i % cols];
}

// One row per thread: dz = (softmax(z) - onehot(y)) / batch, the gradient of the mean loss.
__global__ void softmax_xent_grad(const float* z, const int* y, float* dz, int rows, float inv_batch) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* zr = z + std::size_t(r) * kClasses;
  float m = zr[0];
  for (int c = 1; c < kClasses; ++c) m = fmaxf(m, zr[c]);
  float sum = 0.f;
  for (int c = 0; c < kClasses; ++c) sum += __expf(zr[c] - m);
  for (int c = 0; c < kClasses; ++c)
    dz[std::size_t(r) * kClasses + c] = (__expf(zr[c] - m) / sum - (c == y[r] ? 1.f : 0.f)) * inv_batch;
}

__global__ void relu_backward(float* dh, const float* h, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    if (!(h[i] > 0.f)) dh[i] = 0.f;
}

// One column per thread, rows summed in order: deterministic, so every variant agrees bit for bit.
__global__ void column_sum(const float* d, float* out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float s = 0.f;
  for (int r = 0; r < rows; ++r) s += d[std::size_t(r) * cols + c];
  out[c] = s;
}

__global__ void sgd(float* p, const float* g, float lr, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] -= lr * g[i];
}

// Row-major C[m x n] = op(A) op(B) through column-major cuBLAS: C^T = op(B)^T op(A)^T, so the
// operands swap and the transposes stay; lda/ldb/ldc are the row-major row lengths.
void gemm(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b, int ldb,
          float* c, int ldc) {
  const float one = 1.f, zero = 0.f;
  GPUBENCH_CUBLAS(cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one, b, ldb, a,
                              lda, &zero, c, ldc));
}

/// Activations and gradients of one step.
struct step_buffers {
  float *h1, *h2, *z, *dz, *dh2, *dh1, *grads;
};

struct training_state : gpubench::pair_state {
  int batch, steps;
  gpubench::cuda_stream copy_stream;  // the next batch's copy, beside the step (pinned_async, graph)
  gpubench::cublas_handle blas;
  gpubench::device_buffer<unsigned char> workspace;  // cuBLAS's, fixed: the same algorithms eager and in a graph
  gpubench::device_buffer<float> params, params0, h1, h2, z, dz, dh2, dh1, grads;
  gpubench::device_buffer<float> x_slot[2];
  gpubench::device_buffer<int> y_slot[2];
  std::vector<float> x_pageable;  // every step's batch, as a data loader leaves it in ordinary memory
  std::vector<int> y_pageable;
  gpubench::pinned_buffer<float> x_pinned;  // the same batches in page-locked staging memory
  gpubench::pinned_buffer<int> y_pinned;
  // Ordering only, recorded inside the timed steps: no timestamps.
  gpubench::cuda_event copied[2]{gpubench::cuda_event(cudaEventDisableTiming), gpubench::cuda_event(cudaEventDisableTiming)};
  gpubench::cuda_event consumed[2]{gpubench::cuda_event(cudaEventDisableTiming), gpubench::cuda_event(cudaEventDisableTiming)};
  std::unique_ptr<gpubench::cuda_graph> graph[2];  // one captured step per input slot

  training_state(const size_point& zp, const gpubench::setup_context& ctx)
      : batch(int(zp["batch"])),
        steps(int(zp["steps"])),
        blas(ctx.stream),
        workspace(std::size_t(32) << 20),
        params(kParams),
        params0(kParams),
        h1(std::size_t(batch) * kHidden),
        h2(std::size_t(batch) * kHidden),
        z(std::size_t(batch) * kClasses),
        dz(std::size_t(batch) * kClasses),
        dh2(std::size_t(batch) * kHidden),
        dh1(std::size_t(batch) * kHidden),
        grads(kParams),
        x_slot{gpubench::device_buffer<float>(std::size_t(batch) * kIn), gpubench::device_buffer<float>(std::size_t(batch) * kIn)},
        y_slot{gpubench::device_buffer<int>(std::size_t(batch)), gpubench::device_buffer<int>(std::size_t(batch))},
        x_pageable(std::size_t(steps) * batch * kIn),
        y_pageable(std::size_t(steps) * batch),
        x_pinned(x_pageable.size()),
        y_pinned(y_pageable.size()) {
    GPUBENCH_CUBLAS(cublasSetWorkspace(blas.get(), workspace.get(), workspace.bytes()));
    // Weights uniform in +-1/sqrt(fan_in), biases zero; the batches from the size's seed.
    const auto init = [&](std::size_t at, std::size_t n, int fan_in, std::uint64_t salt) {
      const float a = 1.f / std::sqrt(float(fan_in));
      gpubench::fill_uniform(params0.get() + at, n, gpubench::derive_seed(ctx.seed, salt), -a, a, ctx.stream);
    };
    GPUBENCH_CUDA(cudaMemsetAsync(params0.get(), 0, params0.bytes(), ctx.stream));
    init(0, kW1, kIn, 1);
    init(kW2At, kW2, kHidden, 2);
    init(kW3At, kW3, kHidden, 3);
    std::mt19937_64 rng(gpubench::derive_seed(ctx.seed, 4));
    std::uniform_real_distribution<float> xs(-1.f, 1.f);
    std::uniform_int_distribution<int> ys(0, kClasses - 1);
    for (float& v : x_pageable) v = xs(rng);
    for (int& v : y_pageable) v = ys(rng);
    std::copy(x_pageable.begin(), x_pageable.end(), x_pinned.get());
    std::copy(y_pageable.begin(), y_pageable.end(), y_pinned.get());
    // One eager step first: cuBLAS sets itself up on first use, which a stream capture forbids.
    // Its result is discarded (every sample starts from params0).
    for (int s = 0; s < 2; ++s) {
      GPUBENCH_CUDA(cudaMemsetAsync(x_slot[s].get(), 0, x_bytes(), ctx.stream));
      GPUBENCH_CUDA(cudaMemsetAsync(y_slot[s].get(), 0, y_bytes(), ctx.stream));
    }
    reset(ctx.stream);
    step(ctx.stream, x_slot[0].get(), y_slot[0].get(), preallocated());
    GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));
    // The graph variant's two steps, captured once (outside any timing), one per input slot.
    for (int s = 0; s < 2; ++s)
      graph[s] = std::make_unique<gpubench::cuda_graph>(
          ctx.stream, [&] { step(ctx.stream, x_slot[s].get(), y_slot[s].get(), preallocated()); });
  }

  step_buffers preallocated() const {
    return {h1.get(), h2.get(), z.get(), dz.get(), dh2.get(), dh1.get(), grads.get()};
  }

  // Forward, backward and the SGD update of one step on the batch (x, y) already on the device.
  void step(gpubench::stream_t st, const float* x, const int* y, const step_buffers& b) const {
    const cublasHandle_t h = blas.get();
    float* p = params.get();
    float* g = b.grads;
    const int n = batch;
    gemm(h, false, false, n, kHidden, kIn, x, kIn, p, kHidden, b.h1, kHidden);
    bias_relu<<<blocks_for(std::size_t(n) * kHidden), kThreads, 0, st>>>(b.h1, p + kB1, n, kHidden);
    gemm(h, false, false, n, kHidden, kHidden, b.h1, kHidden, p + kW2At, kHidden, b.h2, kHidden);
    bias_relu<<<blocks_for(std::size_t(n) * kHidden), kThreads, 0, st>>>(b.h2, p + kB2, n, kHidden);
    gemm(h, false, false, n, kClasses, kHidden, b.h2, kHidden, p + kW3At, kClasses, b.z, kClasses);
    add_bias<<<blocks_for(std::size_t(n) * kClasses), kThreads, 0, st>>>(b.z, p + kB3, n, kClasses);
    softmax_xent_grad<<<blocks_for(std::size_t(n)), kThreads, 0, st>>>(b.z, y, b.dz, n, 1.f / float(n));
    // Layer 3: dW3 = h2^T dz, db3 = sum(dz), dh2 = dz W3^T masked by ReLU.
    gemm(h, true, false, kHidden, kClasses, n, b.h2, kHidden, b.dz, kClasses, g + kW3At, kClasses);
    column_sum<<<blocks_for(kClasses), kThreads, 0, st>>>(b.dz, g + kB3, n, kClasses);
    gemm(h, false, true, n, kHidden, kClasses, b.dz, kClasses, p + kW3At, kClasses, b.dh2, kHidden);
    relu_backward<<<blocks_for(std::size_t(n) * kHidden), kThreads, 0, st>>>(b.dh2, b.h2, std::size_t(n) * kHidden);
    // Layer 2.
    gemm(h, true, false, kHidden, kHidden, n, b.h1, kHidden, b.dh2, kHidden, g + kW2At, kHidden);
    column_sum<<<blocks_for(kHidden), kThreads, 0, st>>>(b.dh2, g + kB2, n, kHidden);
    gemm(h, false, true, n, kHidden, kHidden, b.dh2, kHidden, p + kW2At, kHidden, b.dh1, kHidden);
    relu_backward<<<blocks_for(std::size_t(n) * kHidden), kThreads, 0, st>>>(b.dh1, b.h1, std::size_t(n) * kHidden);
    // Layer 1 (no gradient for the input).
    gemm(h, true, false, kIn, kHidden, n, x, kIn, b.dh1, kHidden, g, kHidden);
    column_sum<<<blocks_for(kHidden), kThreads, 0, st>>>(b.dh1, g + kB1, n, kHidden);
    sgd<<<blocks_for(kParams), kThreads, 0, st>>>(p, g, kLearningRate, kParams);
    GPUBENCH_CHECK_LAUNCH();
  }

  // Every variant starts from the same weights: part of every sample, identical in all variants.
  void reset(gpubench::stream_t st) const {
    GPUBENCH_CUDA(cudaMemcpyAsync(params.get(), params0.get(), params.bytes(), cudaMemcpyDeviceToDevice, st));
  }

  std::size_t x_bytes() const { return std::size_t(batch) * kIn * sizeof(float); }
  std::size_t y_bytes() const { return std::size_t(batch) * sizeof(int); }
  const float* x_host(int k, bool pinned) const { return (pinned ? x_pinned.get() : x_pageable.data()) + std::size_t(k) * batch * kIn; }
  const int* y_host(int k, bool pinned) const { return (pinned ? y_pinned.get() : y_pageable.data()) + std::size_t(k) * batch; }

  gpubench::output_view output(std::string_view) const override { return {params.get(), params.size()}; }
};

// What most first training loops do: allocate the step's buffers, copy the batch from pageable
// memory and wait for it, compute, free. cudaMalloc/cudaFree synchronize the device; a pageable
// copy is staged by the driver and blocks the host.
void baseline(training_state& s, gpubench::stream_t st) {
  s.reset(st);
  const std::size_t act = std::size_t(s.batch) * kHidden * sizeof(float), logits = std::size_t(s.batch) * kClasses * sizeof(float);
  for (int k = 0; k < s.steps; ++k) {
    step_buffers b{};
    float *x = nullptr;
    int* y = nullptr;
    GPUBENCH_CUDA(cudaMalloc(&x, s.x_bytes()));
    GPUBENCH_CUDA(cudaMalloc(&y, s.y_bytes()));
    for (float** p : {&b.h1, &b.h2, &b.dh2, &b.dh1}) GPUBENCH_CUDA(cudaMalloc(p, act));
    for (float** p : {&b.z, &b.dz}) GPUBENCH_CUDA(cudaMalloc(p, logits));
    GPUBENCH_CUDA(cudaMalloc(&b.grads, kParams * sizeof(float)));
    // From pageable memory the copy is staged by the driver and the host waits for it; on the
    // step's stream, so the step sees the whole batch.
    GPUBENCH_CUDA(cudaMemcpyAsync(x, s.x_host(k, false), s.x_bytes(), cudaMemcpyHostToDevice, st));
    GPUBENCH_CUDA(cudaMemcpyAsync(y, s.y_host(k, false), s.y_bytes(), cudaMemcpyHostToDevice, st));
    s.step(st, x, y, b);
    GPUBENCH_CUDA(cudaStreamSynchronize(st));
    for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(b.h1), static_cast<void*>(b.h2),
                    static_cast<void*>(b.z), static_cast<void*>(b.dz), static_cast<void*>(b.dh2),
                    static_cast<void*>(b.dh1), static_cast<void*>(b.grads)})
      GPUBENCH_CUDA(cudaFree(p));
  }
}

// Buffers allocated once (the State's); the batch still comes from pageable memory, synchronously.
void preallocated(training_state& s, gpubench::stream_t st) {
  s.reset(st);
  for (int k = 0; k < s.steps; ++k) {
    // Stream-ordered after the previous step, which is then done with the slot.
    GPUBENCH_CUDA(cudaMemcpyAsync(s.x_slot[0].get(), s.x_host(k, false), s.x_bytes(), cudaMemcpyHostToDevice, st));
    GPUBENCH_CUDA(cudaMemcpyAsync(s.y_slot[0].get(), s.y_host(k, false), s.y_bytes(), cudaMemcpyHostToDevice, st));
    s.step(st, s.x_slot[0].get(), s.y_slot[0].get(), s.preallocated());
  }
}

// Pinned staging and two input slots: batch k+1 is copied on a second stream while step k runs.
// Events order the slots: a copy into a slot waits until the step two before has consumed it,
// and a step waits for its own batch. `enqueue_step` launches step k on its slot.
template <class Enqueue>
void pipelined(training_state& s, gpubench::stream_t st, Enqueue&& enqueue_step) {
  s.reset(st);
  const cudaStream_t cs = s.copy_stream.get();
  const auto copy_in = [&](int k) {
    const int slot = k % 2;
    GPUBENCH_CUDA(cudaMemcpyAsync(s.x_slot[slot].get(), s.x_host(k, true), s.x_bytes(), cudaMemcpyHostToDevice, cs));
    GPUBENCH_CUDA(cudaMemcpyAsync(s.y_slot[slot].get(), s.y_host(k, true), s.y_bytes(), cudaMemcpyHostToDevice, cs));
    GPUBENCH_CUDA(cudaEventRecord(s.copied[slot].get(), cs));
  };
  // The copy stream starts after whatever the engine's stream did before this sample.
  GPUBENCH_CUDA(cudaEventRecord(s.consumed[0].get(), st));
  GPUBENCH_CUDA(cudaEventRecord(s.consumed[1].get(), st));
  GPUBENCH_CUDA(cudaStreamWaitEvent(cs, s.consumed[0].get(), 0));
  copy_in(0);
  for (int k = 0; k < s.steps; ++k) {
    const int slot = k % 2;
    if (k + 1 < s.steps) {
      GPUBENCH_CUDA(cudaStreamWaitEvent(cs, s.consumed[(k + 1) % 2].get(), 0));
      copy_in(k + 1);
    }
    GPUBENCH_CUDA(cudaStreamWaitEvent(st, s.copied[slot].get(), 0));
    enqueue_step(slot);
    GPUBENCH_CUDA(cudaEventRecord(s.consumed[slot].get(), st));
  }
}

void pinned_async(training_state& s, gpubench::stream_t st) {
  pipelined(s, st, [&](int slot) { s.step(st, s.x_slot[slot].get(), s.y_slot[slot].get(), s.preallocated()); });
}

void graph(training_state& s, gpubench::stream_t st) {
  pipelined(s, st, [&](int slot) { s.graph[slot]->launch(st); });
}

const gpubench::registration reg =
    gpubench::pair<training_state>("training_step",
                                   "Training steps of a small MLP: allocations and pageable copies vs preallocated, "
                                   "pinned and overlapped, and one CUDA graph per step")
        .explain("A 256-1024-1024-10 MLP trained with softmax cross-entropy and SGD on batches that arrive in host "
                 "memory, the same steps on the same data in every variant. The baseline is how first training "
                 "loops are written: each step allocates its activations and gradients (cudaMalloc and cudaFree "
                 "synchronize the whole device), copies the batch from pageable memory (staged by the driver, the "
                 "host blocked) and launches ~20 kernels one by one. Allocating once removes the synchronizing "
                 "allocator calls. Pinned staging lets the copy run as DMA on a second stream, so batch k+1 moves "
                 "while step k computes. Capturing the step as a CUDA graph replaces ~20 launches by one. At small "
                 "batches the GPU work per step is tens of microseconds, so the host-side overheads are most of the "
                 "step; the batch axis shows them fade as the GEMMs grow. Goodput (the GPU's kernel time over the "
                 "step's wall time) says how much of the step the GPU spends computing. Timed on the host, first "
                 "copy to last update, as a training loop waits for it.")
        .axis("batch", {32, 128, 512})
        .axis("steps", {16})
        .work([](const size_point& zp) {
          const double b = double(zp["batch"]), steps = double(zp["steps"]);
          // GEMM FLOPs of one step: forward x·W1, h1·W2, h2·W3; backward dW for all three layers and
          // the input gradients of layers 2 and 3 (layer 1 has none). Elementwise work is not counted.
          const double per_step = 2 * b * (2.0 * kIn * kHidden + 3.0 * kHidden * kHidden + 3.0 * kHidden * kClasses);
          return gpubench::work{.bytes = steps * b * (kIn * 4.0 + 4.0), .flops = steps * per_step,
                                .path = gpubench::bytes_path::pcie, .items = steps * b, .item_name = "sample"};
        })
        .variant("baseline", "per-step cudaMalloc/cudaFree, pageable cudaMemcpy, eager launches", baseline)
        .variant("preallocated", "buffers allocated once; pageable cudaMemcpy, eager launches", preallocated)
        .variant("pinned_async", "plus pinned staging, batch k+1 copied on a second stream during step k", pinned_async)
        .variant("graph", "plus each step replayed as one captured CUDA graph", graph)
        // The same kernels in the same order on the same data: the weights agree bit for bit unless
        // cuBLAS picks another algorithm inside a graph capture. One missing or repeated SGD step moves
        // them by ~1e-3 relative, so 1e-5 still catches any step done differently.
        .check(gpubench::tolerance::relative(1e-5))
        .timing(gpubench::timing_method::host_wall)
        .goodput();

}  // namespace
