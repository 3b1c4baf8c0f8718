// Adversarial: correct kernels, but a static constructor (which runs before the process's main,
// so before CUDA starts) empties CUDA_VISIBLE_DEVICES. In a test program that loaded this code,
// it found no device and every test skipped itself, which would have turned the grade into "no
// CUDA device, not a grade". In a grade it hides the GPU only from its own runner, which cannot
// start: every test fails saying so ("your code (in its runner process) could not start:
// initialising CUDA: cudaErrorNoDevice"); the judge sees the GPU. Expected on a GPU: graded (exit
// code 0), score 0 / 100. Without a GPU: exit 5, not a grade (there really is none).
#include <cstdlib>

#include "vector_add.cuh"

namespace student {
namespace {

struct GpuHider {
  GpuHider() { setenv("CUDA_VISIBLE_DEVICES", "", 1); }
} hider;

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
