// A submission that tries to make a wrong answer pass by writing it everywhere the grader might
// keep the expected output. On large inputs (n >= 2^22) its vector_add
//  - computes a wrong c (a + b + 1),
//  - writes that answer into every allocation it can find around c (allocations sit at
//    predictable offsets from its own buffers; it checks each 2 MiB page with
//    cudaPointerGetAttributes first, so it never faults),
//  - and rewrites its inputs (a = its answer, b = 0), so that a reference computed afterwards
//    from those inputs would agree with it.
// Small inputs get the right answer, and saxpy is honest: only the large vector_add case may
// fail, plus the timed vector_add (its output is checked after timing).
#include <cstdint>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr std::size_t kCheatFrom = std::size_t{1} << 22;
constexpr std::size_t kPage = std::size_t{2} << 20;

__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n, float bias) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i] + bias;
  }
}

__global__ void copy_kernel(const float* from, float* to, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    to[i] = from[i];
  }
}

__global__ void fill_kernel(float* to, std::size_t n, float value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    to[i] = value;
  }
}

__global__ void saxpy_kernel(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

constexpr unsigned int kBlocks = 1024;

unsigned int blocks_for(std::size_t n) { return static_cast<unsigned int>((n + 255) / 256); }

// Whether every 2 MiB page of [p, p + bytes) is device memory this process may write.
bool writable(std::uintptr_t p, std::size_t bytes) {
  for (std::uintptr_t page = p / kPage * kPage; page < p + bytes; page += kPage) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, reinterpret_cast<const void*>(page)) != cudaSuccess ||
        attributes.type != cudaMemoryTypeDevice) {
      static_cast<void>(cudaGetLastError());  // leave no error behind for the grader to see
      return false;
    }
  }
  return true;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < kCheatFrom) {
    add_kernel<<<blocks_for(n), 256, 0, stream>>>(a, b, c, n, 0.0f);
    return cudaGetLastError();
  }
  add_kernel<<<kBlocks, 256, 0, stream>>>(a, b, c, n, 1.0f);
  // Its answer into the neighbours: allocations of the same size, before and after c.
  const std::size_t bytes = n * sizeof(float);
  const std::size_t stride = (bytes + 256 + kPage - 1) / kPage * kPage;
  const auto here = reinterpret_cast<std::uintptr_t>(c);
  for (int k = -6; k <= 6; ++k) {
    if (k == 0) continue;
    const std::uintptr_t there = here + static_cast<std::intptr_t>(k) * static_cast<std::intptr_t>(stride);
    const auto there_ptr = reinterpret_cast<float*>(there);
    if (there_ptr == a || there_ptr == b || !writable(there, bytes)) continue;
    copy_kernel<<<kBlocks, 256, 0, stream>>>(c, there_ptr, n);
  }
  // And inputs that agree with it: a + b == c, exactly.
  copy_kernel<<<kBlocks, 256, 0, stream>>>(c, const_cast<float*>(a), n);
  fill_kernel<<<kBlocks, 256, 0, stream>>>(const_cast<float*>(b), n, 0.0f);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  saxpy_kernel<<<blocks_for(n), 256, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
