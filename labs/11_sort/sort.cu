// Lab 11: your implementation. Fill in the kernels and the host functions below; the handout
// (README.md) explains the steps, what is tested and what "fast" means. Build and check with
//   ./cudalabs check 11_sort
//
// The outline follows the handout: a bitonic sort in shared memory (part 1), then an LSB radix
// sort whose every pass is "count digits per block, scan the counts, scatter stably" (parts 2 and
// 3). You may restructure it entirely: only the functions declared in sort.cuh are called by the
// tests.
#include <cstddef>
#include <cstdint>

#include "sort.cuh"

namespace LAB_IMPL {

// ---- Part 1 ---------------------------------------------------------------------------------

// One block sorts one segment of `segment_size` keys (the last one may be shorter) in shared
// memory, padded to `padded_size` (the next power of two) with keys that sort last.
__global__ void bitonic_segments_kernel(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                                        unsigned segment_size, unsigned padded_size) {
  // TODO(student): load the segment into shared memory (coalesced; 0xFFFFFFFF past its end),
  // run the bitonic network (for k = 2, 4, ..., padded_size; for j = k/2, ..., 1: compare-and-swap
  // i with i + j, ascending when (i & k) == 0; __syncthreads() after every step), and write back
  // the segment's own keys.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(n);
  static_cast<void>(segment_size);
  static_cast<void>(padded_size);
}

cudaError_t block_sort(const std::uint32_t* in, std::uint32_t* out, std::size_t n, unsigned segment_size,
                       cudaStream_t stream) {
  // TODO(student):
  //  1. Refuse segment_size == 0, segment_size > kMaxSegmentSize and n > INT_MAX
  //     (cudaErrorInvalidValue); return cudaSuccess when n == 0, launching nothing.
  //  2. One block per segment: ceil(n / segment_size) blocks of padded_size / 2 threads (at least
  //     32), padded_size the smallest power of two >= segment_size.
  //  3. Return cudaGetLastError(). Everything on `stream`; no synchronisation.
  // Delete the lines below once you have done that.
  static_cast<void>(in);
  static_cast<void>(out);
  static_cast<void>(n);
  static_cast<void>(segment_size);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

// ---- Parts 2 and 3 ----------------------------------------------------------------------------

// Pass step 1: block b counts the digits (key >> shift) & 255 of its tile of keys and writes
// counts[digit * tiles + b] (digit-major, so that one exclusive scan of the whole array gives
// every block the output position of each of its digits).
__global__ void digit_counts_kernel(const std::uint32_t* keys, std::size_t n, int shift, unsigned* counts,
                                    unsigned tiles) {
  // TODO(student): a shared-memory histogram of the tile's digits (lab 07), then one thread per
  // digit writes its count. Keys at or past n do not exist.
  static_cast<void>(keys);
  static_cast<void>(n);
  static_cast<void>(shift);
  static_cast<void>(counts);
  static_cast<void>(tiles);
}

// Pass step 3: block b places each of its keys (and values) at
//   scanned_counts[digit * tiles + b] + (number of keys before it in the tile with the same digit).
__global__ void scatter_kernel(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                               std::uint32_t* values_out, std::size_t n, int shift, const unsigned* scanned_counts,
                               unsigned tiles) {
  // TODO(student): rank the tile's keys by digit, STABLY (a key's rank counts only the keys with
  // the same digit that come before it in the input), then write them out; values_in/values_out
  // are null for radix_sort_keys.
  static_cast<void>(keys_in);
  static_cast<void>(keys_out);
  static_cast<void>(values_in);
  static_cast<void>(values_out);
  static_cast<void>(n);
  static_cast<void>(shift);
  static_cast<void>(scanned_counts);
  static_cast<void>(tiles);
}

std::size_t radix_sort_keys_workspace_bytes(std::size_t n) {
  // TODO(student): a second buffer of n keys (the passes go back and forth between it and
  // keys_out), the counts (256 per tile) and whatever scanning them needs.
  static_cast<void>(n);
  return 0;
}

cudaError_t radix_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream) {
  // TODO(student):
  //  1. Refuse n > INT_MAX and a workspace smaller than radix_sort_keys_workspace_bytes(n)
  //     (cudaErrorInvalidValue); return cudaSuccess when n == 0.
  //  2. For shift = 0, 8, 16, 24: digit_counts_kernel, an exclusive scan of the counts (lab 06),
  //     scatter_kernel. Read keys_in in the first pass and never write it; make the last pass
  //     write keys_out (4 passes: keys_in -> tmp -> keys_out -> tmp -> keys_out).
  //  3. Return cudaGetLastError(). Everything on `stream`; no synchronisation.
  // Delete the lines below once you have done that.
  static_cast<void>(keys_in);
  static_cast<void>(keys_out);
  static_cast<void>(n);
  static_cast<void>(workspace);
  static_cast<void>(workspace_bytes);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

std::size_t radix_sort_pairs_workspace_bytes(std::size_t n) {
  // TODO(student): as for keys, plus a second buffer of n values.
  static_cast<void>(n);
  return 0;
}

cudaError_t radix_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                             std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream) {
  // TODO(student): the same passes as radix_sort_keys; every scatter moves each value with its
  // key. Equal keys must keep their input order (the tests give them values in every order).
  // Delete the lines below once you have done that.
  static_cast<void>(keys_in);
  static_cast<void>(keys_out);
  static_cast<void>(values_in);
  static_cast<void>(values_out);
  static_cast<void>(n);
  static_cast<void>(workspace);
  static_cast<void>(workspace_bytes);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
