// Adversarial (host memory): correct kernels, but vector_add first allocates 48 GiB of host
// memory with new[] (one block) and touches it. Expected: graded; under the course's 16 GiB limit
// (RLIMIT_DATA) new throws std::bad_alloc, GoogleTest fails the test, and the report says the
// test "used more than 16 GiB of host memory"; every Saxpy test passes; the machine is safe.
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
  constexpr std::size_t kBytes = std::size_t{48} << 30;
  char* block = new char[kBytes];
  std::memset(block, 1, kBytes);
  // Kept where the compiler must assume it is read: otherwise new + memset may be elided.
  static char* volatile kept;
  kept = block;
  delete[] block;
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
