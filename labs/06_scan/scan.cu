// Lab 06: your implementation. Fill in the kernels and the host functions below; the handout
// (README.md) explains the steps, what is tested and what "fast" means. Build and check with
//   ./cudalabs check 06_scan
//
// The outline below is the three-pass "reduce, scan the block sums, scan and add" plan from the
// handout. You may replace it entirely (e.g. by a single-pass scan with decoupled look-back):
// only the functions declared in scan.cuh are called by the tests.
#include <cstddef>

#include "scan.cuh"

namespace LAB_IMPL {

// Pass 1: block b writes the sum of its chunk of `in` to block_sums[b] (e.g. 256 threads per
// block, each block owning a chunk of 256 * 4 elements).
__global__ void block_sums_kernel(const int* in, int* block_sums, std::size_t n) {
  // TODO(student): each block sums its own chunk of the input (a shared-memory or warp-shuffle
  // reduction, as in lab 05) and thread 0 writes the result to block_sums[blockIdx.x].
  // Elements at or past n do not exist: treat them as 0.
  static_cast<void>(in);
  static_cast<void>(block_sums);
  static_cast<void>(n);
}

// Pass 3: block b scans its chunk again and adds block_offsets[b], the (exclusive) scan of the
// block sums, i.e. the sum of every element before the chunk.
__global__ void scan_chunks_kernel(const int* in, int* out, const int* block_offsets, std::size_t n,
                                   bool inclusive) {
  // TODO(student): load the chunk into shared memory (coalesced), scan it within the block,
  // add block_offsets[blockIdx.x] and write the inclusive or exclusive result for i < n.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(block_offsets);
  static_cast<void>(n);
  static_cast<void>(inclusive);
}

std::size_t scan_workspace_bytes(std::size_t n) {
  // TODO(student): return how many bytes of scratch memory your scan needs for n elements, e.g.
  // one int per block for the block sums (and room for whatever scanning them needs in turn).
  static_cast<void>(n);
  return 0;
}

cudaError_t inclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream) {
  // TODO(student):
  //  1. Refuse n > INT_MAX and a workspace smaller than scan_workspace_bytes(n)
  //     (cudaErrorInvalidValue); return cudaSuccess when n == 0, launching nothing.
  //  2. Pass 1: block_sums_kernel into the workspace.
  //  3. Pass 2: an exclusive scan of the block sums (one block if they fit, else the same
  //     plan again, one level up).
  //  4. Pass 3: scan_chunks_kernel with inclusive = true.
  //  5. Return cudaGetLastError(). Everything on `stream`; no synchronisation.
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(n);
  static_cast<void>(workspace);
  static_cast<void>(workspace_bytes);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t exclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream) {
  // TODO(student): the same passes as inclusive_scan, with inclusive = false in pass 3.
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(n);
  static_cast<void>(workspace);
  static_cast<void>(workspace_bytes);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

std::size_t compact_workspace_bytes(std::size_t n) {
  // TODO(student): scratch for compaction, e.g. n ints of keep-flags scanned into output
  // positions, plus what scanning them needs.
  static_cast<void>(n);
  return 0;
}

cudaError_t compact(const int* in, int* out, int* count, std::size_t n, int threshold, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream) {
  // TODO(student):
  //  1. Same argument checks as the scans. When n == 0, still set *count to 0
  //     (cudaMemsetAsync(count, 0, sizeof(int), stream)) and return.
  //  2. flags[i] = in[i] > threshold ? 1 : 0, and an exclusive scan of the flags: positions[i] is
  //     where in[i] goes if it is kept.
  //  3. A scatter kernel: out[positions[i]] = in[i] for every kept i; one thread writes
  //     *count = positions[n-1] + flags[n-1]. Never write out[j] for j >= *count.
  //  4. Return cudaGetLastError().
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(count);
  static_cast<void>(n);
  static_cast<void>(threshold);
  static_cast<void>(workspace);
  static_cast<void>(workspace_bytes);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
