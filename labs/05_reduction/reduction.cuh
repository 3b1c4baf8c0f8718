// Lab 05 API: parallel reduction (sum of ints, sum of floats, maximum of floats) on the GPU.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including reduction.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// Size of the scratch buffer every function below receives (4 MiB = 2^20 ints or floats).
// The caller allocates it on the device (cudaMalloc: 256-byte aligned); its contents are
// undefined on entry (the tests fill it with garbage) and may be left in any state. Use it for
// per-block partial results, counters, anything; never touch memory past its end. One buffer
// serves one call at a time: calls that run concurrently need separate buffers.
inline constexpr std::size_t kReductionWorkspaceBytes = std::size_t{4} << 20;

// Common contract of the three functions:
//  - `in` is a device pointer to n elements, only read. It is 4-byte aligned but need not be
//    16-byte aligned. When n == 0 it may be null.
//  - `result` is a device pointer to ONE element, always valid (also when n == 0). Its contents
//    are undefined on entry; the function writes the answer there (on the device, on `stream`).
//  - `workspace` is a device pointer to kReductionWorkspaceBytes bytes (see above), never null.
//  - Asynchronous: the work is queued on `stream` and the function returns without waiting for
//    it (no cudaDeviceSynchronize, no copy of the answer to the host). Returns the launch error
//    (cudaGetLastError() after the last launch), cudaSuccess when every launch was accepted;
//    errors raised while the kernels run show up at the caller's next synchronisation.

// *result = in[0] + in[1] + ... + in[n-1], exactly, with two's-complement wrap-around: the sum
// is taken modulo 2^32 (as unsigned 32-bit addition does), so the answer does not depend on the
// order of the additions even when it overflows. n == 0 gives 0.
cudaError_t sum_int(const int* in, std::size_t n, int* result, void* workspace, cudaStream_t stream = nullptr);

// *result = in[0] + in[1] + ... + in[n-1] in float arithmetic, in any order. Float addition is
// not associative, so different orders give slightly different answers: the tests accept an
// error of a small multiple of |in[0]| + ... + |in[n-1]| (see README.md). n == 0 gives +0.0f.
cudaError_t sum_float(const float* in, std::size_t n, float* result, void* workspace,
                      cudaStream_t stream = nullptr);

// *result = the largest of in[0..n-1]. NaN elements are ignored (as fmaxf does: fmaxf(x, NaN)
// is x), so the result is the maximum of the other elements; when there are none (n == 0, or
// every element is NaN) the result is -infinity. -0.0f and +0.0f compare equal: when the
// maximum is a zero, either sign is accepted. +/-infinity are ordinary values.
cudaError_t max_float(const float* in, std::size_t n, float* result, void* workspace,
                      cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
