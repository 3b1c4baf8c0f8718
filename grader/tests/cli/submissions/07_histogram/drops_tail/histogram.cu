// Border-case fixture for lab 07: the reference's fast privatized kernel, but it forgets the
// ragged tail (the bytes after the last whole 16-byte vector). Fast and right when n - head is a
// multiple of 16 (the 2^28 cases, so both timed cases pass), wrong on every ragged size: it must
// lose the public SharedSmall and the hidden Shared cases with odd sizes.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "histogram.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kWarpSize = 32;
constexpr int kThreadsPerBlock = 512;
constexpr int kBlocksPerSm = 3;
// The global-atomics kernel has no shared memory: 4 blocks of 512 fill an SM's 2048 threads.
constexpr int kGlobalBlocksPerSm = 4;
constexpr int kVectorBytes = 16;
// One copy of the 256 counters per warp lane: 32 KiB of shared memory per block.
constexpr int kSharedCounters = kHistogramBins * kWarpSize;
constexpr int kMaxCachedDevices = 64;
constexpr unsigned kBinsBytes = kHistogramBins * sizeof(unsigned int);

// The multiprocessor count, asked once per device; on that first call the privatized kernel also
// asks for the largest shared-memory carveout, so 3 blocks of 32 KiB fit on every SM.
template <class Kernel>
cudaError_t prepare_device(Kernel kernel, int* multiprocessors) {
  static std::atomic<int> cache[kMaxCachedDevices] = {};
  int device = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  const bool cacheable = device >= 0 && device < kMaxCachedDevices;
  if (cacheable) {
    *multiprocessors = cache[device].load(std::memory_order_relaxed);
    if (*multiprocessors > 0) return cudaSuccess;
  }
  if (const cudaError_t status = cudaDeviceGetAttribute(multiprocessors, cudaDevAttrMultiProcessorCount, device);
      status != cudaSuccess) {
    return status;
  }
  if (const cudaError_t status =
          cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
      status != cudaSuccess) {
    return status;
  }
  if (cacheable) cache[device].store(*multiprocessors, std::memory_order_relaxed);
  return cudaSuccess;
}

__device__ __forceinline__ std::size_t first_index() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_stride() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// --- step 1: global atomics ------------------------------------------------------------------

__global__ void histogram_global_kernel(const unsigned char* __restrict__ data, std::size_t n,
                                        unsigned int* __restrict__ bins) {
  for (std::size_t i = first_index(); i < n; i += grid_stride()) atomicAdd(&bins[data[i]], 1u);
}

// --- step 2: privatized in shared memory -----------------------------------------------------

// lane_bins points at this lane's copy: bin b is lane_bins[b * kWarpSize] (bank = lane).
__device__ __forceinline__ void count_byte(unsigned int* lane_bins, unsigned byte) {
  atomicAdd(lane_bins + byte * kWarpSize, 1u);
}

__device__ __forceinline__ void count_word(unsigned int* lane_bins, unsigned word) {
#pragma unroll
  for (int k = 0; k < 4; ++k) count_byte(lane_bins, (word >> (8 * k)) & 0xFFu);
}

__device__ __forceinline__ void count_vector(unsigned int* lane_bins, uint4 v) {
  // Aggregate before the atomic: 16 equal bytes (the contention case) are one update of 16.
  const unsigned first = v.x & 0xFFu;
  const unsigned splat = first * 0x01010101u;
  if (v.x == splat && v.y == splat && v.z == splat && v.w == splat) {
    atomicAdd(lane_bins + first * kWarpSize, static_cast<unsigned>(kVectorBytes));
    return;
  }
  count_word(lane_bins, v.x);
  count_word(lane_bins, v.y);
  count_word(lane_bins, v.z);
  count_word(lane_bins, v.w);
}

// data + head is 16-byte aligned (head <= 15, head <= n).
__global__ void __launch_bounds__(kThreadsPerBlock, kBlocksPerSm)
    histogram_privatized_kernel(const unsigned char* __restrict__ data, std::size_t n, unsigned head,
                                unsigned int* __restrict__ bins) {
  __shared__ unsigned int counters[kSharedCounters];
  for (int i = threadIdx.x; i < kSharedCounters; i += blockDim.x) counters[i] = 0;
  __syncthreads();  // every copy is zero before any thread counts into it

  unsigned int* lane_bins = counters + threadIdx.x % kWarpSize;
  const std::size_t t = first_index();
  const std::size_t stride = grid_stride();
  const std::size_t vectors = (n - head) / kVectorBytes;
  const uint4* vec = reinterpret_cast<const uint4*>(data + head);

  // Two independent 16-byte loads per trip keep enough bytes in flight to cover DRAM latency.
  // __ldcs: each byte is read once, so do not let it push other lines out of the caches.
  std::size_t i = t;
  for (; i + stride < vectors; i += 2 * stride) {
    const uint4 a = __ldcs(vec + i);
    const uint4 b = __ldcs(vec + i + stride);
    count_vector(lane_bins, a);
    count_vector(lane_bins, b);
  }
  if (i < vectors) count_vector(lane_bins, __ldcs(vec + i));

  // The unaligned head and the ragged tail, at most 15 bytes each, one per thread.
  if (t < head) count_byte(lane_bins, data[t]);
  // BUG (on purpose): the last (n - head) % 16 bytes, after the last whole vector, are never counted.
  __syncthreads();  // every count is in shared memory before the merge reads it

  // Merge: thread b sums the 32 copies of bin b, starting at a different lane per thread so a
  // warp's 32 reads fall in 32 different banks, then does one global atomic (none for an empty bin).
  for (int bin = threadIdx.x; bin < kHistogramBins; bin += blockDim.x) {
    unsigned int total = 0;
#pragma unroll 8
    for (int k = 0; k < kWarpSize; ++k) total += counters[bin * kWarpSize + (bin + k) % kWarpSize];
    if (total != 0) atomicAdd(&bins[bin], total);
  }
}

}  // namespace

cudaError_t histogram_global_atomics(const unsigned char* data, std::size_t n, unsigned int* bins,
                                     cudaStream_t stream) {
  // The kernel only adds, so the counters start from zero, in stream order before it.
  if (const cudaError_t status = cudaMemsetAsync(bins, 0, kBinsBytes, stream); status != cudaSuccess) return status;
  if (n == 0) return cudaSuccess;
  int sms = 0;
  if (const cudaError_t status = prepare_device(histogram_privatized_kernel, &sms); status != cudaSuccess) {
    return status;
  }
  const std::size_t needed = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const std::size_t full = static_cast<std::size_t>(sms) * kGlobalBlocksPerSm;
  const unsigned blocks = static_cast<unsigned>(needed < full ? needed : full);
  histogram_global_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(data, n, bins);
  return cudaGetLastError();
}

cudaError_t histogram_shared(const unsigned char* data, std::size_t n, unsigned int* bins, cudaStream_t stream) {
  if (const cudaError_t status = cudaMemsetAsync(bins, 0, kBinsBytes, stream); status != cudaSuccess) return status;
  if (n == 0) return cudaSuccess;
  int sms = 0;
  if (const cudaError_t status = prepare_device(histogram_privatized_kernel, &sms); status != cudaSuccess) {
    return status;
  }
  // Bytes before data reaches a 16-byte boundary, at most n.
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(data) % kVectorBytes;
  const std::size_t to_boundary = (kVectorBytes - misalignment) % kVectorBytes;
  const unsigned head = static_cast<unsigned>(to_boundary < n ? to_boundary : n);
  // Enough threads for one vector each (at least one block, whose threads also take the head
  // and tail), but no more blocks than fill the GPU once.
  const std::size_t vectors = (n - head) / kVectorBytes;
  const std::size_t needed = (vectors + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const std::size_t full = static_cast<std::size_t>(sms) * kBlocksPerSm;
  const unsigned blocks = static_cast<unsigned>(needed == 0 ? 1 : (needed < full ? needed : full));
  histogram_privatized_kernel<<<blocks, kThreadsPerBlock, 0, stream>>>(data, n, head, bins);
  return cudaGetLastError();
}

}  // namespace LAB_IMPL
