// Adversarial: calls exit(0) in the middle of a test (host code of the launch wrapper). `exit`
// cannot be a forbidden symbol (nvcc's stubs of __device__ functions call it), so the
// containment decides. Expected: graded (exit code 0); VectorAdd.OneWarpMinusOne (the only call
// with n = 31) crashed with "exited with code 0 in the middle of this test"; every other
// correctness test passed in fresh processes. The same thing by a raw system call is exits_mid_test.
#include <cstdlib>
#include "vector_add.cuh"

namespace student {
namespace {

__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy_kernel(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

unsigned int blocks_for(std::size_t n) { return static_cast<unsigned int>((n + 255) / 256); }

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 31) std::exit(0);
  if (n == 0) return cudaSuccess;
  add_kernel<<<blocks_for(n), 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
