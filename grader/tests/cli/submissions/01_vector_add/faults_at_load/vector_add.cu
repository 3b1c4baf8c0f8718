// A submission whose kernels are correct but whose library, as it loads (a static object's
// constructor, before any test calls it), starts CUDA and launches a kernel that writes one
// element past a small allocation (inside the allocation's granule, so nothing fails without a
// sanitizer). Starting CUDA before compute-sanitizer's own start disables the tool for that
// process; under --sanitize every test the code ran in must say so, none be reported clean.
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

__global__ void one_past_the_end(float* data, int n) { data[n + threadIdx.x] = 1.0f; }

unsigned int blocks_for(std::size_t n) { return static_cast<unsigned int>((n + 255) / 256); }

struct WarmUp {
  WarmUp() {
    float* data = nullptr;
    if (cudaMalloc(&data, 64 * sizeof(float)) != cudaSuccess) return;
    one_past_the_end<<<1, 1>>>(data, 64);
    static_cast<void>(cudaDeviceSynchronize());
    static_cast<void>(cudaFree(data));
    static_cast<void>(cudaGetLastError());
  }
};
const WarmUp warm_up;

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  vector_add_kernel<<<blocks_for(n), 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
