// The same GEMM down the precision ladder: FP32 on the SIMT cores, then TF32, FP16, BF16 and FP8
// on the tensor cores. Every variant writes an FP32 C and is checked against the FP32 result.
#include <optional>
#include <string>

#include "gemm_helpers.cuh"

namespace {

using gpubench::size_point;

// FP8 GEMMs in cuBLASLt need A transposed ("TN"): store A (m x k) as its transpose (k x m) once.
__global__ void transpose_to_fp8(const float* __restrict__ a, __nv_fp8_e4m3* __restrict__ at, int m, int k) {
  const std::size_t n = std::size_t(m) * k;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t row = i % std::size_t(m), col = i / std::size_t(m);  // A(row, col), column-major
    at[col + row * std::size_t(k)] = __nv_fp8_e4m3(a[i]);
  }
}

struct precision_state : gpubench::pair_state {
  ch05::gemm_shape s;
  gpubench::cublas_handle blas;
  gpubench::device_buffer<float> a, b, c;  // column-major FP32: A m x k, B k x n, C m x n
  gpubench::device_buffer<__half> a16, b16;
  gpubench::device_buffer<__nv_bfloat16> abf, bbf;
  // FP8: made only where the GPU has FP8 tensor cores and cuBLASLt has a kernel for the shape.
  std::string fp8_unsupported;
  gpubench::device_buffer<__nv_fp8_e4m3> at8, b8;
  gpubench::device_buffer<unsigned char> workspace;
  std::optional<gpubench::lt_handle> lt;
  std::optional<gpubench::lt_matmul_desc> op8;
  std::optional<gpubench::lt_layout> la8, lb8, lc8;
  cublasLtMatmulAlgo_t algo8{};

  precision_state(const size_point& z, const gpubench::setup_context& ctx)
      : s(ch05::parse_shape(z.label("shape"))), blas(ctx.stream), a(std::size_t(s.m) * s.k), b(std::size_t(s.k) * s.n),
        c(std::size_t(s.m) * s.n), a16(a.size()), b16(b.size()), abf(a.size()), bbf(b.size()) {
    gpubench::fill_uniform(a.get(), a.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(b.get(), b.size(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    gpubench::convert_from_float(a.get(), a16.get(), a.size(), ctx.stream);
    gpubench::convert_from_float(b.get(), b16.get(), b.size(), ctx.stream);
    gpubench::convert_from_float(a.get(), abf.get(), a.size(), ctx.stream);
    gpubench::convert_from_float(b.get(), bbf.get(), b.size(), ctx.stream);
    if (gpubench::compute_capability() < 89) {
      fp8_unsupported = "FP8 (E4M3) tensor cores need compute capability 8.9 or newer";
      return;
    }
    at8 = gpubench::device_buffer<__nv_fp8_e4m3>(a.size());
    b8 = gpubench::device_buffer<__nv_fp8_e4m3>(b.size());
    transpose_to_fp8<<<1024, 256, 0, ctx.stream>>>(a.get(), at8.get(), s.m, s.k);
    GPUBENCH_CHECK_LAUNCH();
    gpubench::convert_from_float(b.get(), b8.get(), b.size(), ctx.stream);
    workspace = gpubench::device_buffer<unsigned char>(ch05::kWorkspaceBytes);
    lt.emplace();
    op8.emplace(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N);
    // Fast accumulation: the mode inference frameworks use for forward GEMMs and the one the
    // measured FP8 peak was taken with, so "fraction of peak" compares like with like.
    op8->set(CUBLASLT_MATMUL_DESC_FAST_ACCUM, std::int8_t{1});
    la8.emplace(CUDA_R_8F_E4M3, s.k, s.m, s.k);  // A stored transposed: k x m
    lb8.emplace(CUDA_R_8F_E4M3, s.k, s.n, s.k);
    lc8.emplace(CUDA_R_32F, s.m, s.n, s.m);      // FP32 C and D: allowed with E4M3 inputs
    if (auto algo = gpubench::pick_algo(lt->h, op8->d, la8->l, lb8->l, lc8->l, workspace.size())) algo8 = *algo;
    else fp8_unsupported = "cuBLASLt has no FP8 E4M3 kernel with FP32 output for this GPU and shape";
  }

  gpubench::output_view output(std::string_view) const override { return {c.get(), c.size()}; }

  void gemm_ex(const void* pa, const void* pb, cudaDataType_t type, cublasComputeType_t compute) {
    const float one = 1.f, zero = 0.f;
    GPUBENCH_CUBLAS(cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, s.m, s.n, s.k, &one, pa, type, s.m, pb, type, s.k,
                                 &zero, c.get(), CUDA_R_32F, s.m, compute, CUBLAS_GEMM_DEFAULT));
  }
};

void fp8(precision_state& st, gpubench::stream_t stream) {
  if (!st.fp8_unsupported.empty()) throw gpubench::not_supported(st.fp8_unsupported);
  const float one = 1.f, zero = 0.f;
  GPUBENCH_CUBLAS(cublasLtMatmul(st.lt->h, st.op8->d, &one, st.at8.get(), st.la8->l, st.b8.get(), st.lb8->l, &zero,
                                 st.c.get(), st.lc8->l, st.c.get(), st.lc8->l, &st.algo8, st.workspace.get(),
                                 st.workspace.size(), stream));
}

using gpubench::flop_kind;
using gpubench::tolerance;

const gpubench::registration reg =
    gpubench::pair<precision_state>("matmul_precision", "One GEMM, five precisions: FP32 SIMT, TF32, FP16, BF16, FP8")
        .explain("An FP32 GEMM on the SIMT cores issues one FMA per thread per instruction. Tensor cores do a whole "
                 "small matrix product per instruction, so the same GEMM runs at several times the rate once the "
                 "inputs are in a format they take. TF32 keeps FP32 storage and range but rounds the mantissa to "
                 "10 bits inside the tensor core: no code change beyond the compute type. FP16 and BF16 halve the "
                 "bytes per element and double the tensor-core rate again; FP16 keeps more mantissa, BF16 keeps "
                 "FP32's exponent range (no loss scaling). FP8 E4M3 (Ada, Hopper) halves the bytes and doubles the "
                 "rate once more at 3 mantissa bits. Accumulation stays FP32 throughout; the measured relative "
                 "error against the FP32 result is the price of each step, and each variant's fraction of peak is "
                 "against the measured peak of its own precision.")
        .label_axis("shape", {"1024", "2048", "4096", "8192", "4096x11008x4096"})
        .work([](const size_point& z) {
          const auto s = ch05::parse_shape(z.label("shape"));
          const double m = s.m, n = s.n, k = s.k;
          // The least any variant must move: FP8 A and B read once (1 byte each), FP32 C written once.
          return gpubench::work{.bytes = m * k + k * n + 4 * m * n, .flops = 2 * m * n * k,
                                .flops_kind = flop_kind::fp32};
        })
        .variant("fp32", "cublasGemmEx, FP32, CUBLAS_COMPUTE_32F_PEDANTIC (SIMT FMA, the reference)",
                 [](precision_state& st, gpubench::stream_t) {
                   st.gemm_ex(st.a.get(), st.b.get(), CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
                 })
        // Tolerances: inputs uniform in [-1, 1], so the error is the inputs' rounding (relative
        // RMS about 2^-(p+1)/sqrt(3) for p mantissa bits, times sqrt(2) for A and B); FP32
        // accumulation adds little. Expected ~4e-4 for TF32 and FP16 (10 bits), ~3e-3 for BF16
        // (7 bits), ~5e-2 for E4M3 (3 bits, plus subnormals below 2^-6); each bound is ~4-5x that.
        .variant("tf32", "cublasGemmEx, FP32 data, CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores)",
                 [](precision_state& st, gpubench::stream_t) {
                   st.gemm_ex(st.a.get(), st.b.get(), CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32);
                 },
                 {.flops_kind = flop_kind::tf32, .check = tolerance::relative(2e-3)})
        .variant("fp16", "cublasGemmEx, FP16 A and B, FP32 accumulate and C",
                 [](precision_state& st, gpubench::stream_t) {
                   st.gemm_ex(st.a16.get(), st.b16.get(), CUDA_R_16F, CUBLAS_COMPUTE_32F);
                 },
                 {.flops_kind = flop_kind::fp16, .check = tolerance::relative(2e-3)})
        .variant("bf16", "cublasGemmEx, BF16 A and B, FP32 accumulate and C",
                 [](precision_state& st, gpubench::stream_t) {
                   st.gemm_ex(st.abf.get(), st.bbf.get(), CUDA_R_16BF, CUBLAS_COMPUTE_32F);
                 },
                 {.flops_kind = flop_kind::bf16, .check = tolerance::relative(1e-2)})
        .variant("fp8", "cublasLtMatmul, FP8 E4M3 A (transposed) and B, FP32 accumulate (fast) and C", fp8,
                 {.flops_kind = flop_kind::fp8, .check = tolerance::relative(0.15)})
        .check(tolerance::relative(2e-3));

}  // namespace
