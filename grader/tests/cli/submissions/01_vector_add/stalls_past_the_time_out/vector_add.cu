// A correct submission whose saxpy, for one size (31 elements, a single partial warp), waits 22 s on
// the host before it launches: past lab 01's 20-s test time-out, so alone that test times out. In a
// batch its first part ends it as a likely hang and runs it again after the first parts; when more
// than four grades do so, their time-out is stretched (by 5/4 for five: 25 s), and this test would
// pass there. A pass bought by the stretch is not believed (suite_runner.hpp,
// hold_to_the_labs_time_out): the test runs again alone with the lab's time-out and times out, so
// the batch grade is the lone one, however many of the class go quiet beside it.
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
  if (n == 31) std::this_thread::sleep_for(std::chrono::seconds(22));
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
