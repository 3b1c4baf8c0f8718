// Adversarial (no data survives the L2 flush): correct but slow (a grid of 32 blocks keeps too
// few loads in flight), and every launch asks for the largest persisting-L2 carve-out and marks
// its first input persisting (an access policy window), hoping the flush between timed samples,
// which only reads a large buffer, cannot evict those lines. The engine resets persisting lines
// and the carve-out limit before every flush, and the inputs are regenerated for every sample
// anyway. Fair grade: 80 (correct; no timed points).
#include <algorithm>

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

// Carve out as much persisting L2 as the device allows; fills `window` to cover `data`.
cudaError_t persist(const void* data, std::size_t bytes, cudaLaunchAttribute* window) {
  int device = 0;
  int max_persisting = 0;
  int max_window = 0;
  if (cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  if (cudaError_t status = cudaDeviceGetAttribute(&max_persisting, cudaDevAttrMaxPersistingL2CacheSize, device);
      status != cudaSuccess) {
    return status;
  }
  if (cudaError_t status = cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, device);
      status != cudaSuccess) {
    return status;
  }
  if (max_persisting > 0) {
    if (cudaError_t status = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(max_persisting));
        status != cudaSuccess) {
      return status;
    }
  }
  window->id = cudaLaunchAttributeAccessPolicyWindow;
  window->val.accessPolicyWindow.base_ptr = const_cast<void*>(data);
  window->val.accessPolicyWindow.num_bytes = std::min(bytes, static_cast<std::size_t>(max_window));
  window->val.accessPolicyWindow.hitRatio = 1.0f;
  window->val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window->val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  return cudaSuccess;
}

cudaLaunchConfig_t slow_config(cudaStream_t stream, cudaLaunchAttribute* window, int attributes) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kSlowBlocks);
  config.blockDim = dim3(kThreads);
  config.stream = stream;
  config.attrs = window;
  config.numAttrs = static_cast<unsigned>(attributes);
  return config;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  cudaLaunchAttribute window{};
  if (cudaError_t status = persist(a, n * sizeof(float), &window); status != cudaSuccess) return status;
  const int attributes = window.val.accessPolicyWindow.num_bytes > 0 ? 1 : 0;
  const cudaLaunchConfig_t config = slow_config(stream, &window, attributes);
  return cudaLaunchKernelEx(&config, add_slowly, a, b, c, n);
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  cudaLaunchAttribute window{};
  if (cudaError_t status = persist(x, n * sizeof(float), &window); status != cudaSuccess) return status;
  const int attributes = window.val.accessPolicyWindow.num_bytes > 0 ? 1 : 0;
  const cudaLaunchConfig_t config = slow_config(stream, &window, attributes);
  return cudaLaunchKernelEx(&config, saxpy_slowly, alpha, x, y, n);
}

}  // namespace student
