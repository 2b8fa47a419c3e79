// y = gelu(x W^T + b) for transformer MLP shapes: GEMM, bias kernel and GELU kernel (three passes
// over y) vs the bias in the GEMM's epilogue (two) vs bias and GELU both in it (one).
#include <optional>
#include <string>

#include "gemm_helpers.cuh"

namespace {

using gpubench::size_point;

/// "512x768x3072": tokens x in_features x out_features.
struct mlp_shape {
  int tokens, in, out;
  explicit mlp_shape(const size_point& z) {
    const auto s = ch05::parse_shape(z.label("shape"));
    tokens = s.m, in = s.n, out = s.k;
  }
};

bool is_bf16(const size_point& z) { return z.label("dtype") == "bf16"; }

enum epilogue_kind { kPlain, kBias, kGeluBias };

struct linear_gelu_state : gpubench::pair_state {
  mlp_shape s;
  bool bf16;
  cudaDataType_t type;
  // 16-bit elements (FP16 or BF16 by `dtype`). Row-major as a framework keeps them, i.e.
  // column-major x^T (in x tokens), W^T (in x out) and y^T (out x tokens): y^T = W x^T is the
  // "TN" GEMM with m = out, n = tokens, k = in, and the bias runs down y^T's rows.
  gpubench::device_buffer<std::uint16_t> x, w, bias, y;
  gpubench::device_buffer<unsigned char> workspace;
  gpubench::lt_handle lt;
  gpubench::lt_layout la, lb, lc;
  std::optional<gpubench::lt_matmul_desc> desc[3];
  std::optional<cublasLtMatmulAlgo_t> algo[3];

  linear_gelu_state(const size_point& z, const gpubench::setup_context& ctx)
      : s(z), bf16(is_bf16(z)), type(bf16 ? CUDA_R_16BF : CUDA_R_16F), x(std::size_t(s.tokens) * s.in),
        w(std::size_t(s.in) * s.out), bias(s.out), y(std::size_t(s.out) * s.tokens), workspace(ch05::kWorkspaceBytes),
        la(type, s.in, s.out, s.in), lb(type, s.in, s.tokens, s.in), lc(type, s.out, s.tokens, s.out) {
    if (s.out % 8 != 0) throw gpubench::usage_error("fused_linear_gelu: out_features must be a multiple of 8");
    fill(x.get(), x.size(), gpubench::derive_seed(ctx.seed, 1), ctx.stream);
    fill(w.get(), w.size(), gpubench::derive_seed(ctx.seed, 2), ctx.stream);
    fill(bias.get(), bias.size(), gpubench::derive_seed(ctx.seed, 3), ctx.stream);
    const cublasLtEpilogue_t epilogues[3] = {CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS};
    for (int e = 0; e < 3; ++e) {
      desc[e].emplace(CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N);
      desc[e]->set(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogues[e]);
      // The bias has y's element type (the default); its pointer's alignment steers the heuristic.
      if (e != kPlain) desc[e]->set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<const void*>(bias.get()));
      algo[e] = gpubench::pick_algo(lt.h, desc[e]->d, la.l, lb.l, lc.l, workspace.size());
    }
    if (!algo[kPlain]) throw gpubench::runtime_error("cuBLASLt has no plain GEMM kernel for this shape and type");
    GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));
  }

  void fill(std::uint16_t* dst, std::size_t n, std::uint64_t seed, gpubench::stream_t stream) const {
    gpubench::device_buffer<float> tmp(n);
    gpubench::fill_uniform(tmp.get(), n, seed, -1.f, 1.f, stream);
    if (bf16) gpubench::convert_from_float(tmp.get(), reinterpret_cast<__nv_bfloat16*>(dst), n, stream);
    else gpubench::convert_from_float(tmp.get(), reinterpret_cast<__half*>(dst), n, stream);
    GPUBENCH_CUDA(cudaStreamSynchronize(stream));  // tmp is freed on return
  }

  gpubench::output_view output(std::string_view) const override {
    return {y.get(), y.size(), bf16 ? gpubench::element_type::bf16 : gpubench::element_type::f16};
  }

  void matmul(epilogue_kind e, gpubench::stream_t stream) {
    if (!algo[e]) throw gpubench::not_supported(std::string("cuBLASLt offers no kernel with the ") +
                                                (e == kBias ? "BIAS" : "GELU_BIAS") + " epilogue for this shape and type");
    const float one = 1.f, zero = 0.f;
    GPUBENCH_CUBLAS(cublasLtMatmul(lt.h, desc[e]->d, &one, w.get(), la.l, x.get(), lb.l, &zero, y.get(), lc.l, y.get(),
                                   lc.l, &*algo[e], workspace.get(), workspace.size(), stream));
  }

  template <class T>
  void bias_pass(gpubench::stream_t stream) {
    auto* p = reinterpret_cast<T*>(y.get());
    ch05::add_bias(p, reinterpret_cast<const T*>(bias.get()), p, y.size(), s.out, stream);
  }
  template <class T>
  void gelu_pass(gpubench::stream_t stream) {
    auto* p = reinterpret_cast<T*>(y.get());
    ch05::gelu(p, p, y.size(), stream);
  }
  void bias_pass_any(gpubench::stream_t stream) {
    if (bf16) bias_pass<__nv_bfloat16>(stream);
    else bias_pass<__half>(stream);
  }
  void gelu_pass_any(gpubench::stream_t stream) {
    if (bf16) gelu_pass<__nv_bfloat16>(stream);
    else gelu_pass<__half>(stream);
  }
};

// Every variant starts with a beta = 0 GEMM that overwrites y, so re-running one is idempotent.
void unfused(linear_gelu_state& st, gpubench::stream_t stream) {
  st.matmul(kPlain, stream);
  st.bias_pass_any(stream);
  st.gelu_pass_any(stream);
}

void bias_epilogue(linear_gelu_state& st, gpubench::stream_t stream) {
  st.matmul(kBias, stream);
  st.gelu_pass_any(stream);
}

void fused(linear_gelu_state& st, gpubench::stream_t stream) { st.matmul(kGeluBias, stream); }

const gpubench::registration reg =
    gpubench::pair<linear_gelu_state>("fused_linear_gelu",
                                      "gelu(x W^T + b): GEMM + bias + GELU kernels vs cuBLASLt epilogues")
        .explain("A transformer MLP's first layer is a GEMM followed by a bias add and a GELU. Written as three "
                 "kernels, the GEMM writes y to memory, the bias kernel reads it and writes it back, and the GELU "
                 "kernel does the same again: three round trips of the largest tensor in the layer, and two of them "
                 "are pure memory traffic with almost no arithmetic. A GEMM's epilogue holds each output tile in "
                 "registers after the tensor cores finish it; cuBLASLt's BIAS and GELU_BIAS epilogues add the bias "
                 "and apply GELU there, so y is written once. The fused form also rounds once, from the FP32 "
                 "accumulator, where the chain rounds after every step. The saving is the pointwise passes' "
                 "share of the time, so it is largest when the GEMM is short relative to its output (few input "
                 "features, many outputs).")
        .label_axis("shape", {"512x768x3072", "4096x4096x16384"})
        .label_axis("dtype", {"bf16", "fp16"})
        .work([](const size_point& z) {
          const mlp_shape s(z);
          const double t = s.tokens, i = s.in, o = s.out;
          // x, W and b read once, y written once, 2 bytes each; the GEMM's 2 t i o FLOPs (the bias and
          // GELU add O(t o) work, negligible next to it).
          return gpubench::work{.bytes = 2 * (t * i + i * o + o + t * o), .flops = 2 * t * i * o,
                                .flops_kind = is_bf16(z) ? gpubench::flop_kind::bf16 : gpubench::flop_kind::fp16};
        })
        .variant("unfused", "cublasLtMatmul, then a bias kernel, then a GELU kernel (in place on y)", unfused)
        .variant("bias_epilogue", "cublasLtMatmul with the BIAS epilogue, then a GELU kernel", bias_epilogue)
        .variant("fused", "one cublasLtMatmul with the GELU_BIAS epilogue", fused)
        // GELU here is the tanh form, the one the epilogue computes (what PyTorch's
        // _addmm_activation relies on). The chain rounds to 16 bits after the GEMM and after the
        // bias, the epilogue only at the end, so they differ by a few output roundings: relative
        // L2 a small multiple of BF16's 2^-9 unit roundoff; 1e-2 allows that with margin.
        .check(gpubench::tolerance::relative(1e-2));

}  // namespace
