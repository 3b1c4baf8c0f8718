// Fixture: the handout's kernels (naive; 32x32 tile; padded 32x33 tile, 32x8 threads) with the
// classic tiled-transpose bug: the store phase checks the load phase's bounds (row < rows,
// col < cols) instead of swapping them. Square matrices come out right, so both 8192 x 8192
// timed cases are earned (this also checks that a student following the handout passes
// conflict_free_8192); every non-square case loses elements or writes past `out`.
#include "transpose.cuh"

namespace LAB_IMPL {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_naive_kernel(const float* in, float* out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

template <int kPad>
__global__ void transpose_tile_kernel(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPad];
  const int tile_row = blockIdx.y * kTile;
  const int tile_col = blockIdx.x * kTile;
  for (int j = threadIdx.y; j < kTile; j += kBlockRows) {
    const int r = tile_row + j;
    const int c = tile_col + threadIdx.x;
    if (r < rows && c < cols) tile[j][threadIdx.x] = in[r * cols + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTile; j += kBlockRows) {
    const int out_row = tile_col + j;
    const int out_col = tile_row + threadIdx.x;
    if (out_row < rows && out_col < cols) out[out_row * rows + out_col] = tile[threadIdx.x][j];  // bug: not swapped
  }
}

template <int kPad>
cudaError_t launch_tile(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const dim3 threads(kTile, kBlockRows);
  const dim3 blocks(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((rows + kTile - 1) / kTile));
  transpose_tile_kernel<kPad><<<blocks, threads, 0, stream>>>(in, out, static_cast<int>(rows), static_cast<int>(cols));
  return cudaGetLastError();
}

cudaError_t transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return cudaSuccess;
  const dim3 threads(32, 8);
  const dim3 blocks(static_cast<unsigned>((cols + 31) / 32), static_cast<unsigned>((rows + 7) / 8));
  transpose_naive_kernel<<<blocks, threads, 0, stream>>>(in, out, static_cast<int>(rows), static_cast<int>(cols));
  return cudaGetLastError();
}

cudaError_t transpose_coalesced(const float* in, float* out, std::size_t rows, std::size_t cols,
                                cudaStream_t stream) {
  return launch_tile<0>(in, out, rows, cols, stream);
}

cudaError_t transpose_conflict_free(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream) {
  return launch_tile<1>(in, out, rows, cols, stream);
}

}  // namespace LAB_IMPL
