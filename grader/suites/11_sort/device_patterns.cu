// The seeded key and value patterns of lab11_test_support.cuh, made on the device.
#include "device_patterns.cuh"

#include "cudalabs/cuda_check.hpp"

namespace lab11 {
namespace {

constexpr unsigned kBlocks = 1024;
constexpr unsigned kThreads = 256;

__global__ void keys_kernel(std::uint32_t* out, std::size_t n, Pattern pattern, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    out[i] = pattern_key(pattern, seed, i, n);
  }
}

__global__ void values_kernel(std::uint32_t* out, std::size_t n, std::uint64_t seed) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    out[i] = pattern_value(seed, i);
  }
}

}  // namespace

void fill_keys(std::uint32_t* device_out, std::size_t n, Pattern pattern, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return;
  keys_kernel<<<kBlocks, kThreads, 0, stream>>>(device_out, n, pattern, seed);
  CUDALABS_CHECK_LAUNCH();
}

void fill_values(std::uint32_t* device_out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  if (n == 0) return;
  values_kernel<<<kBlocks, kThreads, 0, stream>>>(device_out, n, seed);
  CUDALABS_CHECK_LAUNCH();
}

}  // namespace lab11
