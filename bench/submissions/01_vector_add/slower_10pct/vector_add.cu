// The lab 01 reference made deliberately ~10% slower, for the grading benchmark: after the
// correct float4 pass it reads another 30% of `a` (3n floats moved become 3.3n), keeping the
// result in a register behind a write that never happens so the compiler cannot drop the reads.
#include <cstddef>
#include <cstdint>

#include "vector_add.cuh"

namespace student {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t items) {
  int device = 0, sms = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::size_t needed = (items + kThreads - 1) / kThreads;
  const std::size_t full = static_cast<std::size_t>(sms) * 8;
  return static_cast<int>(needed < full ? (needed > 0 ? needed : 1) : full);
}

__global__ void add_vec4(const float4* a, const float4* b, float4* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  for (std::size_t i = first; i < n / 4; i += stride) {
    const float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const std::size_t tail = n / 4 * 4 + first;
  if (tail < n) reinterpret_cast<float*>(c)[tail] = reinterpret_cast<const float*>(a)[tail] + reinterpret_cast<const float*>(b)[tail];
}

// Reads the first `quads` float4 of `a` again; writes only if the sum is a value it never takes.
__global__ void wasted_read(const float4* a, std::size_t quads, float* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  float sum = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < quads; i += stride) {
    const float4 x = a[i];
    sum += x.x + x.y + x.z + x.w;
  }
  if (sum == 1.0e30f) *sink = sum;
}

__global__ void add_scalar(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void saxpy_scalar(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (!(aligned16(a) && aligned16(b) && aligned16(c))) {  // not what the benchmark times
    add_scalar<<<blocks_for(n), kThreads, 0, stream>>>(a, b, c, n);
    return cudaGetLastError();
  }
  const std::size_t quads = n / 4;
  add_vec4<<<blocks_for(quads), kThreads, 0, stream>>>(reinterpret_cast<const float4*>(a),
                                                      reinterpret_cast<const float4*>(b),
                                                      reinterpret_cast<float4*>(c), n);
  const std::size_t extra = quads * 3 / 10;
  if (extra > 0) wasted_read<<<blocks_for(extra), kThreads, 0, stream>>>(reinterpret_cast<const float4*>(a), extra, c);
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  saxpy_scalar<<<blocks_for(n), kThreads, 0, stream>>>(alpha, x, y, n);
  return cudaGetLastError();
}

}  // namespace student
