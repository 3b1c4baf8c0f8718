// Lab 04 reference: three transposes, each fixing what limits the one before.
//
// A transpose does no arithmetic: it is all memory traffic, so "fast" means moving bytes at close
// to the rate of a plain copy. Three steps get there:
//  1. naive: one thread per element. A warp reads 32 consecutive floats of a row (one 128-byte
//     request), but writes them down a column of `out`, `rows` floats apart: 32 separate 32-byte
//     sectors per store, each carrying 4 useful bytes. The memory system does 8x the store work.
//  2. coalesced: a block loads a 32x32 tile row by row (coalesced reads) into shared memory, waits
//     for the whole tile, then writes it out row by row of `out` (coalesced writes), reading the
//     tile by columns. Shared memory, unlike DRAM, serves any pattern of addresses... except that
//     it is split in 32 banks of 4-byte words, and a tile row is exactly 32 floats: all elements of
//     one tile column fall in the same bank, so a warp reading a column is served one thread at a
//     time (a 32-way bank conflict).
//  3. conflict_free: the same with one unused column of padding, tile[32][33]. Element (i, j) then
//     sits in bank (33 * i + j) % 32 = (i + j) % 32: a column's 32 elements hit 32 different banks.
//
// Tiles: 32x32 floats moved by 32x8 threads, each thread 4 elements. Its four global loads are
// independent and issued back to back, so every thread has 4 loads in flight (memory latency is
// hidden by bytes in flight, not by thread count alone), while the block stays small enough
// (256 threads, 4.2 KB of shared memory) for 8 blocks to share one SM.
#include <cstddef>

#include "transpose.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kTile = 32;       // a warp's width: one tile row is one coalesced 128-byte request
constexpr int kBlockRows = 8;   // 32x8 = 256 threads per block, kTile / kBlockRows = 4 elements each
constexpr int kNaiveBlockRows = 8;

// The contract bounds rows * cols by 2^28, so 32-bit indices cannot overflow; unsigned keeps the
// bounds checks to one comparison each.
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows,
                                       unsigned cols) {
  const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

// kPad = 0: the plain tile (bank conflicts on the column reads); kPad = 1: the padded tile.
template <int kPad>
__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, unsigned rows,
                                       unsigned cols) {
  __shared__ float tile[kTile][kTile + kPad];

  const unsigned tile_row = blockIdx.y * kTile;  // first input row of this tile
  const unsigned tile_col = blockIdx.x * kTile;  // first input column of this tile

  // Load: threadIdx.x runs along an input row, so a warp reads 128 consecutive bytes. Writing
  // tile[j][threadIdx.x] touches 32 consecutive words: 32 different banks, no conflict.
  const unsigned in_col = tile_col + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {  // constant trip count: fully unrolled
    const unsigned j = threadIdx.y + k;
    const unsigned in_row = tile_row + j;
    if (in_row < rows && in_col < cols) tile[j][threadIdx.x] = in[in_row * cols + in_col];
  }

  // Each thread now reads elements that other warps loaded.
  __syncthreads();

  // Store: the tile lands transposed at (tile_col, tile_row) of `out` (cols x rows). threadIdx.x
  // runs along an output row again, so the writes are coalesced too; it is the shared-memory read
  // tile[threadIdx.x][j] that walks down a column, which is where the padding matters.
  const unsigned out_col = tile_row + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {
    const unsigned j = threadIdx.y + k;
    const unsigned out_row = tile_col + j;
    if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[threadIdx.x][j];
  }
}

bool empty(std::size_t rows, std::size_t cols) { return rows == 0 || cols == 0; }

unsigned blocks_for(std::size_t items, unsigned per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

template <int kPad>
cudaError_t launch_tiled(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (empty(rows, cols)) return cudaSuccess;  // a grid of 0 blocks is an invalid launch
  // One block per tile; with rows and cols <= 2^17 the grid's y extent is at most 4096 (limit 65535).
  const dim3 threads(kTile, kBlockRows);
  const dim3 blocks(blocks_for(cols, kTile), blocks_for(rows, kTile));
  transpose_tiled_kernel<kPad><<<blocks, threads, 0, stream>>>(in, out, static_cast<unsigned>(rows),
                                                               static_cast<unsigned>(cols));
  return cudaGetLastError();
}

}  // namespace

cudaError_t transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (empty(rows, cols)) return cudaSuccess;
  const dim3 threads(32, kNaiveBlockRows);
  const dim3 blocks(blocks_for(cols, threads.x), blocks_for(rows, threads.y));
  transpose_naive_kernel<<<blocks, threads, 0, stream>>>(in, out, static_cast<unsigned>(rows),
                                                         static_cast<unsigned>(cols));
  return cudaGetLastError();
}

cudaError_t transpose_coalesced(const float* in, float* out, std::size_t rows, std::size_t cols,
                                cudaStream_t stream) {
  return launch_tiled<0>(in, out, rows, cols, stream);
}

cudaError_t transpose_conflict_free(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream) {
  return launch_tiled<1>(in, out, rows, cols, stream);
}

}  // namespace LAB_IMPL
