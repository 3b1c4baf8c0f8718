// Lab 07: your implementation. Fill in the two kernels and the two host functions below; the
// handout (README.md) explains what is tested and what "fast" means. Build and check with
//   ./cudalabs check 07_histogram
#include "histogram.cuh"

namespace LAB_IMPL {

// Step 1: one atomicAdd on the global counters per byte.
__global__ void histogram_global_kernel(const unsigned char* data, std::size_t n, unsigned int* bins) {
  // TODO(student): walk the bytes with a grid-stride loop (index i from blockIdx, blockDim and
  // threadIdx, step gridDim.x * blockDim.x, stop at i < n) and do atomicAdd(&bins[data[i]], 1u).
  // data is unsigned char on purpose: a plain char may be signed and give negative bin indices.
  static_cast<void>(data);
  static_cast<void>(n);
  static_cast<void>(bins);
}

// Step 2: a private histogram per block in shared memory, merged into bins at the end.
__global__ void histogram_shared_kernel(const unsigned char* data, std::size_t n, unsigned int* bins) {
  // TODO(student):
  //  1. Declare __shared__ unsigned int local[kHistogramBins]; let the block's threads set it to
  //     0 (a loop over the bins with step blockDim.x), then __syncthreads().
  //  2. Grid-stride loop over the bytes: atomicAdd(&local[data[i]], 1u) (a shared-memory atomic:
  //     far cheaper than a global one, and only this block's threads compete for it).
  //  3. __syncthreads(), then add each non-zero local[b] to bins[b] with one global atomicAdd.
  //  4. Then make it fast on every kind of data (see the handout's hints: when all bytes are
  //     equal, every thread of the block wants the same counter at the same time).
  static_cast<void>(data);
  static_cast<void>(n);
  static_cast<void>(bins);
}

cudaError_t histogram_global_atomics(const unsigned char* data, std::size_t n, unsigned int* bins,
                                     cudaStream_t stream) {
  // TODO(student):
  //  1. Zero the 256 counters on `stream`: cudaMemsetAsync(bins, 0, kHistogramBins * sizeof(unsigned int), stream).
  //     Return its error if it fails.
  //  2. If n == 0, return cudaSuccess: the bins are already right, and a launch of 0 blocks is an error.
  //  3. Launch histogram_global_kernel<<<blocks, threads, 0, stream>>>(data, n, bins) with a grid
  //     that covers n (or a few blocks per multiprocessor and a grid-stride loop).
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(data);
  static_cast<void>(n);
  static_cast<void>(bins);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t histogram_shared(const unsigned char* data, std::size_t n, unsigned int* bins, cudaStream_t stream) {
  // TODO(student): the same four steps as histogram_global_atomics, launching
  // histogram_shared_kernel. Here the grid size matters: every block pays for zeroing and merging
  // its private histogram, so launch a few blocks per multiprocessor (ask the device how many it
  // has, once) and let the grid-stride loop do the rest.
  // Delete the lines below once you have done that.
  static_cast<void>(data);
  static_cast<void>(n);
  static_cast<void>(bins);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
