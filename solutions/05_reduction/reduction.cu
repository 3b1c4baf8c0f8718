// Lab 05 reference: sum (int, float) and max (float) at memory bandwidth, deterministically.
//
// A reduction reads every element once and does one cheap operation on it, so like lab 01 it is
// limited by memory bandwidth; what makes it hard is combining the per-thread results without
// serialising. The steps, each one of the lab's techniques:
//  1. Grid-stride accumulation: a grid sized to exactly fill the GPU once (occupancy API), each
//     thread summing many elements into registers with 16-byte vector loads, two loads in flight
//     per trip. Almost all the work happens here, with no synchronisation at all.
//  2. Warp shuffles: the 32 values of a warp are combined with __shfl_down_sync in 5 steps,
//     through registers, with no shared memory and no __syncthreads.
//  3. Shared memory, sequential addressing: one value per warp goes to shared memory; after one
//     __syncthreads the first warp combines them (again with shuffles). No `tid % (2*s)` test, so
//     no divergent half-idle warps, and consecutive threads read consecutive words (no bank
//     conflicts).
//  4. A second pass instead of atomics: each block writes its partial to the workspace, and a
//     one-block kernel combines them. The order of operations is then fixed for a given grid, so
//     the float sum is the same bit for bit on every run (float atomicAdd would not be), and
//     float max needs no atomic at all. The second launch costs a few microseconds, about 3% of
//     a 2^26 reduction.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "reduction.cuh"

namespace LAB_IMPL {
namespace {

constexpr int kThreads = 256;         // first pass: 8 warps per block
constexpr int kFinalThreads = 1024;   // second pass: one block, as wide as a block can be
constexpr int kWarpSize = 32;
constexpr int kMaxCachedDevices = 64;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

// The three reductions differ only in element type, identity and combining operation.
struct SumInt {
  using T = int;
  using Vec = int4;
  // Unsigned addition wraps modulo 2^32 by definition (signed overflow is undefined behaviour).
  __device__ static int identity() { return 0; }
  __device__ static int combine(int a, int b) {
    return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
  }
};

struct SumFloat {
  using T = float;
  using Vec = float4;
  __device__ static float identity() { return 0.0f; }
  __device__ static float combine(float a, float b) { return a + b; }
};

struct MaxFloat {
  using T = float;
  using Vec = float4;
  // -inf is the identity of max; fmaxf returns the other operand when one is NaN, which is
  // exactly "NaN elements are ignored".
  __device__ static float identity() { return -INFINITY; }
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
};

template <class Op>
__device__ __forceinline__ typename Op::T combine4(typename Op::T acc, typename Op::Vec v) {
  // Pairwise, so the four lanes do not form one long dependency chain.
  return Op::combine(acc, Op::combine(Op::combine(v.x, v.y), Op::combine(v.z, v.w)));
}

// Step 2: after this, lane 0 holds the combination of the warp's 32 values.
template <class Op>
__device__ __forceinline__ typename Op::T warp_reduce(typename Op::T value) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    value = Op::combine(value, __shfl_down_sync(kFullMask, value, offset));
  }
  return value;
}

// Step 3: after this, thread 0 holds the combination of the block's values. Needs blockDim.x to
// be a multiple of 32 (every lane of every warp takes part in the shuffles).
template <class Op>
__device__ typename Op::T block_reduce(typename Op::T value) {
  __shared__ typename Op::T per_warp[kWarpSize];  // at most 1024 / 32 warps
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  value = warp_reduce<Op>(value);
  if (lane == 0) per_warp[warp] = value;
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / kWarpSize;
    value = warp_reduce<Op>(lane < warps ? per_warp[lane] : Op::identity());
  }
  return value;
}

// Step 1 (+ 2, 3): each block reduces its grid-stride share of in[0, n) to one value in
// out[blockIdx.x]. in + head must be 16-byte aligned (the first `head` elements are done one by
// one); the last (n - head) % 4 elements are a scalar tail.
template <class Op>
__global__ void __launch_bounds__(kThreads) reduce_blocks(const typename Op::T* __restrict__ in, std::size_t n,
                                                          unsigned head, typename Op::T* __restrict__ out) {
  using T = typename Op::T;
  using Vec = typename Op::Vec;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;

  T acc = Op::identity();
  if (first < head) acc = Op::combine(acc, in[first]);

  const std::size_t vecs = (n - head) / 4;
  const Vec* in4 = reinterpret_cast<const Vec*>(in + head);
  std::size_t i = first;
  // Two independent 16-byte loads issued before either is used: more bytes in flight per thread
  // hides more DRAM latency.
  for (; i + stride < vecs; i += 2 * stride) {
    const Vec a = in4[i];
    const Vec b = in4[i + stride];
    acc = Op::combine(combine4<Op>(acc, a), combine4<Op>(Op::identity(), b));
  }
  if (i < vecs) acc = combine4<Op>(acc, in4[i]);

  const std::size_t tail = head + vecs * 4 + first;  // at most 3 elements, one thread each
  if (tail < n) acc = Op::combine(acc, in[tail]);

  acc = block_reduce<Op>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

// Step 4: one block combines `count` partials (0 is fine: the result is the identity).
template <class Op>
__global__ void __launch_bounds__(kFinalThreads) reduce_partials(const typename Op::T* __restrict__ partials,
                                                                 unsigned count, typename Op::T* __restrict__ result) {
  typename Op::T acc = Op::identity();
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc = Op::combine(acc, partials[i]);
  acc = block_reduce<Op>(acc);
  if (threadIdx.x == 0) *result = acc;
}

// The grid that fills the GPU exactly once for reduce_blocks<Op>: as many blocks as can be
// resident together. More would run in a second, partly empty wave; fewer would leave SMs idle.
// Asked once per device and kernel (the answer cannot change).
template <class Op>
cudaError_t resident_blocks(unsigned* blocks) {
  static std::atomic<unsigned> cache[kMaxCachedDevices] = {};
  int device = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  const bool cacheable = device >= 0 && device < kMaxCachedDevices;
  if (cacheable && (*blocks = cache[device].load(std::memory_order_relaxed)) != 0) return cudaSuccess;

  int sms = 0;
  int per_sm = 0;
  if (const cudaError_t status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      status != cudaSuccess) {
    return status;
  }
  if (const cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_blocks<Op>, kThreads, 0);
      status != cudaSuccess) {
    return status;
  }
  *blocks = static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
  if (cacheable) cache[device].store(*blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

// Elements before p reaches a 16-byte boundary (0 to 3), at most n.
unsigned head_elements(const void* p, std::size_t element_bytes, std::size_t n) {
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(p) % 16;
  const std::size_t head = (16 - misaligned) % 16 / element_bytes;
  return static_cast<unsigned>(head < n ? head : n);
}

template <class Op>
cudaError_t reduce(const typename Op::T* in, std::size_t n, typename Op::T* result, void* workspace,
                   cudaStream_t stream) {
  using T = typename Op::T;
  if (result == nullptr || (n != 0 && (in == nullptr || workspace == nullptr))) return cudaErrorInvalidValue;
  if (n == 0) {  // nothing to read, but the identity must still be written
    reduce_partials<Op><<<1, kFinalThreads, 0, stream>>>(nullptr, 0, result);
    return cudaGetLastError();
  }

  unsigned blocks = 0;
  if (const cudaError_t status = resident_blocks<Op>(&blocks); status != cudaSuccess) return status;
  // No more blocks than give each thread two vectors (small inputs need few blocks), and never
  // more partials than the workspace holds.
  const std::size_t per_block = static_cast<std::size_t>(kThreads) * 8;
  const std::size_t useful = (n + per_block - 1) / per_block;
  const std::size_t capacity = kReductionWorkspaceBytes / sizeof(T);
  if (useful < blocks) blocks = static_cast<unsigned>(useful);
  if (capacity < blocks) blocks = static_cast<unsigned>(capacity);

  const unsigned head = head_elements(in, sizeof(T), n);
  if (blocks == 1) {  // one block does it all: skip the second pass
    reduce_blocks<Op><<<1, kThreads, 0, stream>>>(in, n, head, result);
    return cudaGetLastError();
  }
  T* partials = static_cast<T*>(workspace);
  reduce_blocks<Op><<<blocks, kThreads, 0, stream>>>(in, n, head, partials);
  reduce_partials<Op><<<1, kFinalThreads, 0, stream>>>(partials, blocks, result);
  return cudaGetLastError();
}

}  // namespace

cudaError_t sum_int(const int* in, std::size_t n, int* result, void* workspace, cudaStream_t stream) {
  return reduce<SumInt>(in, n, result, workspace, stream);
}

cudaError_t sum_float(const float* in, std::size_t n, float* result, void* workspace, cudaStream_t stream) {
  return reduce<SumFloat>(in, n, result, workspace, stream);
}

cudaError_t max_float(const float* in, std::size_t n, float* result, void* workspace, cudaStream_t stream) {
  return reduce<MaxFloat>(in, n, result, workspace, stream);
}

}  // namespace LAB_IMPL
