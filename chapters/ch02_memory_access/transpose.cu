// Square FP32 matrix transpose: strided writes vs a shared-memory tile, with and without padding.
#include "gpubench/cuda.hpp"

namespace {

using gpubench::size_point;

// A block of 32x8 threads moves one 32x32 tile, four elements per thread: four independent
// loads in flight per thread (more bytes in flight to hide DRAM latency) and a quarter of the
// threads' index arithmetic. All three variants use this geometry, so the only difference
// is the path the data takes between the read and the write.
constexpr int kTile = 32;
constexpr int kRows = 8;

// Reads rows of `in` (a warp reads 128 contiguous bytes) and writes them as columns of `out`:
// the 32 lanes of a warp store to 32 different rows, n * 4 bytes apart, one sector each.
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (x < n && y + j < n) out[std::size_t(x) * n + (y + j)] = in[std::size_t(y + j) * n + x];
}

// Reads a tile row by row into shared memory, then writes the transposed tile row by row:
// both global accesses are contiguous per warp. The transposition happens in shared memory,
// where a warp reads a column: tile[lane][c]. With a 32-float row stride every element of a
// column sits in the same bank (a 32-way conflict, served in 32 passes); one padding float per
// row (Pad = 1) shifts each row by one bank, so the column touches all 32 banks once.
template <int Pad>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float tile[kTile][kTile + Pad];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[std::size_t(y + j) * n + x];
  __syncthreads();
  // The same tile, now seen from `out`: block (bx, by) writes rows bx*32.. of out, columns by*32..
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kRows)
    if (x < n && y + j < n) out[std::size_t(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

struct transpose_state : gpubench::pair_state {
  int n;
  gpubench::device_buffer<float> in, out;

  transpose_state(const size_point& z, const gpubench::setup_context& ctx)
      : n(int(z["n"])), in(std::size_t(n) * n), out(std::size_t(n) * n) {
    gpubench::fill_uniform(in.get(), in.size(), gpubench::derive_seed(ctx.seed, 1), -1.f, 1.f, ctx.stream);
  }
  [[nodiscard]] dim3 grid() const { return {unsigned((n + kTile - 1) / kTile), unsigned((n + kTile - 1) / kTile)}; }

  gpubench::output_view output(std::string_view) const override { return {out.get(), out.size()}; }
};

const dim3 kBlock(kTile, kRows);

void naive(transpose_state& s, gpubench::stream_t stream) {
  transpose_naive<<<s.grid(), kBlock, 0, stream>>>(s.in.get(), s.out.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

template <int Pad>
void tiled(transpose_state& s, gpubench::stream_t stream) {
  transpose_tiled<Pad><<<s.grid(), kBlock, 0, stream>>>(s.in.get(), s.out.get(), s.n);
  GPUBENCH_CHECK_LAUNCH();
}

const gpubench::registration reg =
    gpubench::pair<transpose_state>("transpose", "FP32 matrix transpose: strided writes vs a shared-memory tile")
        .explain("A transpose reads a row and writes it as a column, so one side of the copy is always strided. "
                 "The naive kernel reads rows (each warp loads 128 contiguous bytes) and writes columns: the 32 "
                 "lanes of a warp store to 32 different rows, so every warp store becomes 32 separate 32-byte "
                 "sector requests carrying 4 useful bytes each. Even where L2 merges those partial sectors before "
                 "they reach DRAM, the load/store units and L2 handle eight times as many transactions per useful "
                 "byte. The tiled kernel stages a 32x32 tile in shared memory: it reads the tile row by row and "
                 "writes the transposed tile row by row, so both global accesses are contiguous and the reordering "
                 "happens on chip. But reading a column of a float[32][32] tile puts all 32 lanes on the same "
                 "shared-memory bank (the row stride is 32 words), a 32-way bank conflict that serialises the "
                 "read into 32 passes; padding the tile to float[32][33] shifts each row by one bank, so a column "
                 "spans all 32 banks and is read in one pass, and the kernel is left with the global traffic of "
                 "a plain copy. Each 32x8 thread block moves a whole tile, four elements per thread, which keeps "
                 "several loads in flight per thread to cover DRAM latency. The same elements move in all three.")
        .axis("n", {1024, 8192, 16384})
        .work([](const size_point& z) {
          const double n = double(z["n"]);
          return gpubench::work{.bytes = 2.0 * 4.0 * n * n};  // every element read once and written once
        })
        .variant("naive", "coalesced row reads, strided column writes", naive)
        .variant("tiled", "32x32 shared-memory tile: coalesced both ways, 32-way bank conflicts on the column read",
                 tiled<0>)
        .variant("tiled_padded", "32x33 shared-memory tile: coalesced both ways, no bank conflicts", tiled<1>)
        .check(gpubench::tolerance::exact());  // a transpose only moves bits

}  // namespace
