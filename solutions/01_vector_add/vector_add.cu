// Lab 01 reference: vector_add and saxpy at memory bandwidth.
//
// Both operations do almost no arithmetic per byte, so the only goal is to keep the memory
// system busy:
//  - a grid-stride loop over a grid sized to fill the GPU once (a few blocks per SM), instead of
//    one thread per element, so launch size does not grow with n and every thread does work;
//  - 16-byte float4 loads and stores (fewer, wider memory transactions). When all pointers are
//    equally misaligned, up to 3 leading elements are done one by one ("peeled") so the rest
//    start on a 16-byte boundary; the last (n - head) % 4 elements are a scalar tail;
//  - a scalar grid-stride loop, four elements per thread per trip, when the pointers are
//    misaligned by different amounts and float4 cannot line up for all of them.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "vector_add.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kThreadsPerBlock = 256;
// 8 blocks of 256 threads = 2048 threads, the most one SM can hold on recent GPUs: enough loads
// in flight to cover memory latency.
constexpr int kBlocksPerSm = 8;
constexpr int kMaxCachedDevices = 64;

// cudaDeviceGetAttribute is cheap but not free; ask once per device.
cudaError_t multiprocessor_count(int* count) {
  static std::atomic<int> cache[kMaxCachedDevices] = {};
  int device = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  if (device >= 0 && device < kMaxCachedDevices) {
    *count = cache[device].load(std::memory_order_relaxed);
    if (*count > 0) return cudaSuccess;
  }
  if (const cudaError_t status = cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
      status != cudaSuccess) {
    return status;
  }
  if (device >= 0 && device < kMaxCachedDevices) cache[device].store(*count, std::memory_order_relaxed);
  return cudaSuccess;
}

// Enough blocks for `items` work items, but no more than fill the GPU once; at least one.
cudaError_t grid_for(std::size_t items, unsigned* blocks) {
  int sms = 0;
  if (const cudaError_t status = multiprocessor_count(&sms); status != cudaSuccess) return status;
  const std::size_t needed = (items + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const std::size_t full = static_cast<std::size_t>(sms) * kBlocksPerSm;
  *blocks = static_cast<unsigned>(needed == 0 ? 1 : (needed < full ? needed : full));
  return cudaSuccess;
}

std::uintptr_t misalignment16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; }

// Elements before p reaches a 16-byte boundary (0 to 3), at most n.
unsigned head_elements(const float* p, std::size_t n) {
  const std::size_t head = (16 - misalignment16(p)) % 16 / sizeof(float);
  return static_cast<unsigned>(head < n ? head : n);
}

__device__ __forceinline__ std::size_t first_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_stride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// --- vector_add ------------------------------------------------------------------------------

// Requires a + head, b + head and c + head to be 16-byte aligned.
__global__ void vector_add_vec4(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ c, std::size_t n, unsigned head) {
  const std::size_t t = first_index();
  if (t < head) c[t] = a[t] + b[t];

  const std::size_t quads = (n - head) / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a + head);
  const float4* b4 = reinterpret_cast<const float4*>(b + head);
  float4* c4 = reinterpret_cast<float4*>(c + head);
  for (std::size_t i = t; i < quads; i += grid_stride()) {
    const float4 x = a4[i];
    const float4 y = b4[i];
    c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }

  const std::size_t tail = head + quads * 4 + t;  // at most 3 elements, one thread each
  if (tail < n) c[tail] = a[tail] + b[tail];
}

// 4-byte accesses, so each thread handles 4 elements per trip (one grid stride apart, still
// coalesced across the warp) to keep more loads in flight.
__global__ void vector_add_scalar(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, std::size_t n) {
  const std::size_t stride = grid_stride();
  std::size_t i = first_index();
  for (; i + 3 * stride < n; i += 4 * stride) {
    float x[4], y[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) x[k] = a[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) y[k] = b[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) c[i + k * stride] = x[k] + y[k];
  }
  for (; i < n; i += stride) c[i] = a[i] + b[i];
}

// --- saxpy -----------------------------------------------------------------------------------

// Requires x + head and y + head to be 16-byte aligned.
__global__ void saxpy_vec4(float alpha, const float* __restrict__ x, float* __restrict__ y, std::size_t n,
                           unsigned head) {
  const std::size_t t = first_index();
  if (t < head) y[t] = alpha * x[t] + y[t];

  const std::size_t quads = (n - head) / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x + head);
  float4* y4 = reinterpret_cast<float4*>(y + head);
  for (std::size_t i = t; i < quads; i += grid_stride()) {
    const float4 u = x4[i];
    float4 v = y4[i];
    v.x = alpha * u.x + v.x;
    v.y = alpha * u.y + v.y;
    v.z = alpha * u.z + v.z;
    v.w = alpha * u.w + v.w;
    y4[i] = v;
  }

  const std::size_t tail = head + quads * 4 + t;
  if (tail < n) y[tail] = alpha * x[tail] + y[tail];
}

__global__ void saxpy_scalar(float alpha, const float* __restrict__ x, float* __restrict__ y, std::size_t n) {
  const std::size_t stride = grid_stride();
  std::size_t i = first_index();
  for (; i + 3 * stride < n; i += 4 * stride) {
    float u[4], v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) u[k] = x[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = y[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) y[i + k * stride] = alpha * u[k] + v[k];
  }
  for (; i < n; i += stride) y[i] = alpha * x[i] + y[i];
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  unsigned blocks = 0;
  if (misalignment16(a) == misalignment16(c) && misalignment16(b) == misalignment16(c)) {
    const unsigned head = head_elements(c, n);
    if (const cudaError_t status = grid_for((n - head) / 4, &blocks); status != cudaSuccess) return status;
    vector_add_vec4<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n, head);
  } else {
    if (const cudaError_t status = grid_for(n, &blocks); status != cudaSuccess) return status;
    vector_add_scalar<<<blocks, kThreadsPerBlock, 0, stream>>>(a, b, c, n);
  }
  return cudaGetLastError();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  unsigned blocks = 0;
  if (misalignment16(x) == misalignment16(y)) {
    const unsigned head = head_elements(y, n);
    if (const cudaError_t status = grid_for((n - head) / 4, &blocks); status != cudaSuccess) return status;
    saxpy_vec4<<<blocks, kThreadsPerBlock, 0, stream>>>(alpha, x, y, n, head);
  } else {
    if (const cudaError_t status = grid_for(n, &blocks); status != cudaSuccess) return status;
    saxpy_scalar<<<blocks, kThreadsPerBlock, 0, stream>>>(alpha, x, y, n);
  }
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
