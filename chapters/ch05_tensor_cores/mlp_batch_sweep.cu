// One MLP layer (4096 -> 16384) at batch 32 ... 1024: FP32 on the SIMT cores vs BF16 on the
// tensor cores. Achieved TFLOP/s per batch shows where each saturates.
#include "gemm_helpers.cuh"

namespace {

using gpubench::size_point;

struct mlp_state : gpubench::pair_state {
  int batch, in, out;
  gpubench::cublas_handle blas;
  // Row-major as a framework keeps them: column-major x^T (in x batch), W^T (in x out), y^T (out x batch).
  gpubench::device_buffer<float> x, w, y;
  gpubench::device_buffer<__nv_bfloat16> x16, w16;  // the BF16 model: weights stored once in BF16

  mlp_state(const size_point& z, const gpubench::setup_context& ctx)
      : batch(int(z["batch"])), in(int(z["in"])), out(int(z["out"])), blas(ctx.stream), x(std::size_t(batch) * in),
        w(std::size_t(in) * out), y(std::size_t(out) * batch), x16(x.size()), w16(w.size()) {
    gpubench::fill_uniform(x.get(), x.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(w.get(), w.size(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    gpubench::convert_from_float(x.get(), x16.get(), x.size(), ctx.stream);
    gpubench::convert_from_float(w.get(), w16.get(), w.size(), ctx.stream);
  }

  gpubench::output_view output(std::string_view) const override { return {y.get(), y.size()}; }

  // y^T = W x^T: the "TN" GEMM, m = out, n = batch, k = in; FP32 y either way.
  void gemm(const void* pw, const void* px, cudaDataType_t type, cublasComputeType_t compute) {
    const float one = 1.f, zero = 0.f;
    GPUBENCH_CUBLAS(cublasGemmEx(blas.get(), CUBLAS_OP_T, CUBLAS_OP_N, out, batch, in, &one, pw, type, in, px, type, in,
                                 &zero, y.get(), CUDA_R_32F, out, compute, CUBLAS_GEMM_DEFAULT));
  }
};

const gpubench::registration reg =
    gpubench::pair<mlp_state>("mlp_batch_sweep", "One MLP layer, batch 32 to 1024: FP32 SIMT vs BF16 tensor cores")
        .explain("A layer's weights are read once per call whatever the batch, and each weight does one FMA per "
                 "row of the batch, so the arithmetic per weight byte grows with the batch. At small batch the "
                 "GEMM is a weight-streaming problem: time is the weight bytes over memory bandwidth and the math "
                 "units idle. As the batch grows the same bytes feed more FLOPs until the math units become the "
                 "limit and achieved TFLOP/s flattens. The faster the units, the later that happens: the SIMT FP32 "
                 "path saturates at a small batch, while BF16 tensor cores, with half the weight bytes and many "
                 "times the FLOP rate, need a much larger batch before they are the bottleneck. That is why "
                 "inference servers batch requests, and why small-batch decoding gains from smaller weights "
                 "rather than from faster math.")
        .axis("batch", {32, 64, 128, 256, 512, 1024})
        .axis("in", {4096})
        .axis("out", {16384})
        .work([](const size_point& z) {
          const double b = double(z["batch"]), i = double(z["in"]), o = double(z["out"]);
          // The least either variant must move: BF16 x and W read once, FP32 y written once.
          return gpubench::work{.bytes = 2 * (b * i + i * o) + 4 * b * o, .flops = 2 * b * i * o,
                                .flops_kind = gpubench::flop_kind::fp32};
        })
        .variant("fp32_simt", "cublasGemmEx, FP32 weights and activations, CUBLAS_COMPUTE_32F_PEDANTIC (SIMT FMA)",
                 [](mlp_state& s, gpubench::stream_t) {
                   s.gemm(s.w.get(), s.x.get(), CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
                 })
        .variant("bf16_tensor", "cublasGemmEx, BF16 weights and activations, FP32 accumulate and output",
                 [](mlp_state& s, gpubench::stream_t) {
                   s.gemm(s.w16.get(), s.x16.get(), CUDA_R_16BF, CUBLAS_COMPUTE_32F);
                 },
                 {.flops_kind = gpubench::flop_kind::bf16})
        // BF16 keeps 7 mantissa bits: rounding x and W gives a relative L2 error of a few 1e-3 on
        // uniform [-1, 1] inputs (FP32 accumulation adds little); 1e-2 allows that with margin.
        .check(gpubench::tolerance::relative(1e-2));

}  // namespace
