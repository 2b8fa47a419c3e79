// An FP16 GEMM at n = 4096 vs n = 4000 / 4001: cuBLAS called directly on the unaligned matrices vs
// copying them into zero-padded buffers (leading dimension a multiple of 64), one GEMM at the
// padded size, and slicing the result back. Equal useful work: the n x n product.
#include "gemm_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kPadTo = 64;  // 128 bytes of FP16: whole TMA/vector rows, every tile edge on a boundary

struct alignment_state : gpubench::pair_state {
  int n, np;  // np: n rounded up to kPadTo
  gpubench::cublas_handle blas;
  gpubench::device_buffer<__half> a, b, c;     // n x n, leading dimension n (column-major)
  gpubench::device_buffer<__half> ap, bp, cp;  // np x np, zero outside the live n x n block

  alignment_state(const size_point& z, const gpubench::setup_context& ctx)
      : n(int(z["n"])), np((n + kPadTo - 1) / kPadTo * kPadTo), blas(ctx.stream), a(std::size_t(n) * n),
        b(a.size()), c(a.size()), ap(std::size_t(np) * np), bp(ap.size()), cp(ap.size()) {
    gpubench::device_buffer<float> tmp(a.size());
    gpubench::fill_uniform(tmp.get(), tmp.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::convert_from_float(tmp.get(), a.get(), a.size(), ctx.stream);
    gpubench::fill_uniform(tmp.get(), tmp.size(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    gpubench::convert_from_float(tmp.get(), b.get(), b.size(), ctx.stream);
    // Zeroed once: each call copies only the live block, so the padding stays exact zeros and the
    // extra K terms of the padded GEMM add exactly nothing.
    GPUBENCH_CUDA(cudaMemsetAsync(ap.get(), 0, ap.bytes(), ctx.stream));
    GPUBENCH_CUDA(cudaMemsetAsync(bp.get(), 0, bp.bytes(), ctx.stream));
    // cp is the padded GEMM's result, sliced into the output: poisoned (0xFF bytes, an FP16 NaN) so
    // an element the GEMM failed to write reaches the verified output as a NaN. It also keeps
    // initcheck from reporting the slice's reads: initcheck does not see the stores of cuBLAS's
    // Hopper kernels (nvjet), so memory only they wrote counts as uninitialized to it.
    GPUBENCH_CUDA(cudaMemsetAsync(cp.get(), 0xFF, cp.bytes(), ctx.stream));
    GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));  // tmp is freed on return
  }

  gpubench::output_view output(std::string_view) const override {
    return {c.get(), c.size(), gpubench::element_type::f16};
  }

  void gemm(const __half* pa, const __half* pb, __half* pc, int dim) {
    const float one = 1.f, zero = 0.f;
    GPUBENCH_CUBLAS(cublasGemmEx(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one, pa, CUDA_R_16F, dim, pb,
                                 CUDA_R_16F, dim, &zero, pc, CUDA_R_16F, dim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
};

void direct(alignment_state& s, gpubench::stream_t) { s.gemm(s.a.get(), s.b.get(), s.c.get(), s.n); }

void padded(alignment_state& s, gpubench::stream_t stream) {
  if (s.np == s.n) {  // already aligned: a real fix pads only when it has to
    s.gemm(s.a.get(), s.b.get(), s.c.get(), s.n);
    return;
  }
  const std::size_t row = sizeof(__half) * s.n, prow = sizeof(__half) * s.np;
  GPUBENCH_CUDA(cudaMemcpy2DAsync(s.ap.get(), prow, s.a.get(), row, row, s.n, cudaMemcpyDeviceToDevice, stream));
  GPUBENCH_CUDA(cudaMemcpy2DAsync(s.bp.get(), prow, s.b.get(), row, row, s.n, cudaMemcpyDeviceToDevice, stream));
  s.gemm(s.ap.get(), s.bp.get(), s.cp.get(), s.np);
  GPUBENCH_CUDA(cudaMemcpy2DAsync(s.c.get(), row, s.cp.get(), prow, row, s.n, cudaMemcpyDeviceToDevice, stream));
}

const gpubench::registration reg =
    gpubench::pair<alignment_state>("gemm_alignment", "FP16 GEMM at an unaligned size: as is vs padded to 64")
        .explain("Tensor-core GEMM kernels move tiles with 16-byte vector loads (and on Hopper the TMA engine), "
                 "which need every column of A, B and C to start on a 16-byte boundary: a leading dimension that "
                 "is a multiple of 8 FP16 elements. At n = 4001 only every eighth column is aligned, so cuBLAS "
                 "must fall back to kernels that load element by element or stage through slower paths; at 4000 "
                 "the columns are aligned but the tile grid has ragged edges. The fix used by frameworks is to "
                 "pad: copy A and B into zero-filled buffers whose size is a multiple of 64, run the fast kernel "
                 "at the padded size (the zeros add nothing to the result), and slice the n x n answer back out. "
                 "The padded variant pays for those copies and the extra padded FLOPs in its time; at 4096 it "
                 "has nothing to pad and calls the GEMM directly.")
        .axis("n", {4096, 4000, 4001})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          // The useful product only: A and B read once, C written once, all FP16; 2n^3 FLOPs.
          return gpubench::work{.bytes = 3 * 2 * n * n, .flops = 2 * n * n * n, .flops_kind = gpubench::flop_kind::fp16};
        })
        .variant("direct", "cublasGemmEx at n, leading dimension n", direct)
        .variant("padded", "copy into zero-padded buffers (ld multiple of 64), GEMM at the padded size, slice back",
                 padded)
        // The two may run different kernels (split-K, tile order), so FP32 sums differ in the last
        // bits and a few FP16 outputs round one unit (up to 2^-10 relative) the other way; the zero
        // padding itself is exact.
        .check(gpubench::tolerance::relative(1e-3));

}  // namespace
