// Lab 03: your implementation. Fill in the kernels and the two host functions below; the
// handout (README.md) explains the steps, what is tested and what "fast" means. Build and check
//   ./cudalabs check 03_matmul
#include "matmul.cuh"

namespace LAB_IMPL {

// Part 1: one thread per element of C.
__global__ void matmul_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  // TODO(student): compute this thread's row and column of C from blockIdx, blockDim and
  // threadIdx. Let threadIdx.x pick the COLUMN (consecutive threads of a warp then read
  // consecutive elements of B and write consecutive elements of C: coalesced). If the thread
  // lies outside C (row >= m or col >= n), return. Otherwise sum a[row * k + p] * b[p * n + col]
  // over p in [0, k) into a float and write it to c[row * n + col] (k == 0 writes 0).
  static_cast<void>(a);
  static_cast<void>(b);
  static_cast<void>(c);
  static_cast<void>(m);
  static_cast<void>(n);
  static_cast<void>(k);
}

// Part 2: shared-memory tiles. Start with square TILE x TILE tiles (e.g. 16 x 16 threads, one
// output each), then make it fast (see the handout's "Making it fast").
__global__ void matmul_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  // TODO(student): for each TILE-wide step along k:
  //  1. every thread loads one element of the A tile and one of the B tile into __shared__
  //     arrays, writing 0 where the element lies outside A or B (ragged edges);
  //  2. __syncthreads(), so the whole tile is loaded before anyone reads it;
  //  3. accumulate the TILE products for this thread's output from shared memory;
  //  4. __syncthreads() again, so nobody overwrites the tile while others still read it.
  // Finally write the sum if the thread's (row, col) lies inside C.
  static_cast<void>(a);
  static_cast<void>(b);
  static_cast<void>(c);
  static_cast<void>(m);
  static_cast<void>(n);
  static_cast<void>(k);
}

cudaError_t matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  // TODO(student):
  //  1. If m == 0 or n == 0, return cudaSuccess without launching anything.
  //  2. Choose a 2D block (e.g. dim3 threads(16, 16)) and enough blocks to cover all n columns
  //     (x) and m rows (y): round up, sizes need not be multiples of the block.
  //  3. Launch matmul_kernel<<<blocks, threads, 0, stream>>>(a, b, c, m, n, k);
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(a);
  static_cast<void>(b);
  static_cast<void>(c);
  static_cast<void>(m);
  static_cast<void>(n);
  static_cast<void>(k);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  // TODO(student): the same four steps as matmul, launching matmul_tiled_kernel with one block
  // per tile of C (and, once you use register tiling, the block shape your kernel expects).
  // Delete the lines below once you have done that.
  static_cast<void>(a);
  static_cast<void>(b);
  static_cast<void>(c);
  static_cast<void>(m);
  static_cast<void>(n);
  static_cast<void>(k);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
