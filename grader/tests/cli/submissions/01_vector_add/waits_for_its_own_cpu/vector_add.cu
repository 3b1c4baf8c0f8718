// Adversarial (the judge's busy-machine rule: a child that makes its own runner look disturbed).
// Correct but slow kernels (eight blocks), and on every call a thread that spins on the CPU for
// 2 ms. A thread started inside the call inherits the CPU the runner's main thread is pinned to
// while timed, so that thread waits for its CPU in every timed window, as if other processes took
// it. Were that taken for the machine's load, every round would be measured again and the grade
// would end as no grade ("machine busy", graded again later) instead of slow. Only the trusted
// threads' waits prove outside load (common/include/cudalabs/timing/cpu_wait.hpp), so the windows
// count, slow. Fair grade: 80.
#include <chrono>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr unsigned kBlocks = 8;

__global__ void add(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void axpy(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

// A thread that holds the CPU it inherits for 2 ms.
void crowd_own_cpu() {
  std::thread([] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
  }).detach();
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n >= (std::size_t{1} << 26)) crowd_own_cpu();
  add<<<kBlocks, 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n >= (std::size_t{1} << 26)) crowd_own_cpu();
  axpy<<<kBlocks, 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
