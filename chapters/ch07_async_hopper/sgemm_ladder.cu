// FP32 SGEMM on the SIMT cores, one step at a time from a naive kernel to cuBLAS: shared-memory
// tiles, 1-D then 2-D register blocking, vectorised loads, a cp.async double-buffered pipeline,
// and warp tiling. C = A * B, all row-major, square n x n (n a multiple of 128).
//
// Every hand-written kernel accumulates each output as acc = fmaf(A[r][k], B[k][c], acc) for
// k = 0, 1, ..., n-1 in that order, starting from 0: the tiling changes who loads what and from
// where, never the arithmetic. They are therefore checked bit for bit against the naive kernel;
// only cuBLAS, which orders its sums its own way, gets a relative tolerance.
#include <string>

#include "async_copy_helpers.cuh"
#include "gpubench/cublas.hpp"

namespace {

using gpubench::size_point;

// ---------------------------------------------------------------------------------------------
// 1. Naive: one thread per output. Threads of a warp take consecutive columns, so each B load is
// one coalesced 128-byte row segment and each A load is one address broadcast to the warp.
constexpr int kNaiveX = 32, kNaiveY = 8;

__global__ void __launch_bounds__(kNaiveX* kNaiveY)
    sgemm_naive(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  const int col = blockIdx.x * kNaiveX + threadIdx.x;
  const int row = blockIdx.y * kNaiveY + threadIdx.y;
  const float* a = A + std::size_t(row) * n;
  const float* b = B + col;
  float acc = 0.f;
  for (int k = 0; k < n; ++k) acc = fmaf(a[k], b[std::size_t(k) * n], acc);
  C[std::size_t(row) * n + col] = acc;
}

// ---------------------------------------------------------------------------------------------
// 2. Shared-memory tiles: a 32 x 32 block stages a 32 x 32 tile of A and of B in shared memory,
// so each global element is loaded once per block instead of once per thread that uses it.
constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile* kTile)
    sgemm_smem(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  const float* a = A + std::size_t(row) * n + tx;  // A[row][k0 + tx]
  const float* b = B + std::size_t(ty) * n + col;  // B[k0 + ty][col]
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += kTile) {
    As[ty][tx] = a[k0];
    Bs[ty][tx] = b[std::size_t(k0) * n];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);  // As: broadcast; Bs: 32 banks
    __syncthreads();
  }
  C[std::size_t(row) * n + col] = acc;
}

// ---------------------------------------------------------------------------------------------
// 3. 1-D register blocking: a 64 x 64 block tile, BK = 8, each thread computes TM = 8 outputs of
// one column. The B value it loads from shared memory is reused for 8 FMAs from registers.
namespace bt1 {
constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
constexpr int kThreads = BM * BN / TM;  // 512
static_assert(kThreads == BM * BK && kThreads == BK * BN, "one A and one B element per thread per tile");
}  // namespace bt1

__global__ void __launch_bounds__(bt1::kThreads)
    sgemm_blocktile_1d(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  using namespace bt1;
  __shared__ float As[BM * BK];  // [BM][BK]
  __shared__ float Bs[BK * BN];  // [BK][BN]
  const int tid = threadIdx.x;
  const int tcol = tid % BN, trow = tid / BN;    // outputs (trow * TM + i, tcol)
  const int a_row = tid / BK, a_col = tid % BK;  // a warp reads 4 rows x 32 bytes of A
  const int b_row = tid / BN, b_col = tid % BN;  // and one 128-byte segment of a row of B
  A += std::size_t(blockIdx.y) * BM * n;
  B += std::size_t(blockIdx.x) * BN;
  C += std::size_t(blockIdx.y) * BM * n + std::size_t(blockIdx.x) * BN;
  float acc[TM] = {};
  for (int k0 = 0; k0 < n; k0 += BK) {
    As[a_row * BK + a_col] = A[std::size_t(a_row) * n + k0 + a_col];
    Bs[b_row * BN + b_col] = B[std::size_t(k0 + b_row) * n + b_col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      const float b = Bs[k * BN + tcol];
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] = fmaf(As[(trow * TM + i) * BK + k], b, acc[i]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) C[std::size_t(trow * TM + i) * n + tcol] = acc[i];
}

// ---------------------------------------------------------------------------------------------
// 4. 2-D register blocking: a 128 x 128 block tile, BK = 8, each of 256 threads computes an
// 8 x 8 sub-tile: per k it loads 8 A and 8 B values from shared memory and does 64 FMAs with
// them (8 FMAs per shared load instead of 1 in step 2 and 8/9 in step 3).
namespace bt2 {
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int kThreads = (BM / TM) * (BN / TN);  // 256
}  // namespace bt2

__global__ void __launch_bounds__(bt2::kThreads)
    sgemm_blocktile_2d(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  using namespace bt2;
  __shared__ float As[BM * BK];  // [BM][BK]
  __shared__ float Bs[BK * BN];  // [BK][BN]
  const int tid = threadIdx.x;
  const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
  const int a_row = tid / BK, a_col = tid % BK;
  constexpr int a_step = kThreads / BK;  // 32 rows of A per pass, 4 passes
  const int b_row = tid / BN, b_col = tid % BN;
  constexpr int b_step = kThreads / BN;  // 2 rows of B per pass, 4 passes
  A += std::size_t(blockIdx.y) * BM * n;
  B += std::size_t(blockIdx.x) * BN;
  C += std::size_t(blockIdx.y) * BM * n + std::size_t(blockIdx.x) * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
    for (int r = 0; r < BM; r += a_step) As[(a_row + r) * BK + a_col] = A[std::size_t(a_row + r) * n + k0 + a_col];
#pragma unroll
    for (int r = 0; r < BK; r += b_step) Bs[(b_row + r) * BN + b_col] = B[std::size_t(k0 + b_row + r) * n + b_col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = As[(trow * TM + i) * BK + k];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = Bs[k * BN + tcol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) C[std::size_t(trow * TM + i) * n + tcol * TN + j] = acc[i][j];
}

// ---------------------------------------------------------------------------------------------
// 5. Vectorised: step 4's tiles, but every global access is a 16-byte float4, and A is stored
// transposed in shared memory (As[k][m]) so that a thread's 8 A values for one k are 2 float4
// reads instead of 8 scalar ones; B's 8 values are 2 float4 reads too. Outputs leave as float4s.
__global__ void __launch_bounds__(bt2::kThreads)
    sgemm_vectorized(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  using namespace bt2;
  __shared__ __align__(16) float As[BK * BM];  // [BK][BM]: A transposed
  __shared__ __align__(16) float Bs[BK * BN];  // [BK][BN]
  const int tid = threadIdx.x;
  const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
  const int a_row = tid / (BK / 4), a_c4 = tid % (BK / 4);  // 128 rows x 2 float4 of A: one each
  const int b_row = tid / (BN / 4), b_c4 = tid % (BN / 4);  // 8 rows x 32 float4 of B: one each
  A += std::size_t(blockIdx.y) * BM * n;
  B += std::size_t(blockIdx.x) * BN;
  C += std::size_t(blockIdx.y) * BM * n + std::size_t(blockIdx.x) * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int k0 = 0; k0 < n; k0 += BK) {
    const float4 av = *reinterpret_cast<const float4*>(A + std::size_t(a_row) * n + k0 + a_c4 * 4);
    As[(a_c4 * 4 + 0) * BM + a_row] = av.x;
    As[(a_c4 * 4 + 1) * BM + a_row] = av.y;
    As[(a_c4 * 4 + 2) * BM + a_row] = av.z;
    As[(a_c4 * 4 + 3) * BM + a_row] = av.w;
    *reinterpret_cast<float4*>(&Bs[b_row * BN + b_c4 * 4]) =
        *reinterpret_cast<const float4*>(B + std::size_t(k0 + b_row) * n + b_c4 * 4);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 a4 = *reinterpret_cast<const float4*>(&As[k * BM + trow * TM + 4 * h]);
        const float4 b4 = *reinterpret_cast<const float4*>(&Bs[k * BN + tcol * TN + 4 * h]);
        ra[4 * h] = a4.x, ra[4 * h + 1] = a4.y, ra[4 * h + 2] = a4.z, ra[4 * h + 3] = a4.w;
        rb[4 * h] = b4.x, rb[4 * h + 1] = b4.y, rb[4 * h + 2] = b4.z, rb[4 * h + 3] = b4.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4*>(C + std::size_t(trow * TM + i) * n + tcol * TN + 4 * h) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
}

// ---------------------------------------------------------------------------------------------
// Steps 6 and 7 share the tile shape and the loader: 128 x 128 x 16 tiles in two shared-memory
// stages filled by cp.async, so the copy of tile t+1 runs while tile t is being multiplied.
namespace db {
constexpr int BM = 128, BN = 128, BK = 16, kThreads = 256, kStages = 2;
// A is stored transposed, As[k][m], with rows padded by 4 floats: the 4-byte copies that scatter
// A into it then spread over the banks (row stride 132 words, 4 banks apart) and rows stay
// 16-byte aligned for the float4 reads.
constexpr int kLdA = BM + 4;
constexpr int kCopiesA = BM * BK / kThreads;        // 8 four-byte copies per thread
constexpr int kCopiesB = BK * BN / 4 / kThreads;    // 2 sixteen-byte copies per thread
struct smem {
  float a[kStages][BK][kLdA];
  float b[kStages][BK][BN];
};
static_assert(sizeof(smem) <= 48 * 1024, "static shared memory");

// Where one thread's copies come from and go to. Since kThreads is a multiple of BK and of BN / 4,
// the p-th copy of a thread sits a fixed number of rows below its first one: one base pointer per
// operand and a row stride, instead of 10 separately computed 64-bit addresses held in registers.
// A: consecutive threads take consecutive k of one row (64 contiguous bytes per 16 threads), each
// 4-byte copy landing at its transposed place; B: rows of 16-byte chunks.
struct slab_loader {
  const float* a;  // &A[m0][k], m0 = tid / BK, k = tid % BK (advanced by BK per slab)
  const float* b;  // &B[k0][4 c4], k0 = tid / (BN / 4), c4 = tid % (BN / 4) (advanced by BK rows per slab)
  std::size_t a_step, b_step;  // elements between a thread's consecutive copies
  int a_k, a_m, b_k, b_c;      // shared-memory coordinates of its first copies

  __device__ slab_loader(const float* A, const float* B, int n, int tid)
      : a(A + std::size_t(tid / BK) * n + tid % BK), b(B + std::size_t(tid / (BN / 4)) * n + 4 * (tid % (BN / 4))),
        a_step(std::size_t(kThreads / BK) * n), b_step(std::size_t(kThreads / (BN / 4)) * n), a_k(tid % BK),
        a_m(tid / BK), b_k(tid / (BN / 4)), b_c(4 * (tid % (BN / 4))) {}

  // Issues (does not wait for) the copies of the next BK-wide slab into `stage`, then advances.
  __device__ __forceinline__ void issue(smem& s, int stage, int n) {
#pragma unroll
    for (int p = 0; p < kCopiesA; ++p)
      ch07::cp_async_4(&s.a[stage][a_k][a_m + p * (kThreads / BK)], a + p * a_step);
#pragma unroll
    for (int p = 0; p < kCopiesB; ++p)
      ch07::cp_async_16(&s.b[stage][b_k + p * (kThreads / (BN / 4))][b_c], b + p * b_step);
    a += BK;
    b += std::size_t(BK) * n;
  }
};
}  // namespace db

// 6. Double-buffered: step 5's 8 x 8 thread tiles, fed by the two-stage cp.async pipeline. The
// loads no longer pass through registers (no LDG -> STS pair per element) and the next slab's
// global latency overlaps this slab's FMAs instead of stalling every thread at each tile.
__global__ void __launch_bounds__(db::kThreads, 2)
    sgemm_double_buffered(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  using namespace db;
  constexpr int TM = 8, TN = 8;
  __shared__ __align__(16) smem s;
  const int tid = threadIdx.x;
  const int tcol = tid % (BN / TN), trow = tid / (BN / TN);
  A += std::size_t(blockIdx.y) * BM * n;
  B += std::size_t(blockIdx.x) * BN;
  C += std::size_t(blockIdx.y) * BM * n + std::size_t(blockIdx.x) * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  const int slabs = n / BK;
  slab_loader loader(A, B, n, tid);
  loader.issue(s, 0, n);
  ch07::cp_async_commit();
  for (int t = 0; t < slabs; ++t) {
    // Start slab t+1 into the other stage (its last reader finished at the previous iteration's
    // closing barrier), then wait for this thread's copies of slab t only.
    if (t + 1 < slabs) {
      loader.issue(s, (t + 1) % kStages, n);
      ch07::cp_async_commit();
      ch07::cp_async_wait<1>();
    } else {
      ch07::cp_async_wait<0>();
    }
    __syncthreads();  // every thread's copies of slab t have landed
    const int st = t % kStages;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 a4 = *reinterpret_cast<const float4*>(&s.a[st][k][trow * TM + 4 * h]);
        const float4 b4 = *reinterpret_cast<const float4*>(&s.b[st][k][tcol * TN + 4 * h]);
        ra[4 * h] = a4.x, ra[4 * h + 1] = a4.y, ra[4 * h + 2] = a4.z, ra[4 * h + 3] = a4.w;
        rb[4 * h] = b4.x, rb[4 * h + 1] = b4.y, rb[4 * h + 2] = b4.z, rb[4 * h + 3] = b4.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();  // slab t fully read: the next iteration may refill its stage
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float4*>(C + std::size_t(trow * TM + i) * n + tcol * TN + 4 * h) =
          make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
}

// 7. Warp tiling: the same pipeline, but outputs are assigned warp by warp. The 8 warps form a
// 2 x 4 grid of 64 x 32 warp tiles; inside one, the 32 lanes form an 8 x 4 grid and each lane
// owns a 2 x 2 set of 4 x 4 sub-tiles, 32 rows and 16 columns apart. For one k a warp then reads
// 8 distinct float4 of A (128 contiguous bytes, one shared-memory wavefront, each value broadcast
// to 4 lanes) and 4 distinct float4 of B, where step 6's 16 x 16 thread grid made each warp read
// 256 scattered bytes of B per access. A warp's working set is a compact 64 x 32 block, and each
// float4 it stores to C covers 4 rows x 64 contiguous bytes.
namespace wt {
constexpr int kWarpsM = 2, kWarpsN = 4;                           // 8 warps
constexpr int WM = db::BM / kWarpsM, WN = db::BN / kWarpsN;       // 64 x 32 per warp
constexpr int kLanesM = 8, kLanesN = 4;                           // lane grid
constexpr int kSubM = WM / 2, kSubN = WN / 2;                     // 32 x 16: lanes x 4 values
static_assert(kWarpsM * kWarpsN * 32 == db::kThreads && kLanesM * kLanesN == 32, "8 warps of 32 lanes");
static_assert(kSubM == kLanesM * 4 && kSubN == kLanesN * 4, "each lane holds 4 x 4 values per sub-tile");
}  // namespace wt

__global__ void __launch_bounds__(db::kThreads, 2)
    sgemm_warptiled(int n, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  using namespace db;
  using namespace wt;
  __shared__ __align__(16) smem s;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / kWarpsN, wn = warp % kWarpsN;
  const int lm = lane / kLanesN, ln = lane % kLanesN;
  const int m_base = wm * WM + lm * 4;  // this lane's rows: m_base + {0, kSubM} + {0..3}
  const int n_base = wn * WN + ln * 4;  // this lane's cols: n_base + {0, kSubN} + {0..3}
  A += std::size_t(blockIdx.y) * BM * n;
  B += std::size_t(blockIdx.x) * BN;
  C += std::size_t(blockIdx.y) * BM * n + std::size_t(blockIdx.x) * BN;
  float acc[8][8] = {};  // acc[gm * 4 + i][gn * 4 + j]
  float ra[8], rb[8];
  const int slabs = n / BK;
  slab_loader loader(A, B, n, tid);
  loader.issue(s, 0, n);
  ch07::cp_async_commit();
  for (int t = 0; t < slabs; ++t) {
    if (t + 1 < slabs) {
      loader.issue(s, (t + 1) % kStages, n);
      ch07::cp_async_commit();
      ch07::cp_async_wait<1>();
    } else {
      ch07::cp_async_wait<0>();
    }
    __syncthreads();
    const int st = t % kStages;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
#pragma unroll
      for (int g = 0; g < 2; ++g) {
        const float4 a4 = *reinterpret_cast<const float4*>(&s.a[st][k][m_base + g * kSubM]);
        const float4 b4 = *reinterpret_cast<const float4*>(&s.b[st][k][n_base + g * kSubN]);
        ra[4 * g] = a4.x, ra[4 * g + 1] = a4.y, ra[4 * g + 2] = a4.z, ra[4 * g + 3] = a4.w;
        rb[4 * g] = b4.x, rb[4 * g + 1] = b4.y, rb[4 * g + 2] = b4.z, rb[4 * g + 3] = b4.w;
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int gm = 0; gm < 2; ++gm)
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int gn = 0; gn < 2; ++gn) {
        const float* v = &acc[gm * 4 + i][gn * 4];
        *reinterpret_cast<float4*>(C + std::size_t(m_base + gm * kSubM + i) * n + n_base + gn * kSubN) =
            make_float4(v[0], v[1], v[2], v[3]);
      }
}

// ---------------------------------------------------------------------------------------------

struct sgemm_state : gpubench::pair_state {
  int n;
  gpubench::cublas_handle blas;
  gpubench::device_buffer<float> a, b, c;

  sgemm_state(const size_point& z, const gpubench::setup_context& ctx)
      // CUBLAS_DEFAULT_MATH, pinned explicitly: SGEMM then runs in plain FP32 FMA on the SIMT cores
      // (TF32 tensor cores need CUBLAS_TF32_TENSOR_OP_MATH, BF16x9 emulation
      // CUBLAS_FP32_EMULATED_BF16X9_MATH), so the reference does the same arithmetic as the ladder.
      // PEDANTIC would pin it too but may pick slower kernels, which would flatter the ladder.
      : n(checked_size(z["n"])), blas(ctx.stream, CUBLAS_DEFAULT_MATH), a(std::size_t(n) * n),
        b(std::size_t(n) * n), c(std::size_t(n) * n) {
    gpubench::fill_uniform(a.get(), a.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    gpubench::fill_uniform(b.get(), b.size(), gpubench::derive_seed(ctx.seed, 2), -1.f, 1.f, ctx.stream);
  }
  // The tiled kernels have no edge handling: n must be a whole number of 128 x 128 tiles.
  static int checked_size(std::int64_t n) {
    if (n < 128 || n > 16384 || n % 128 != 0)
      throw gpubench::usage_error("sgemm_ladder: n must be a multiple of 128 between 128 and 16384, got " +
                                  std::to_string(n));
    return int(n);
  }
  gpubench::output_view output(std::string_view) const override { return {c.get(), c.size()}; }
};

void naive(sgemm_state& s, gpubench::stream_t st) {
  sgemm_naive<<<dim3(s.n / kNaiveX, s.n / kNaiveY), dim3(kNaiveX, kNaiveY), 0, st>>>(s.n, s.a.get(), s.b.get(),
                                                                                        s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void smem_tiles(sgemm_state& s, gpubench::stream_t st) {
  sgemm_smem<<<dim3(s.n / kTile, s.n / kTile), dim3(kTile, kTile), 0, st>>>(s.n, s.a.get(), s.b.get(), s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void blocktile_1d(sgemm_state& s, gpubench::stream_t st) {
  sgemm_blocktile_1d<<<dim3(s.n / bt1::BN, s.n / bt1::BM), bt1::kThreads, 0, st>>>(s.n, s.a.get(), s.b.get(),
                                                                                    s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void blocktile_2d(sgemm_state& s, gpubench::stream_t st) {
  sgemm_blocktile_2d<<<dim3(s.n / bt2::BN, s.n / bt2::BM), bt2::kThreads, 0, st>>>(s.n, s.a.get(), s.b.get(),
                                                                                    s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void vectorized(sgemm_state& s, gpubench::stream_t st) {
  sgemm_vectorized<<<dim3(s.n / bt2::BN, s.n / bt2::BM), bt2::kThreads, 0, st>>>(s.n, s.a.get(), s.b.get(),
                                                                                  s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void double_buffered(sgemm_state& s, gpubench::stream_t st) {
  sgemm_double_buffered<<<dim3(s.n / db::BN, s.n / db::BM), db::kThreads, 0, st>>>(s.n, s.a.get(), s.b.get(),
                                                                                    s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void warptiled(sgemm_state& s, gpubench::stream_t st) {
  sgemm_warptiled<<<dim3(s.n / db::BN, s.n / db::BM), db::kThreads, 0, st>>>(s.n, s.a.get(), s.b.get(), s.c.get());
  GPUBENCH_CHECK_LAUNCH();
}
void cublas(sgemm_state& s, gpubench::stream_t) {
  // Row-major C = A B is column-major C^T = B^T A^T: pass B first, with the row lengths as the
  // leading dimensions. Same product, no transposes.
  const float one = 1.f, zero = 0.f;
  GPUBENCH_CUBLAS(cublasSgemm(s.blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.n, s.n, &one, s.b.get(), s.n, s.a.get(),
                              s.n, &zero, s.c.get(), s.n));
}

using gpubench::tolerance;
// Hand-written kernels: same products summed in the same order with the same fmaf, so bitwise.
const gpubench::variant_options kBitwise{.check = tolerance::exact()};

const gpubench::registration reg =
    gpubench::pair<sgemm_state>("sgemm_ladder", "FP32 SGEMM from a naive kernel to cuBLAS, one optimization at a time")
        .explain(
            "A GEMM does 2n^3 FLOPs on 3n^2 numbers, so it can be compute-bound, but only if each number loaded is "
            "reused many times from fast storage. Each step of this ladder raises that reuse or hides a latency, and "
            "each is checked bit for bit against the naive kernel (same FMAs, same order). naive: one thread per "
            "output, 2 global loads per FMA; the loads mostly hit L1/L2, so it is bound by load issue and cache "
            "bandwidth. smem_tiles: a 32x32 block stages 32x32 tiles of A and B in shared memory, so each global "
            "element is fetched once per block instead of 32 times, but every FMA still needs 2 shared-memory "
            "loads. blocktile_1d: each thread computes 8 outputs of a column, reusing one B value from a register "
            "for 8 FMAs. blocktile_2d: 128x128 block tiles and an 8x8 sub-tile per thread: 16 shared loads feed 64 "
            "FMAs, and each global element is now reused 128 times per block. vectorized: 16-byte global loads and "
            "stores, and A stored transposed in shared memory, so a thread's 8 A and 8 B values per k are 4 float4 "
            "reads instead of 16 scalar ones. double_buffered: two shared-memory stages filled with cp.async, which "
            "copies global to shared memory without passing through registers and without making the thread wait: "
            "the next 16-wide slab streams in while the current one is multiplied, so a block no longer stalls at "
            "every tile. warptiled: the same pipeline with outputs assigned per warp (64x32 warp tiles, each lane a "
            "2x2 set of 4x4 sub-tiles): a warp's shared-memory reads become 128 contiguous bytes of A and 64 of B "
            "per k, broadcast across lanes, instead of scattered 256-byte patterns, so shared-memory bandwidth stops "
            "competing with the FMAs. cublas: cublasSgemm in FP32 (CUBLAS_DEFAULT_MATH pinned: no TF32, no "
            "emulation), the library reference; a step's fraction of cuBLAS is its speedup divided by cuBLAS's. "
            "Library kernels go further than this ladder (tile shapes tuned per GPU and size, register-level double "
            "buffering, scheduling below CUDA C++); this pair does not measure which of those makes the "
            "remaining gap.")
        .axis("n", {512, 4096, 8192})
        .work([](const size_point& z) {
          // A and B read once, C written once (beta = 0: C is not read); an FMA is 2 FLOPs.
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 12.0 * n * n, .flops = 2.0 * n * n * n};
        })
        .variant("naive", "one thread per output, operands straight from global memory", naive)
        .variant("smem_tiles", "32x32 tiles of A and B staged in shared memory", smem_tiles, kBitwise)
        .variant("blocktile_1d", "64x64 block tile, 8 outputs per thread in one column", blocktile_1d, kBitwise)
        .variant("blocktile_2d", "128x128 block tile, 8x8 outputs per thread", blocktile_2d, kBitwise)
        .variant("vectorized", "float4 global loads and stores, A transposed in shared memory", vectorized, kBitwise)
        .variant("double_buffered", "two cp.async shared-memory stages: next slab loads during this one's FMAs",
                 double_buffered, kBitwise)
        .variant("warptiled", "the cp.async pipeline with 64x32 warp tiles and 4x4 lane sub-tiles", warptiled, kBitwise)
        // cuBLAS sums in its own order. The FP32 rounding of a k-term sum of random-sign products
        // has a relative RMS of about 2^-24 * sqrt(k) (~5e-6 at k = 8192, for each side); 1e-4 is
        // 20x that at the largest size and still catches a single wrong output at n = 8192
        // (relative L2 1/8192 = 1.2e-4) or any wrong tile.
        .variant("cublas", "cublasSgemm, FP32 (CUBLAS_DEFAULT_MATH), the library reference", cublas)
        .check(tolerance::relative(1e-4));

}  // namespace
