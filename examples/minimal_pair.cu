// A minimal, complete pair: z = 2x + y as two kernels (scale, then add) vs one fused kernel.
//
// Put a file like this one in a chapter's folder, chapters/chNN_topic/, and it is part of gpubench:
// the folder gives its chapter, so nothing else needs an edit (lib/include/gpubench/registry.hpp
// describes the declaration). This one is built only into the tests' gpubench_example, as chapter
// 99 (tests/CMakeLists.txt): try `build/tests/gpubench_example run --chapter 99`.
#include "gpubench/cuda.hpp"

namespace {

constexpr int kThreads = 256;

__global__ void scale(const float* x, float* z, std::size_t n) {  // z = 2x
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 2.0f * x[i];
}

__global__ void add(const float* y, float* z, std::size_t n) {  // z += y
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] += y[i];
}

__global__ void scale_add(const float* x, const float* y, float* z, std::size_t n) {  // z = 2x + y
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = 2.0f * x[i] + y[i];
}

// One size's inputs and output: fresh random x and y, and z, which the engine poisons before each
// variant runs and compares with the baseline's after.
struct scale_add_state : gpubench::pair_state {
  std::size_t n;
  gpubench::device_buffer<float> x, y, z;

  scale_add_state(const gpubench::size_point& size, const gpubench::setup_context& ctx)
      : n(std::size_t(size["n"])), x(n), y(n), z(n) {
    gpubench::fill_uniform(x.get(), n, gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(y.get(), n, gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
  }

  gpubench::output_view output(std::string_view) const override { return {z.get(), n}; }
};

unsigned blocks(std::size_t n) { return unsigned((n + kThreads - 1) / kThreads); }

void two_kernels(scale_add_state& s, gpubench::stream_t stream) {
  scale<<<blocks(s.n), kThreads, 0, stream>>>(s.x.get(), s.z.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
  add<<<blocks(s.n), kThreads, 0, stream>>>(s.y.get(), s.z.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

void fused(scale_add_state& s, gpubench::stream_t stream) {
  scale_add<<<blocks(s.n), kThreads, 0, stream>>>(s.x.get(), s.y.get(), s.z.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<scale_add_state>("scale_add", "z = 2x + y: scale, then add, vs one fused kernel")
        .explain("Both variants do the same arithmetic, far too little of it to matter: the time goes to "
                 "moving bytes. Two kernels pass z through DRAM three times (the scale writes it, the add "
                 "reads and writes it again) besides reading x and y: 20 bytes per element. The fused kernel "
                 "keeps 2x in a register and writes z once: 12 bytes per element, the minimum the work model "
                 "declares.")
        .axis("n", {1 << 20, 1 << 26})
        .work([](const gpubench::size_point& size) {
          const double n = double(size["n"]);
          // x and y read once, z written once; one multiply and one add per element.
          return gpubench::work{.bytes = 12.0 * n, .flops = 2.0 * n};
        })
        .variant("baseline", "two kernels: z = 2x, then z += y", two_kernels)
        .variant("fused", "one kernel: z = 2x + y", fused)
        .check(gpubench::tolerance::exact());  // 2x is exact, so both round 2x + y once

}  // namespace
