// Adversarial: on its first call in a process, allocates all the GPU memory it can and never
// frees it; its kernels are otherwise correct. Expected: graded (exit code 0); the harness sees
// the device memory still allocated after the test that made the call, fails that test ("left
// ... MiB of device memory allocated") and ends the process, so the next test starts in a fresh
// one with the whole GPU (where this code hogs again): every test is charged for its own leak,
// none fails for lack of memory, and labgrade finishes; the memory goes back with each process.
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

void hog_everything() {
  static bool done = false;
  if (done) return;
  done = true;
  for (std::size_t chunk = std::size_t{1} << 30; chunk >= (std::size_t{1} << 20); chunk /= 2) {
    void* p = nullptr;
    while (cudaMalloc(&p, chunk) == cudaSuccess) {
    }
  }
  cudaGetLastError();  // the last failed cudaMalloc is not the caller's error
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  hog_everything();
  if (n == 0) return cudaSuccess;
  add_kernel<<<blocks_for(n), 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  hog_everything();
  if (n == 0) return cudaSuccess;
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
