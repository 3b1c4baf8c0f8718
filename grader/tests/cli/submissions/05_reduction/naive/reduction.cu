// Fixture: the "typical student" reduction, correct but without the lab's technique. Each block
// loads one element per thread into shared memory and combines them with interleaved addressing
// (`if (tid % (2 * s) == 0)`: divergent warps, mostly idle threads, a modulo per step, bank
// conflicts), writes one partial per block, and the host launches the same kernel again on the
// partials, one launch per level of the tree, until one value is left.
#include <cmath>

#include "reduction.cuh"

namespace LAB_IMPL {
namespace {

constexpr unsigned kThreads = 256;

struct SumInt {
  using T = int;
  __device__ static int identity() { return 0; }
  __device__ static int combine(int a, int b) { return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b)); }
};
struct SumFloat {
  using T = float;
  __device__ static float identity() { return 0.0f; }
  __device__ static float combine(float a, float b) { return a + b; }
};
struct MaxFloat {
  using T = float;
  __device__ static float identity() { return -INFINITY; }
  __device__ static float combine(float a, float b) { return fmaxf(a, b); }
};

template <class Op>
__global__ void reduce_level(const typename Op::T* in, std::size_t n, typename Op::T* out) {
  __shared__ typename Op::T data[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  data[tid] = i < n ? in[i] : Op::identity();
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) data[tid] = Op::combine(data[tid], data[tid + s]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = data[0];
}

template <class Op>
cudaError_t reduce(const typename Op::T* in, std::size_t n, typename Op::T* result, void* workspace,
                   cudaStream_t stream) {
  using T = typename Op::T;
  // Ping-pong between the two halves of the workspace (2^19 elements each: enough for the
  // 2^18 partials of a 2^26 input).
  T* half[2] = {static_cast<T*>(workspace), static_cast<T*>(workspace) + kReductionWorkspaceBytes / sizeof(T) / 2};
  int level = 0;
  while (true) {
    const std::size_t blocks = (n + kThreads - 1) / kThreads;
    T* out = blocks <= 1 ? result : half[level % 2];
    reduce_level<Op><<<1 > blocks ? 1 : static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, n, out);
    if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) return status;
    if (blocks <= 1) return cudaSuccess;
    in = out;
    n = blocks;
    ++level;
  }
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
