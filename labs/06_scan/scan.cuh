// Lab 06 API: prefix sums (scans) of 32-bit integers and stream compaction built on them.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including scan.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// Common rules for every function below:
//  - `in`, `out` and `count` are device pointers; `in` is only read and must not overlap `out`.
//    They need not be 16-byte aligned.
//  - n may be 0; n above 2147483647 (INT_MAX) is refused with cudaErrorInvalidValue.
//  - The tests keep every partial sum inside the int range, so you need not care about overflow.
//  - Scratch memory comes from the caller: before calling, the caller asks how many bytes you
//    need (`*_workspace_bytes(n)`, a pure host function: no CUDA calls) and passes a device
//    buffer of at least that size as `workspace`. Its contents on entry are garbage (tests fill
//    it with 0xFF bytes), and the same buffer may be reused by the next call, so initialise what
//    you rely on. When you ask for 0 bytes, workspace may be null. A workspace_bytes smaller than
//    your own query returned is refused with cudaErrorInvalidValue.
//  - Asynchronous: everything is queued on `stream` (kernels, cudaMemsetAsync) and the function
//    returns without waiting; no cudaDeviceSynchronize, cudaMalloc or cudaFree inside.
//  - Returns the first error met (a refused argument, or cudaGetLastError() after the launches),
//    cudaSuccess when everything was queued. Errors raised while the kernels run show up at the
//    caller's next synchronisation.

// Bytes of workspace inclusive_scan and exclusive_scan need for n elements (0 is allowed).
std::size_t scan_workspace_bytes(std::size_t n);

// out[i] = in[0] + in[1] + ... + in[i] for every i in [0, n). n == 0: nothing is written.
cudaError_t inclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream = nullptr);

// out[0] = 0 and out[i] = in[0] + ... + in[i-1] for every i in [1, n). n == 0: nothing is written.
cudaError_t exclusive_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream = nullptr);

// Bytes of workspace compact needs for n elements (0 is allowed).
std::size_t compact_workspace_bytes(std::size_t n);

// Stream compaction: copies the elements with in[i] > threshold to out[0], out[1], ..., keeping
// their order, and writes how many there are to *count (one int on the device).
//
// `out` has room for n ints, but only out[0 .. *count) may be written: the elements after the
// kept ones must keep whatever they held. *count is written for every n, including n == 0
// (where it becomes 0, so `count` must always be a valid device pointer; in and out may be null).
cudaError_t compact(const int* in, int* out, int* count, std::size_t n, int threshold, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
