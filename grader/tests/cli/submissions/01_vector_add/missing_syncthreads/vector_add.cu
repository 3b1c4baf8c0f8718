// A submission whose vector_add stages a and b through shared memory and lets each thread add its
// neighbour's element without a __syncthreads() between the writes and the reads: a shared-memory
// race that racecheck reports, while the results are often still right (the last lane of a warp
// reads what the next warp may not have written yet).
// Its saxpy is correct.
#include "vector_add.cuh"

namespace student {
namespace {

constexpr unsigned int kBlock = 256;

__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  __shared__ float tile_a[kBlock];
  __shared__ float tile_b[kBlock];
  const std::size_t base = blockIdx.x * static_cast<std::size_t>(blockDim.x);
  const unsigned int t = threadIdx.x;
  if (base + t < n) {
    tile_a[t] = a[base + t];
    tile_b[t] = b[base + t];
  }
  // Missing: __syncthreads();
  const unsigned int neighbour = (t + 1) % blockDim.x;
  if (base + neighbour < n) c[base + neighbour] = tile_a[neighbour] + tile_b[neighbour];
}

__global__ void saxpy_kernel(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

unsigned int blocks_for(std::size_t n) { return static_cast<unsigned int>((n + kBlock - 1) / kBlock); }

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  vector_add_kernel<<<blocks_for(n), kBlock, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  saxpy_kernel<<<blocks_for(n), kBlock, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
