// Adversarial (work must not escape the measurement), a variant of own_stream: the first eighth
// of the elements is done on the given stream, the rest by a slow kernel on a second,
// non-blocking stream; a host function queued on the given stream after the first part makes the
// given stream look busy, and completes long before the second part ends. The device-idle check
// after every timed call finds the second stream's work still running (in a grade the runner waits for
// its whole context before answering, so the judge times all the work). Fair grade: 80 (correct;
// no timed points).
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

void CUDART_CB nothing(void*) {}

cudaStream_t second_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t created = nullptr;
    cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
    return created;
  }();
  return stream;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const std::size_t first = n / 8;
  if (first > 0) add_slowly<<<kSlowBlocks, kThreads, 0, stream>>>(a, b, c, first);
  cudaLaunchHostFunc(stream, nothing, nullptr);
  add_slowly<<<kSlowBlocks, kThreads, 0, second_stream()>>>(a + first, b + first, c + first, n - first);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const std::size_t first = n / 8;
  if (first > 0) saxpy_slowly<<<kSlowBlocks, kThreads, 0, stream>>>(alpha, x, y, first);
  cudaLaunchHostFunc(stream, nothing, nullptr);
  saxpy_slowly<<<kSlowBlocks, kThreads, 0, second_stream()>>>(alpha, x + first, y + first, n - first);
  return cudaGetLastError();
}

}  // namespace student
