// Adversarial (the judge/runner split: a child that slows the GPU for whatever runs after it).
// Correct kernels at full speed, plus, after every call has returned (from a thread of its own,
// once its runner has answered), a kernel that keeps the GPU busy for 3 ms: the reference, timed
// next in its own runner, would share the GPU with it and look slower. The judge's device-idle
// check before each sample (an empty kernel of its own, which waits while another context runs)
// finds the GPU busy and fails the timed cases. Fair grade: 80.
#include <chrono>
#include <thread>

#include "vector_add.cuh"

namespace student {
namespace {

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

__global__ void occupy_gpu(unsigned long long nanoseconds) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

// After the runner has replied (50 us from now), fill every SM for 3 ms.
void linger() {
  std::thread([] {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    occupy_gpu<<<132 * 4, 256, 0, stream>>>(3'000'000ull);
  }).detach();
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  add<<<132 * 16, 256, 0, stream>>>(a, b, c, n);
  if (n >= (std::size_t{1} << 26)) linger();
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  axpy<<<132 * 16, 256, 0, stream>>>(alpha, x, y, n);
  if (n >= (std::size_t{1} << 26)) linger();
  return cudaGetLastError();
}

}  // namespace student
