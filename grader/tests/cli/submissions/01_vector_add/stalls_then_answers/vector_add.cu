// A correct submission whose saxpy, for one size (31 elements, a single partial warp), waits 7 s on
// the host before it launches: slow, not hanging, well inside lab 01's 20-s test time-out. Alone it
// scores full marks. In a batch its test process goes quiet past the 5 s after which a first part
// ends it as a likely hang (session/stages.cpp); the test must then run again with its whole
// time-out and pass, so the grade is the same as alone: being mistaken for a hang costs nothing.
#include <chrono>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
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
  vector_add_kernel<<<blocks_for(n), 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n == 31) std::this_thread::sleep_for(std::chrono::seconds(7));
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
