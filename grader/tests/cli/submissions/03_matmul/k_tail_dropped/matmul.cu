// Fixture "k_tail_dropped": the textbook 16x16 tile that walks only the whole tiles along k
// (k / 16 of them, rounded down), dropping the last k % 16 products. Rows and columns are
// bounds-checked, so nothing is read or written out of bounds: every matmul_tiled case whose k
// is not a multiple of 16 fails, those where it is (k = 0, 4096) pass. matmul is correct.
#include "matmul.cuh"

namespace LAB_IMPL {

constexpr int kTile = 16;

__global__ void matmul_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum += a[(size_t)row * k + p] * b[(size_t)p * n + col];
  c[(size_t)row * n + col] = sum;
}

__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int row = blockIdx.y * kTile + threadIdx.y;
  const int col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int k0 = 0; k0 + kTile <= k; k0 += kTile) {  // the bug: k % 16 is dropped
    as[threadIdx.y][threadIdx.x] = (row < m && k0 + threadIdx.x < k) ? a[(size_t)row * k + k0 + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < k && col < n) ? b[(size_t)(k0 + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) sum += as[threadIdx.y][p] * bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[(size_t)row * n + col] = sum;
}

cudaError_t matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m == 0 || n == 0) return cudaSuccess;
  const dim3 threads(kTile, kTile);
  const dim3 blocks((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  matmul_kernel<<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
  return cudaGetLastError();
}

cudaError_t matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m == 0 || n == 0) return cudaSuccess;
  const dim3 threads(kTile, kTile);
  const dim3 blocks((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  matmul_tiled_kernel<<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
