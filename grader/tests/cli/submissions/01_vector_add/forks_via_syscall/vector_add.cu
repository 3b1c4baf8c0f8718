// Adversarial: forks through the raw system call, past the symbol rules (`syscall` itself cannot
// be forbidden: CUDA's runtime support code calls it), and leaves the child spinning. Expected:
// the harness's process filter refuses the fork (EPERM), so each call returns
// cudaErrorNotPermitted and every test fails saying so; no stray process; labgrade finishes.
extern "C" long syscall(long number, ...);
#include "vector_add.cuh"

namespace student {
namespace {

constexpr long kSysFork = 57;  // x86-64

__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy_kernel(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

unsigned int blocks_for(std::size_t n) { return static_cast<unsigned int>((n + 255) / 256); }

// Whether a child could be started (the child itself never returns).
bool forked() {
  const long pid = syscall(kSysFork);
  if (pid == 0) {
    for (;;) {
    }
  }
  return pid > 0;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (!forked()) return cudaErrorNotPermitted;
  if (n == 0) return cudaSuccess;
  add_kernel<<<blocks_for(n), 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (!forked()) return cudaErrorNotPermitted;
  if (n == 0) return cudaSuccess;
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
