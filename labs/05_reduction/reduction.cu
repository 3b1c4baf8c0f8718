// Lab 05: your implementation. Fill in the kernels and the three host functions below; the
// handout (README.md) explains the steps, what is tested and what "fast" means. Build and check
// with
//   ./cudalabs check 05_reduction
//
// A plan that works for all three functions (see the handout for why each step is there):
//   pass 1: many blocks; each thread accumulates a grid-stride share of the input in a register,
//           then the block combines its threads' values (warp shuffles, then shared memory) and
//           thread 0 writes one partial result per block into the workspace;
//   pass 2: one block combines the partial results and writes *result.
// Writing the kernel once as a template over the operation (sum or max) and the element type
// (int or float) saves you from writing it three times, but three plain copies are fine too.
#include <cmath>

#include "reduction.cuh"

namespace LAB_IMPL {

// Pass 1: block b writes the combination of its share of in[0, n) to partials[b].
__global__ void sum_float_blocks(const float* in, std::size_t n, float* partials) {
  // TODO(student):
  //  1. Each thread: float acc = 0; then a grid-stride loop over in[0, n) adding into acc.
  //  2. Combine the 32 values of each warp with __shfl_down_sync (5 steps: offsets 16, 8, 4, 2, 1).
  //  3. Lane 0 of each warp stores its value in __shared__ memory; __syncthreads(); the first warp
  //     combines those values the same way.
  //  4. Thread 0 writes partials[blockIdx.x].
  static_cast<void>(in);
  static_cast<void>(n);
  static_cast<void>(partials);
}

// Pass 2: one block combines partials[0, count) and writes *result (0.0f when count == 0).
__global__ void sum_float_partials(const float* partials, unsigned count, float* result) {
  // TODO(student): the same block-wide combination as pass 1, over `count` values.
  static_cast<void>(partials);
  static_cast<void>(count);
  static_cast<void>(result);
}

cudaError_t sum_int(const int* in, std::size_t n, int* result, void* workspace, cudaStream_t stream) {
  // TODO(student): like sum_float, with int elements. Add as unsigned
  // (static_cast<unsigned>(a) + static_cast<unsigned>(b)) so an overflow wraps around modulo
  // 2^32 as the contract says, instead of being undefined behaviour.
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(n);
  static_cast<void>(result);
  static_cast<void>(workspace);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t sum_float(const float* in, std::size_t n, float* result, void* workspace, cudaStream_t stream) {
  // TODO(student):
  //  1. If n == 0, there is nothing to read but *result must still become 0.0f: launch pass 2
  //     with count = 0 (a launch with 0 blocks is an error).
  //  2. Choose the grid: a fixed number of blocks (e.g. a few per multiprocessor; ask
  //     cudaDeviceGetAttribute(..., cudaDevAttrMultiProcessorCount, ...) once), but not more
  //     than the input needs and not more partials than the workspace holds
  //     (kReductionWorkspaceBytes / sizeof(float)).
  //  3. Launch pass 1 on `stream` with partials = static_cast<float*>(workspace), then pass 2
  //     with count = the number of blocks of pass 1.
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(n);
  static_cast<void>(result);
  static_cast<void>(workspace);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t max_float(const float* in, std::size_t n, float* result, void* workspace, cudaStream_t stream) {
  // TODO(student): like sum_float, combining with fmaxf and starting from -INFINITY (the
  // identity of max; fmaxf also ignores NaN elements, as the contract asks).
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(n);
  static_cast<void>(result);
  static_cast<void>(workspace);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
