// Lab 04 reference: the three steps of the lab.
//  - transpose_naive: one thread per element, strided stores.
//  - transpose_coalesced: the handout's 32x32 tile without padding, 32x8 threads. A student's
//    transpose_coalesced is timed against this one, so it is deliberately the plain version, bank
//    conflicts included.
//  - transpose_conflict_free: a padded tile, 64x64 (16 elements per thread) rather than the
//    handout's 32x32 (4 per thread): on an H100 a transpose needs that many bytes in flight per SM
//    to approach copy bandwidth (config/labs/04_transpose.yaml reference_targets: >= 85%). bench/labs/04_transpose_bench.cu measures
//    it next to the handout's 32x32 padded tile; a student's kernel is judged against this one
//    with a ratio calibrated from those figures (config/labs/04_transpose.yaml).
//
// A transpose does no arithmetic: it is all memory traffic, so "fast" means moving bytes at close
// to the rate of a plain copy.
//  1. naive: one thread per element. A warp reads 32 consecutive floats of a row (one 128-byte
//     request) but writes them down a column of `out`, `rows` floats apart: 32 separate 32-byte
//     sectors per store, each carrying 4 useful bytes.
//  2. tiled, kPad = 0: a block loads a tile row by row (coalesced reads) into shared memory, waits
//     for the whole tile, then writes it row by row of `out` (coalesced writes), reading the tile
//     by columns. Shared memory serves scattered addresses... unless they fall in the same one of
//     its 32 banks (4-byte word k is in bank k % 32). A tile row of 32 or 64 floats puts a whole
//     tile column in one bank, so a warp reading a column is served one thread at a time.
//  3. tiled, kPad = 1: one unused column of padding. Element (i, j) of tile[kTile][kTile + 1] is
//     word i * (kTile + 1) + j, in bank (i + j) % 32 when kTile is a multiple of 32: the 32
//     elements of a column a warp reads sit in 32 different banks.
// The tile may be larger than a warp is wide (kTile = 64): each thread then moves more elements,
// with more independent loads in flight per thread (latency is hidden by bytes in flight), and a
// block synchronises once per 16 KiB instead of once per 4 KiB.
//
// The contract bounds rows * cols by 2^28, so 32-bit unsigned indices cannot overflow.
#include <cstddef>

#include "transpose.cuh"

namespace LAB_IMPL {
namespace {

constexpr unsigned kWarp = 32;

__global__ void naive_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// One kTile x kTile tile per block of kWarp x kBlockRows threads; kTile a multiple of kWarp and of
// kBlockRows. Each thread moves (kTile / kWarp) * (kTile / kBlockRows) elements.
template <unsigned kTile, unsigned kBlockRows, unsigned kPad>
__global__ void __launch_bounds__(kWarp * kBlockRows)
    tiled_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows, unsigned cols) {
  static_assert(kTile % kWarp == 0 && kTile % kBlockRows == 0, "whole warps and whole row steps per tile");
  __shared__ float tile[kTile][kTile + kPad];

  const unsigned tile_row = blockIdx.y * kTile;  // first input row of this tile
  const unsigned tile_col = blockIdx.x * kTile;  // first input column of this tile

  // Load: threadIdx.x runs along an input row, so a warp reads 128 consecutive bytes, and writes
  // 32 consecutive words of a tile row (32 different banks). Constant trip counts: fully unrolled,
  // so all of a thread's loads are issued before the first one has to arrive.
#pragma unroll
  for (unsigned k = 0; k < kTile; k += kBlockRows) {
    const unsigned j = threadIdx.y + k;
    const unsigned in_row = tile_row + j;
#pragma unroll
    for (unsigned x = 0; x < kTile; x += kWarp) {
      const unsigned in_col = tile_col + x + threadIdx.x;
      if (in_row < rows && in_col < cols) tile[j][x + threadIdx.x] = in[in_row * cols + in_col];
    }
  }

  // Each thread now reads elements that other warps loaded.
  __syncthreads();

  // Store: the tile lands transposed at (tile_col, tile_row) of `out`, a cols x rows matrix.
  // threadIdx.x runs along an output row again (coalesced writes); the shared-memory read
  // tile[x + threadIdx.x][j] walks down a tile column, which is where the padding matters.
#pragma unroll
  for (unsigned k = 0; k < kTile; k += kBlockRows) {
    const unsigned j = threadIdx.y + k;
    const unsigned out_row = tile_col + j;
#pragma unroll
    for (unsigned x = 0; x < kTile; x += kWarp) {
      const unsigned out_col = tile_row + x + threadIdx.x;
      if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[x + threadIdx.x][j];
    }
  }
}

unsigned blocks_for(std::size_t items, unsigned per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

// rows or cols 0: nothing to launch (a grid of 0 blocks is an invalid launch).
cudaError_t launch_naive(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  constexpr unsigned kRowsPerBlock = 8;  // 32 x 8 = 256 threads
  const dim3 threads(kWarp, kRowsPerBlock);
  // rows <= 2^17 gives at most 16384 blocks along y (the limit is 65535).
  const dim3 blocks(blocks_for(cols, kWarp), blocks_for(rows, kRowsPerBlock));
  naive_kernel<<<blocks, threads, 0, stream>>>(in, out, static_cast<unsigned>(rows), static_cast<unsigned>(cols));
  return cudaGetLastError();
}

template <unsigned kTile, unsigned kBlockRows, unsigned kPad>
cudaError_t launch_tiled(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const dim3 threads(kWarp, kBlockRows);
  const dim3 blocks(blocks_for(cols, kTile), blocks_for(rows, kTile));  // one block per tile
  tiled_kernel<kTile, kBlockRows, kPad><<<blocks, threads, 0, stream>>>(in, out, static_cast<unsigned>(rows),
                                                                        static_cast<unsigned>(cols));
  return cudaGetLastError();
}

}  // namespace

cudaError_t transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  return launch_naive(in, out, rows, cols, stream);
}

cudaError_t transpose_coalesced(const float* in, float* out, std::size_t rows, std::size_t cols,
                                cudaStream_t stream) {
  return launch_tiled</*kTile=*/32, /*kBlockRows=*/8, /*kPad=*/0>(in, out, rows, cols, stream);
}

cudaError_t transpose_conflict_free(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream) {
  return launch_tiled</*kTile=*/64, /*kBlockRows=*/8, /*kPad=*/1>(in, out, rows, cols, stream);
}

}  // namespace LAB_IMPL
