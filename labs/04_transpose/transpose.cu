// Lab 04: your implementation. Fill in the three kernels and the three host functions below, in
// order; the handout (README.md) explains each step, what is tested and what "fast" means.
// Build and check with
//   ./cudalabs check 04_transpose
#include "transpose.cuh"

namespace LAB_IMPL {

// A tile is kTile x kTile elements; a block of kTile x kBlockRows threads moves one tile, each
// thread kTile / kBlockRows elements of it. These are suggestions: change them if you like.
constexpr int kTile = 32;
constexpr int kBlockRows = 8;
static_assert(kTile % kBlockRows == 0, "every thread moves the same number (kTile / kBlockRows) of tile rows");

// --- Step 1: one thread per element --------------------------------------------------------

__global__ void transpose_naive_kernel(const float* in, float* out, int rows, int cols) {
  // TODO(student): with a 2D grid, compute this thread's column c (x: blockIdx.x, blockDim.x,
  // threadIdx.x) and row r (y), and when r < rows and c < cols write
  //   out[c * rows + r] = in[r * cols + c];
  // Consecutive threads (threadIdx.x) then read consecutive floats of `in`, and write floats
  // `rows` apart in `out`.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(rows);
  static_cast<void>(cols);
}

// --- Step 2: a tile through shared memory --------------------------------------------------

__global__ void transpose_coalesced_kernel(const float* in, float* out, int rows, int cols) {
  // TODO(student): this block handles the tile whose top-left element is
  // (blockIdx.y * kTile, blockIdx.x * kTile) of `in`.
  //  1. Declare  __shared__ float tile[kTile][kTile];
  //  2. Load: for j = threadIdx.y, threadIdx.y + kBlockRows, ... < kTile, copy
  //     in[(tile_row + j) * cols + tile_col + threadIdx.x] into tile[j][threadIdx.x]
  //     (skip elements outside the matrix).
  //  3. __syncthreads(): every thread reads elements that other threads loaded.
  //  4. Store: the same tile lands at (blockIdx.x * kTile, blockIdx.y * kTile) of `out`, which has
  //     `rows` columns. Let threadIdx.x run along a row of `out` again, so writes are coalesced:
  //     out[(tile_col + j) * rows + tile_row + threadIdx.x] = tile[threadIdx.x][j]
  //     (again skipping elements outside the matrix: the bounds swap roles here).
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(rows);
  static_cast<void>(cols);
}

// --- Step 3: the same, without bank conflicts ----------------------------------------------

__global__ void transpose_conflict_free_kernel(const float* in, float* out, int rows, int cols) {
  // TODO(student): copy transpose_coalesced_kernel and change only the tile's declaration to
  //   __shared__ float tile[kTile][kTile + 1];
  // then work out (README.md, "Bank conflicts") why that one extra column matters.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(rows);
  static_cast<void>(cols);
}

// --- Host functions ------------------------------------------------------------------------

cudaError_t transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols,
                            cudaStream_t stream) {
  // TODO(student):
  //  1. If rows == 0 or cols == 0, return cudaSuccess without launching anything.
  //  2. Choose a 2D block, e.g. dim3 threads(32, 8), and a 2D grid that covers cols in x and rows
  //     in y: dim3 blocks((cols + 31) / 32, (rows + 7) / 8).
  //  3. Launch transpose_naive_kernel<<<blocks, threads, 0, stream>>>(in, out, int(rows), int(cols));
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(rows);
  static_cast<void>(cols);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t transpose_coalesced(const float* in, float* out, std::size_t rows, std::size_t cols,
                                cudaStream_t stream) {
  // TODO(student): as transpose_naive, but one block per tile: dim3 threads(kTile, kBlockRows)
  // and dim3 blocks((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile).
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(rows);
  static_cast<void>(cols);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t transpose_conflict_free(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream) {
  // TODO(student): the same launch as transpose_coalesced, with transpose_conflict_free_kernel.
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(rows);
  static_cast<void>(cols);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
