// 40 small GEMMs: one cuBLAS launch per matrix vs one batched launch.
#include <vector>

#include "gpubench/cublas.hpp"

namespace {

using gpubench::size_point;

struct batched_gemm_state : gpubench::pair_state {
  int batch, m, n, k;
  gpubench::cublas_handle blas;
  gpubench::device_buffer<float> a, b, c;          // column-major, matrices back to back
  gpubench::device_buffer<const float*> a_ptrs, b_ptrs;
  gpubench::device_buffer<float*> c_ptrs;

  batched_gemm_state(const size_point& z, const gpubench::setup_context& ctx)
      : batch(int(z["batch"])), m(int(z["m"])), n(int(z["n"])), k(int(z["k"])), blas(ctx.stream),
        a(std::size_t(batch) * m * k), b(std::size_t(batch) * k * n), c(std::size_t(batch) * m * n),
        a_ptrs(batch), b_ptrs(batch), c_ptrs(batch) {
    gpubench::fill_uniform(a.get(), a.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(b.get(), b.size(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    // The pointer-array variant's arrays are built once here, as an application would keep them.
    std::vector<const float*> ha(batch), hb(batch);
    std::vector<float*> hc(batch);
    for (int i = 0; i < batch; ++i) {
      ha[i] = a.get() + std::size_t(i) * m * k;
      hb[i] = b.get() + std::size_t(i) * k * n;
      hc[i] = c.get() + std::size_t(i) * m * n;
    }
    GPUBENCH_CUDA(cudaMemcpy(a_ptrs.get(), ha.data(), a_ptrs.bytes(), cudaMemcpyHostToDevice));
    GPUBENCH_CUDA(cudaMemcpy(b_ptrs.get(), hb.data(), b_ptrs.bytes(), cudaMemcpyHostToDevice));
    GPUBENCH_CUDA(cudaMemcpy(c_ptrs.get(), hc.data(), c_ptrs.bytes(), cudaMemcpyHostToDevice));
  }

  gpubench::output_view output(std::string_view) const override { return {c.get(), c.size()}; }
};

constexpr float kOne = 1.f, kZero = 0.f;

void individual(batched_gemm_state& s, gpubench::stream_t) {
  for (int i = 0; i < s.batch; ++i)
    GPUBENCH_CUBLAS(cublasSgemm(s.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &kOne,
                                s.a.get() + std::size_t(i) * s.m * s.k, s.m, s.b.get() + std::size_t(i) * s.k * s.n, s.k,
                                &kZero, s.c.get() + std::size_t(i) * s.m * s.n, s.m));
}

void pointer_array(batched_gemm_state& s, gpubench::stream_t) {
  GPUBENCH_CUBLAS(cublasSgemmBatched(s.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &kOne, s.a_ptrs.get(), s.m,
                                     s.b_ptrs.get(), s.k, &kZero, s.c_ptrs.get(), s.m, s.batch));
}

void strided(batched_gemm_state& s, gpubench::stream_t) {
  GPUBENCH_CUBLAS(cublasSgemmStridedBatched(s.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &kOne, s.a.get(), s.m,
                                            static_cast<long long>(s.m) * s.k, s.b.get(), s.k,
                                            static_cast<long long>(s.k) * s.n, &kZero, s.c.get(), s.m,
                                            static_cast<long long>(s.m) * s.n, s.batch));
}

const gpubench::registration reg =
    gpubench::pair<batched_gemm_state>("batched_gemm", "40 small FP32 GEMMs: one launch each vs one batched launch")
        .explain(
            "Forty 32x256x256 GEMMs are each far too small to fill an H100: one cublasSgemm per matrix pays a "
            "launch (a few microseconds of CPU and GPU front-end time) for a few microseconds of work, and "
            "each kernel occupies a handful of SMs. cublasSgemmStridedBatched does the same forty products "
            "in one launch whose grid covers every matrix at once, so the launch cost is paid once and the "
            "whole GPU works in parallel. The pointer-array form (cublasSgemmBatched) is the same idea for "
            "matrices that are not evenly spaced in memory. The larger size shows the gap closing once each "
            "GEMM has enough work of its own. Timed on the host, call to completion, as an application waits for it.")
        .axis("batch", {40})
        .axis("m", {32, 8192})
        .axis("n", {256})
        .axis("k", {256})
        .work([](const size_point& z) {
          const double batch = double(z["batch"]), m = double(z["m"]), n = double(z["n"]), k = double(z["k"]);
          // Read A and B once, write C once (beta = 0, so C is never read).
          return gpubench::work{.bytes = 4 * batch * (m * k + k * n + m * n), .flops = 2 * batch * m * n * k,
                                .items = batch, .item_name = "GEMM"};
        })
        .variant("baseline", "one cublasSgemm per matrix (40 launches)", individual)
        .variant("pointer_array", "cublasSgemmBatched over device arrays of pointers", pointer_array)
        .variant("optimized", "cublasSgemmStridedBatched: one launch for all matrices", strided)
        // Different cuBLAS kernels may sum K=256 products in a different order: FP32 rounding only.
        .check(gpubench::tolerance::relative(1e-5))
        // The baseline is a launch loop: its cost is largely the host's cuBLAS calls, which CUDA
        // events on an idle stream only partly see and which drift between runs with the host's
        // speed. Timed on the host, compare knows to treat it as host-bound.
        .timing(gpubench::timing_method::host_wall);

}  // namespace
