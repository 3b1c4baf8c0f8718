// Adversarial (a timed call must do the work): correct but slow (a grid of 32 blocks keeps too
// few loads in flight), and when called again with the same arguments it does nothing, since the
// earlier result is still in the output. Timed on the same buffers over and over, it once showed
// 645277 GB/s and scored 100. Every timed sample now gets fresh inputs and a poisoned output, so
// a skipped call's output is wrong and the check after it says so; and since each of a sample's
// eight calls has arrays of its own, it is never even called twice in a row with the same ones.
// Fair grade: 80 (correct; no timed points).
#include "vector_add.cuh"

namespace student {
namespace {

constexpr unsigned kSlowBlocks = 32;
constexpr unsigned kThreads = 256;

__global__ void add_slowly(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void saxpy_slowly(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

struct Call {
  const void* in1 = nullptr;
  const void* in2 = nullptr;
  const void* out = nullptr;
  std::size_t n = 0;
  float alpha = 0;
  bool operator==(const Call& o) const {
    return in1 == o.in1 && in2 == o.in2 && out == o.out && n == o.n && alpha == o.alpha;
  }
};

Call last_add;
Call last_saxpy;

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const Call call{a, b, c, n, 0.0f};
  if (call == last_add) return cudaSuccess;  // "c still holds the result"
  last_add = call;
  add_slowly<<<kSlowBlocks, kThreads, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const Call call{x, nullptr, y, n, alpha};
  if (call == last_saxpy) return cudaSuccess;  // "y already holds the result"
  last_saxpy = call;
  saxpy_slowly<<<kSlowBlocks, kThreads, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
