// Adversarial (work must not escape the measurement): correct but slow (a grid of 32 blocks
// keeps too few loads in flight), launched on a non-blocking stream of its own instead of the
// one it is given, so the call returns and the given stream is empty: the timer once saw nothing
// to wait for and scored it 100. In process, the device-idle check after every timed call finds
// the work still running and fails the case; in a grade, the runner waits for its whole context
// before it answers, so the judge times all the work, and the case fails on speed. The
// correctness tests wait for the whole device and pass. Fair grade: 80.
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

cudaStream_t own_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t created = nullptr;
    cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
    return created;
  }();
  return stream;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t) {
  if (n == 0) return cudaSuccess;
  add_slowly<<<kSlowBlocks, kThreads, 0, own_stream()>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t) {
  if (n == 0) return cudaSuccess;
  saxpy_slowly<<<kSlowBlocks, kThreads, 0, own_stream()>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
