// Lab 11 API: sorting 32-bit unsigned keys on the GPU, first one block at a time (bitonic sort in
// shared memory), then any length (LSB radix sort built on a scan), keys alone and key-value pairs.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including sort.cuh"
#endif

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// Common rules for every function below:
//  - Every array is a device pointer to std::uint32_t; the order is ascending as unsigned
//    numbers (0 first, 0xFFFFFFFF last).
//  - Not in place: inputs are only read (they must come back bit for bit unchanged) and never
//    overlap an output. Arrays need not be 16-byte aligned.
//  - n may be 0 (then pointers may be null and nothing is written); n above 2147483647 (INT_MAX)
//    is refused with cudaErrorInvalidValue.
//  - Asynchronous: everything is queued on `stream` (kernels, cudaMemsetAsync) and the function
//    returns without waiting; no cudaDeviceSynchronize, cudaStreamSynchronize, cudaMalloc or
//    cudaFree inside.
//  - Returns the first error met (a refused argument, or cudaGetLastError() after the launches),
//    cudaSuccess when everything was queued. Errors raised while the kernels run show up at the
//    caller's next synchronisation.

// The largest segment block_sort accepts: one thread block sorts one segment in shared memory.
constexpr unsigned kMaxSegmentSize = 2048;

// Part 1. Sorts each segment of `segment_size` consecutive keys independently:
//   out[s*segment_size .. (s+1)*segment_size) = in[s*segment_size .. (s+1)*segment_size), sorted,
// for every segment s; when n is not a multiple of segment_size the last segment is shorter
// (n - s*segment_size keys) and is sorted alone too. Keys only, so stability does not arise.
// segment_size must be in [1, kMaxSegmentSize] (any value in that range, not only powers of two),
// else cudaErrorInvalidValue (checked before anything else, also when n == 0). No workspace.
cudaError_t block_sort(const std::uint32_t* in, std::uint32_t* out, std::size_t n, unsigned segment_size,
                       cudaStream_t stream = nullptr);

// Scratch memory for the radix sorts comes from the caller: before calling, the caller asks how
// many bytes you need (a pure host function: no CUDA calls) and passes a device buffer of at
// least that size as `workspace` (256-byte aligned, as cudaMalloc returns). Its contents on entry
// are garbage (tests fill it with 0xFF bytes) and the same buffer may be reused by the next call,
// so initialise what you rely on. When you ask for 0 bytes, workspace may be null. A
// workspace_bytes smaller than your own query returned (or a null workspace when you asked for
// more than 0) is refused with cudaErrorInvalidValue. Typical contents: a second buffer of n keys
// (and n values) to sort back and forth through, and the per-block digit counts and their scan.

// Bytes of workspace radix_sort_keys needs for n keys (0 is allowed).
std::size_t radix_sort_keys_workspace_bytes(std::size_t n);

// Part 2. keys_out[0 .. n) = keys_in[0 .. n), sorted ascending.
cudaError_t radix_sort_keys(const std::uint32_t* keys_in, std::uint32_t* keys_out, std::size_t n, void* workspace,
                            std::size_t workspace_bytes, cudaStream_t stream = nullptr);

// Bytes of workspace radix_sort_pairs needs for n pairs (0 is allowed).
std::size_t radix_sort_pairs_workspace_bytes(std::size_t n);

// Part 3. Sorts the pairs (keys_in[i], values_in[i]) by key, STABLY: keys_out is keys_in sorted,
// and values_out[j] is the value that came with keys_out[j]; pairs with equal keys keep the order
// they had in the input (the one with the smaller input index comes first), whatever their
// values. The values are data carried along, never compared. Four distinct arrays.
cudaError_t radix_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                             std::uint32_t* values_out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                             cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
