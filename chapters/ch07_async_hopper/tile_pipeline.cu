// Intra-kernel double buffering on a 2-D 5x5 stencil: each block loops over 128 x 64 output
// tiles, staging each input tile (plus halo) in shared memory. Synchronously (load,
// __syncthreads, compute), or through a ring of 2 or 4 shared-memory stages filled by cp.async,
// so the next tiles' loads are in flight while the current tile is computed.
//
// Stage counts are variants rather than an axis: the engine compares variants within a size, so
// "1 -> 2 -> 4 stages" is one table with one baseline, while an axis would re-run the synchronous
// kernel at every stage count and compare nothing with it.
#include <string>

#include "async_copy_helpers.cuh"

namespace {

using gpubench::size_point;

constexpr int kRadius = 2;                     // 5 x 5 taps
constexpr int kTaps = 2 * kRadius + 1;
constexpr int kTileW = 128;                    // outputs per tile row
constexpr int kTileH = 64;                     // output rows per tile
// Two threads per output column, 32 rows each: 8 warps per block, so that while some warps wait
// for shared memory or the FMA pipeline others can issue (with 4 warps per block the schedulers
// sat idle half the time on an H100 and no variant reached the DRAM roof).
constexpr int kThreads = 2 * kTileW;
constexpr int kRowsPerThread = kTileH / (kThreads / kTileW);
// The halo is loaded 4 columns wide on each side (2 are used) so every copy is an aligned
// 16-byte chunk: cp.async moves 4, 8 or 16 aligned bytes. The 2 extra columns per side come
// from lines the neighbouring strip reads anyway, so they cost L2 traffic, not DRAM traffic.
constexpr int kHaloX = 4;
constexpr int kRows = kTileH + 2 * kRadius;    // 68 input rows per tile
// In shared memory each row's interior starts on a 128-byte boundary, as it does in global
// memory: a cp.async whose shared address is off its global address's alignment within a
// 32-byte sector costs two sector requests instead of one. With the interior 16 bytes into a
// 544-byte row (the tight layout), the L2 served twice the sectors of the same reads done by
// plain loads (ncu on an H200 at n=8192: 18.8M against 10.0M); at 85% of its throughput it, not
// DRAM, set the pace, and the 4-stage ring ran at 79% of its floor instead of 91%. So the pitch
// is a whole number of 128-byte lines: 32 floats of which the left halo uses the last 4, then
// the interior's 128, the right halo's 4, and 28 unused.
constexpr int kInterior = 32;                  // shared-memory column of the interior's first value
constexpr int kCols = 192;                     // row pitch in shared memory, floats
// Copies are 16-byte chunks, numbered so that a warp's 32 consecutive copies are one row's 512
// aligned interior bytes (4 whole 128-byte lines); the two halo chunks of each row come after.
// (Numbering row by row across the halo made each warp straddle two rows, 16 bytes off the line
// grid, and the copies ran about 10% slower.)
constexpr int kInteriorChunks = kRows * (kTileW / 4);
constexpr int kChunks = kInteriorChunks + kRows * 2;
constexpr int kChunkRounds = (kChunks + kThreads - 1) / kThreads;
constexpr int kStageFloats = kRows * kCols;
constexpr std::size_t kStageBytes = sizeof(float) * kStageFloats;  // 52224: 4 stages = 204 KB
static_assert(kHaloX >= kRadius && kHaloX % 4 == 0, "16-byte chunks must tile the halo");
static_assert(kCols % 32 == 0 && kInterior % 32 == 0 && kInterior >= kHaloX && kInterior + kTileW + kHaloX <= kCols,
              "rows and interiors on 128-byte boundaries, halos inside the row");

// Normalised 5 x 5 weights (the separable binomial filter 1 4 6 4 1, stored as 25 taps; all
// variants sum them in the same order, so any weights would do). Passed by value: kernel
// parameters sit in the constant bank, which the FMAs read directly.
struct taps {
  float w[kTaps][kTaps];
};
constexpr taps binomial_taps() {
  float b[kTaps] = {1.f};  // row kTaps - 1 of Pascal's triangle (sums to 2^(kTaps - 1))
  for (int i = 1; i < kTaps; ++i)
    for (int j = i; j > 0; --j) b[j] += b[j - 1];
  const float norm = float(1 << (kTaps - 1)) * float(1 << (kTaps - 1));
  taps t{};
  for (int y = 0; y < kTaps; ++y)
    for (int x = 0; x < kTaps; ++x) t.w[y][x] = b[y] * b[x] / norm;
  return t;
}
constexpr taps kBinomial = binomial_taps();

// Tile t of the n x n image, band-major: band t / (n / kTileW) from the top, column t % (n / kTileW)
// from the left. Blocks take tiles round-robin (block b: b, b + gridDim.x, ...), so at any moment
// the grid works on a few consecutive bands: concurrent tiles are horizontal neighbours, whose
// rows share DRAM pages, and a tile's top halo was read moments earlier by the band above (L2).
struct tile_coords {
  int x0, y0;
};
__device__ __forceinline__ tile_coords tile_at(int t, int n) {
  const int across = n / kTileW;
  return {(t % across) * kTileW, (t / across) * kTileH};
}

// Chunk c of a tile: interior chunk (row c / 32, columns x0 + 4 (c % 32) ..), or halo chunk h
// = c - kInteriorChunks (row h / 2, columns x0 - 4 .. or x0 + 128 ..). Rows start at input row
// y0 - R. Outside the image the input is zero (zero padding), the same in every variant.
struct chunk_src {
  std::size_t offset;  // element offset in the image (0 when !inside)
  int smem;            // float offset in the stage
  bool inside;
};
__device__ __forceinline__ chunk_src chunk_at(int c, tile_coords tc, int n) {
  int r, col;  // tile row, tile column (in floats, halo included)
  if (c < kInteriorChunks) {
    r = c / (kTileW / 4);
    col = kInterior + 4 * (c % (kTileW / 4));
  } else {
    const int h = c - kInteriorChunks;
    r = h / 2;
    col = h % 2 ? kInterior + kTileW : kInterior - kHaloX;
  }
  const int gy = tc.y0 - kRadius + r, gx = tc.x0 - kInterior + col;
  const bool inside = gy >= 0 && gy < n && gx >= 0 && gx < n;  // n % 4 == 0: a chunk is all in or all out
  return {inside ? std::size_t(gy) * n + gx : 0, r * kCols + col, inside};
}

// The compute of one tile, identical in every variant: thread t produces 32 outputs of column
// x0 + t % 128 (rows 32 (t / 128) .. + 31), sliding a register window down the staged tile four
// output rows at a time (8 input rows x 5 columns: 5 shared loads and 25 FMAs per output). Each
// output's taps are summed row by row, left to right, with explicit rounding; the four outputs of
// a group are independent chains, interleaved so the FMA pipeline never waits on its own latency.
constexpr int kGroup = 4;
static_assert(kRowsPerThread % kGroup == 0, "whole groups of output rows");
__device__ __forceinline__ void compute_tile(const float* tile, tile_coords tc, float* __restrict__ out, int n,
                                             const taps& w) {
  constexpr int kWin = kTaps + kGroup - 1;  // 8 input rows feed 4 output rows
  const int tx = threadIdx.x % kTileW, row0 = (threadIdx.x / kTileW) * kRowsPerThread;
  tile += row0 * kCols + tx + kInterior - kRadius;  // the leftmost tap of this thread's first output
  float win[kWin][kTaps];
#pragma unroll
  for (int d = 0; d < kTaps - 1; ++d)
#pragma unroll
    for (int dx = 0; dx < kTaps; ++dx) win[kGroup + d][dx] = tile[d * kCols + dx];
  float* o = out + std::size_t(tc.y0 + row0) * n + tc.x0 + tx;
#pragma unroll
  for (int g = 0; g < kRowsPerThread; g += kGroup) {
    // Window rows g .. g + 7: keep the last 4 rows, load 4 new ones.
#pragma unroll
    for (int d = 0; d < kTaps - 1; ++d)
#pragma unroll
      for (int dx = 0; dx < kTaps; ++dx) win[d][dx] = win[kGroup + d][dx];
#pragma unroll
    for (int d = kTaps - 1; d < kWin; ++d)
#pragma unroll
      for (int dx = 0; dx < kTaps; ++dx) win[d][dx] = tile[(g + d) * kCols + dx];
    float acc[kGroup];
#pragma unroll
    for (int r = 0; r < kGroup; ++r) acc[r] = __fmul_rn(w.w[0][0], win[r][0]);
#pragma unroll
    for (int k = 1; k < kTaps * kTaps; ++k)
#pragma unroll
      for (int r = 0; r < kGroup; ++r)
        acc[r] = __fmaf_rn(w.w[k / kTaps][k % kTaps], win[r + k / kTaps][k % kTaps], acc[r]);
#pragma unroll
    for (int r = 0; r < kGroup; ++r) o[std::size_t(g + r) * n] = acc[r];
  }
}

// kStages == 1: the synchronous tile loop. Each thread loads its 9 or 10 chunks of the tile into
// registers, the block waits for the previous tile's compute to finish, stores them to shared
// memory, waits again, computes. While it computes, this block has nothing in flight.
// kStages >= 2: a ring of kStages tiles filled by cp.async, kStages - 1 tiles ahead of the one
// being computed. One __syncthreads per tile both publishes tile i (every thread's copies of it
// have landed) and frees the stage computed in iteration i - 1, which is the one refilled next.
template <int kStages>
__global__ void __launch_bounds__(kThreads)
    stencil_tiles(const float* __restrict__ in, float* __restrict__ out, int n, int tiles, taps w) {
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  // This block's i-th tile is tile blockIdx.x + i * gridDim.x.
  const int count = int(blockIdx.x) < tiles ? (tiles - 1 - int(blockIdx.x)) / int(gridDim.x) + 1 : 0;
  const auto tile_of = [&](int i) { return int(blockIdx.x) + i * int(gridDim.x); };

  if constexpr (kStages == 1) {
    for (int i = 0; i < count; ++i) {
      const tile_coords tc = tile_at(tile_of(i), n);
      float4 v[kChunkRounds];
#pragma unroll
      for (int j = 0; j < kChunkRounds; ++j) {
        const int c = j * kThreads + threadIdx.x;
        v[j] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (c < kChunks) {
          const chunk_src s = chunk_at(c, tc, n);
          if (s.inside) v[j] = *reinterpret_cast<const float4*>(in + s.offset);
        }
      }
      __syncthreads();  // the previous tile's compute is done with the buffer
#pragma unroll
      for (int j = 0; j < kChunkRounds; ++j) {
        const int c = j * kThreads + threadIdx.x;
        if (c < kChunks) *reinterpret_cast<float4*>(smem + chunk_at(c, tc, n).smem) = v[j];
      }
      __syncthreads();  // the whole tile is in shared memory
      compute_tile(smem, tc, out, n, w);
    }
  } else {
    const auto issue = [&](int i) {  // copies of the block's i-th tile into stage i % kStages
      const tile_coords tc = tile_at(tile_of(i), n);
      float* stage = smem + (i % kStages) * kStageFloats;
#pragma unroll
      for (int j = 0; j < kChunkRounds; ++j) {
        const int c = j * kThreads + threadIdx.x;
        // Zero padding by cp.async's zero fill, so every copy is one unconditional instruction;
        // only the last, partial round of chunks has a bounds test.
        if ((j + 1) * kThreads <= kChunks || c < kChunks) {
          const chunk_src s = chunk_at(c, tc, n);
          ch07::cp_async_16_zfill(stage + s.smem, in + s.offset, s.inside);
        }
      }
    };
#pragma unroll
    for (int p = 0; p < kStages - 1; ++p) {
      if (p < count) issue(p);
      ch07::cp_async_commit();  // empty groups too: group g always holds tile g
    }
    for (int i = 0; i < count; ++i) {
      ch07::cp_async_wait<kStages - 2>();  // this thread's copies of tile i have landed
      __syncthreads();                     // everyone's have; everyone finished tile i - 1
      if (i + kStages - 1 < count) issue(i + kStages - 1);
      ch07::cp_async_commit();
      compute_tile(smem + (i % kStages) * kStageFloats, tile_at(tile_of(i), n), out, n, w);
    }
  }
}

template <int kStages>
constexpr std::size_t smem_bytes() {
  return kStages * kStageBytes;
}

struct stencil_state : gpubench::pair_state {
  int n, tiles, grid;
  std::string no_4_stages;  // why the 4-stage ring cannot run here ("" when it can)
  gpubench::device_buffer<float> x, y;

  stencil_state(const size_point& z, const gpubench::setup_context& ctx)
      : n(checked_size(z["n"])), tiles((n / kTileW) * (n / kTileH)), grid(0), x(std::size_t(n) * n),
        y(std::size_t(n) * n) {
    gpubench::fill_uniform(x.get(), x.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
    int dev = 0, optin = 0;
    GPUBENCH_CUDA(cudaGetDevice(&dev));
    GPUBENCH_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    ch07::allow_dynamic_smem(stencil_tiles<1>, smem_bytes<1>());
    ch07::allow_dynamic_smem(stencil_tiles<2>, smem_bytes<2>());
    if (smem_bytes<4>() <= std::size_t(optin)) ch07::allow_dynamic_smem(stencil_tiles<4>, smem_bytes<4>());
    else
      no_4_stages = "4 stages need " + std::to_string(smem_bytes<4>()) +
                    " bytes of shared memory per block, this GPU allows " + std::to_string(optin);
    // Every variant launches the same grid: as many blocks as the deepest ring that runs here fits
    // on the GPU at once (4 stages of 51 KB: one block of 8 warps per SM on H100 and H200; A100's
    // 163 KB hold 3, so there the 4-stage variant is skipped and the 2-stage ring sets the grid). Same
    // blocks, same warps, same tiles per block: the comparison isolates what the pipeline adds, not
    // what a different occupancy would.
    grid = ch07::sm_count() * (no_4_stages.empty() ? ch07::blocks_per_sm(stencil_tiles<4>, kThreads, smem_bytes<4>())
                                                   : ch07::blocks_per_sm(stencil_tiles<2>, kThreads, smem_bytes<2>()));
  }
  static int checked_size(std::int64_t n) {
    if (n < kTileW || n > 32768 || n % kTileW != 0)
      throw gpubench::usage_error("tile_pipeline: n must be a multiple of 128 between 128 and 32768, got " +
                                  std::to_string(n));
    return int(n);
  }
  gpubench::output_view output(std::string_view) const override { return {y.get(), y.size()}; }
};

template <int kStages>
void run(stencil_state& s, gpubench::stream_t stream) {
  if (kStages == 4 && !s.no_4_stages.empty()) throw gpubench::not_supported(s.no_4_stages);
  stencil_tiles<kStages><<<s.grid, kThreads, smem_bytes<kStages>(), stream>>>(s.x.get(), s.y.get(), s.n, s.tiles,
                                                                             kBinomial);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<stencil_state>("tile_pipeline",
                                  "5x5 stencil over shared-memory tiles: synchronous loads vs 2- and 4-stage cp.async")
        .explain("A tiled kernel that loads a tile into shared memory, waits at __syncthreads, then computes, leaves "
                 "the memory system idle while it computes and the SM idle while it waits: each tile pays the full "
                 "DRAM latency (around a microsecond under load), and only one tile's loads per block are ever in "
                 "flight. Unless enough other blocks share the SM to fill those gaps, the kernel is latency-bound, "
                 "not bandwidth-bound. cp.async (sm_80+) copies global memory straight into shared memory without "
                 "holding registers and without making the thread wait, so a block can keep a ring of stages: while "
                 "it computes tile i, the next tiles are already on their way, and one barrier per tile both "
                 "publishes the tile that has landed and frees the stage that was just consumed, which is refilled "
                 "at once. Here each block loops over 128x64 output tiles of a 5x5 stencil (68x136 input values per "
                 "tile with the halo; 25 FMAs and 5 shared loads per output from a sliding register window; 8 warps "
                 "per block), and all three variants launch the same grid, one block per SM (what the 4-stage ring's "
                 "204 KB of shared memory allows on H100), and compute identically. That is the regime of kernels "
                 "whose shared memory or registers cap their occupancy (GEMMs, attention): a synchronous kernel "
                 "given several blocks per SM would hide part of the latency by occupancy instead, which is the "
                 "other way to get bytes in flight. Two stages overlap each tile's load with the previous tile's "
                 "compute; four keep three tiles in flight, which only helps when one tile of loads cannot cover "
                 "the latency. Tiles are assigned round-robin in row-band order, so tiles in flight at the same "
                 "time are horizontal neighbours (shared DRAM pages) and the halo rows a tile shares with the band "
                 "above are still in L2. Each shared row starts its interior on a 128-byte line, as the global row "
                 "does: a cp.async whose shared address sits at another offset within its 32-byte sector than its "
                 "global address fetches that sector separately, and with a tight row pitch the L2 served twice "
                 "the sectors and capped both rings near 80% of the floor on an H200. Outputs are bit-identical "
                 "(same taps, same order, explicit rounding, zero padding at the edges).")
        .axis("n", {512, 8192, 16384})
        .work([](const size_point& z) {
          // The image read once and the result written once; 25 multiplies and 24 adds per output.
          // (Halo rows and columns are re-read by neighbouring tiles: L2 traffic, not DRAM.)
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 8.0 * n * n, .flops = (2.0 * kTaps * kTaps - 1.0) * n * n};
        })
        .variant("synchronous", "load tile to registers, __syncthreads, store to shared memory, compute", run<1>)
        .variant("cp_async_2_stages", "cp.async double buffer: tile i+1 loads while tile i is computed", run<2>)
        .variant("cp_async_4_stages", "cp.async ring of 4 stages: 3 tiles in flight during each compute", run<4>)
        .check(gpubench::tolerance::exact());  // same values, same order, same rounding

}  // namespace
