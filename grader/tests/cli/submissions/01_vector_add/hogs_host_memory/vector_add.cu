// Adversarial (host memory): correct kernels, but vector_add first allocates and touches 48 GiB of
// host memory, 1 GiB at a time, ignoring failed allocations (as careless code does). Expected:
// graded; under the course's 16 GiB limit (RLIMIT_DATA) an allocation fails, the process crashes
// writing through the null pointer, and each test that called vector_add is charged "used more
// than 16 GiB of host memory"; every Saxpy test, in a fresh process, passes; the machine is safe.
#include <cstdlib>
#include <cstring>

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

void hog_host_memory() {
  constexpr std::size_t kChunk = std::size_t{1} << 30;
  for (int i = 0; i < 48; ++i) {
    char* chunk = static_cast<char*>(std::malloc(kChunk));
    std::memset(chunk, 1, kChunk);  // null once the limit is reached: the process crashes here
  }
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  hog_host_memory();
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
