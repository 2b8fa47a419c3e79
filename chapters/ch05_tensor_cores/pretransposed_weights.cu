// y = x W^T with W in the framework's layout (out x in, row-major) and a GEMM written for the
// other one: transpose W on every call vs once at load time, and the op flag that makes either
// unnecessary.
#include "gemm_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kTile = 64;  // 64 x 64 16-bit elements per block; every thread moves pairs (4 bytes)

/// out (cols x rows, column-major) = transpose of in (rows x cols, column-major), 16-bit elements.
/// Through shared memory so both the reads and the writes are whole coalesced rows; the +1 pad
/// keeps the column reads of the tile on distinct banks. rows and cols: multiples of kTile.
__global__ void transpose_16bit(const std::uint16_t* __restrict__ in, std::uint16_t* __restrict__ out, int rows, int cols) {
  __shared__ std::uint16_t tile[kTile][kTile + 1];  // tile[c][r] of the input block
  const int r0 = int(blockIdx.x) * kTile, c0 = int(blockIdx.y) * kTile, x = int(threadIdx.x);
  for (int j = int(threadIdx.y); j < kTile; j += int(blockDim.y)) {
    const std::uint32_t v = *reinterpret_cast<const std::uint32_t*>(in + (r0 + 2 * x) + std::size_t(c0 + j) * rows);
    tile[j][2 * x] = std::uint16_t(v & 0xffffu);
    tile[j][2 * x + 1] = std::uint16_t(v >> 16);
  }
  __syncthreads();
  for (int j = int(threadIdx.y); j < kTile; j += int(blockDim.y)) {
    const std::uint32_t v = std::uint32_t(tile[2 * x][j]) | (std::uint32_t(tile[2 * x + 1][j]) << 16);
    *reinterpret_cast<std::uint32_t*>(out + (c0 + 2 * x) + std::size_t(r0 + j) * cols) = v;
  }
}

void transpose(const __nv_bfloat16* in, __nv_bfloat16* out, int rows, int cols, gpubench::stream_t stream) {
  transpose_16bit<<<dim3(unsigned(rows / kTile), unsigned(cols / kTile)), dim3(32, 8), 0, stream>>>(
      reinterpret_cast<const std::uint16_t*>(in), reinterpret_cast<std::uint16_t*>(out), rows, cols);
  GPUBENCH_CHECK_LAUNCH();
}

struct weights_state : gpubench::pair_state {
  int tokens, in, out;
  gpubench::cublas_handle blas;
  // Column-major views: x^T (in x tokens) and W as stored, i.e. W^T (in x out); y^T (out x tokens).
  // The "NN" GEMM y^T = M x^T wants M = W as an out x in column-major matrix: W transposed in memory.
  gpubench::device_buffer<__nv_bfloat16> x, w, w_kept, w_scratch, y;

  weights_state(const size_point& z, const gpubench::setup_context& ctx)
      : tokens(int(z["tokens"])), in(int(z["in"])), out(int(z["out"])), blas(ctx.stream), x(std::size_t(tokens) * in),
        w(std::size_t(in) * out), w_kept(w.size()), w_scratch(w.size()), y(std::size_t(out) * tokens) {
    if (in % kTile != 0 || out % kTile != 0)
      throw gpubench::usage_error("pretransposed_weights: in and out must be multiples of 64");
    gpubench::device_buffer<float> tmp(std::max(x.size(), w.size()));
    gpubench::fill_uniform(tmp.get(), x.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::convert_from_float(tmp.get(), x.get(), x.size(), ctx.stream);
    gpubench::fill_uniform(tmp.get(), w.size(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
    gpubench::convert_from_float(tmp.get(), w.get(), w.size(), ctx.stream);
    transpose(w.get(), w_kept.get(), in, out, ctx.stream);  // once, as at model load time
    GPUBENCH_CUDA(cudaStreamSynchronize(ctx.stream));      // tmp is freed on return
  }

  gpubench::output_view output(std::string_view) const override {
    return {y.get(), y.size(), gpubench::element_type::bf16};
  }

  void gemm(cublasOperation_t op_w, const __nv_bfloat16* pw, int ldw) {
    const float one = 1.f, zero = 0.f;
    GPUBENCH_CUBLAS(cublasGemmEx(blas.get(), op_w, CUBLAS_OP_N, out, tokens, in, &one, pw, CUDA_R_16BF, ldw, x.get(),
                                 CUDA_R_16BF, in, &zero, y.get(), CUDA_R_16BF, out, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT));
  }
};

void transpose_each_call(weights_state& s, gpubench::stream_t stream) {
  transpose(s.w.get(), s.w_scratch.get(), s.in, s.out, stream);
  s.gemm(CUBLAS_OP_N, s.w_scratch.get(), s.out);
}

void pretransposed(weights_state& s, gpubench::stream_t) { s.gemm(CUBLAS_OP_N, s.w_kept.get(), s.out); }

void op_flag(weights_state& s, gpubench::stream_t) { s.gemm(CUBLAS_OP_T, s.w.get(), s.in); }

const gpubench::registration reg =
    gpubench::pair<weights_state>("pretransposed_weights", "Weights in the wrong layout: transpose per call vs once")
        .explain("A linear layer's weight is stored out x in, row-major, and y = x W^T. Code whose GEMM expects the "
                 "weight the other way round often transposes it on every call: a full read and write of the "
                 "weight matrix, pure memory traffic, before the tensor cores start. Doing that transpose once when "
                 "the model is loaded and keeping the weight in the layout the GEMM wants removes the pass; the GEMM "
                 "then sees exactly the same bits. The pass matters most at small token counts, where the GEMM "
                 "itself is short and mostly streams the weight. The third variant is the usual real answer: "
                 "cuBLAS takes a transpose flag per operand and its tensor-core kernels read either layout at full "
                 "speed, so W can be used as stored with no copy at all.")
        .axis("tokens", {32, 512, 4096})
        .axis("in", {4096})
        .axis("out", {16384})
        .work([](const size_point& z) {
          const double t = double(z["tokens"]), i = double(z["in"]), o = double(z["out"]);
          // x and W read once, y written once, BF16; the GEMM's FLOPs. No transpose is required work.
          return gpubench::work{.bytes = 2 * (t * i + i * o + t * o), .flops = 2 * t * i * o,
                                .flops_kind = gpubench::flop_kind::bf16};
        })
        .variant("transpose_each_call", "tiled transpose of W into scratch, then the NN cublasGemmEx",
                 transpose_each_call)
        .variant("pretransposed", "W transposed once at setup, the NN cublasGemmEx only", pretransposed)
        // A TN GEMM may run a different kernel and sum K in another order: FP32 sums differ in the
        // last bits and a few BF16 outputs round one unit (up to 2^-7 relative) the other way.
        .variant("op_flag", "W as stored, CUBLAS_OP_T on it: the TN cublasGemmEx, no copy", op_flag,
                 {.check = gpubench::tolerance::relative(1e-2)})
        // transpose_each_call and pretransposed make the same GEMM call on identical bits.
        .check(gpubench::tolerance::exact());

}  // namespace
