// Adversarial: correct kernels, but a static constructor (which runs before the test program's
// main, so before CUDA starts) empties CUDA_VISIBLE_DEVICES: the test program then finds no
// device and every test skips itself, which would turn the grade into "no CUDA device, not a
// grade" (and a batch would try again forever). Expected on a GPU: graded (exit code 0),
// score 0 / 100, every test failed with the reason, a note for the instructor. Without a GPU:
// exit 5, not a grade (there really is none), nothing charged.
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
