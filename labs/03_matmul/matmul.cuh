// Lab 03 API: dense matrix multiplication C = A * B in single precision (FP32).
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including matmul.cuh"
#endif

#include <cuda_runtime.h>

namespace LAB_IMPL {

// Both functions compute C = A * B, that is
//     c[i * n + j] = sum over p in [0, k) of a[i * k + p] * b[p * n + j]
// for every row i in [0, m) and column j in [0, n), where
//   A is m x k, B is k x n and C is m x n, all ROW-MAJOR and densely packed: element (row, col)
//   of a matrix with `cols` columns sits at index row * cols + col (no padding between rows).
//
// a, b and c are device pointers; a holds m * k floats, b holds k * n floats (both only read),
// c holds m * n floats (only written: its previous contents are ignored). The three arrays do not
// overlap. They are 4-byte aligned but need not be 16-byte aligned.
//
// Sizes: 0 <= m, n, k and m * k, k * n, m * n each below 2^31. Any size may be 1, a prime, or
// anything else: nothing has to be a multiple of a tile or block size.
//   - m == 0 or n == 0: C has no elements; nothing is launched or written and cudaSuccess is
//     returned (the pointers may be null).
//   - k == 0 (with m, n > 0): every element of C is an empty sum, so C is filled with zeros
//     (a and b may be null; c must be valid).
// The inputs are finite; the result is checked with a tolerance for rounding (see README.md).
//
// Asynchronous: the work is queued on `stream` and the function returns without waiting for it
// (no cudaDeviceSynchronize inside). Returns the launch error (cudaGetLastError() after the last
// launch), cudaSuccess when the launch was accepted; errors raised while the kernels run show up
// at the caller's next synchronisation.

// The direct way: one thread per element of C, each reading a whole row of A and a whole
// column of B from global memory.
cudaError_t matmul(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream = nullptr);

// The same result, computed from tiles of A and B staged in shared memory so that each value
// loaded from global memory is used by many threads (and, for speed, many times by each thread).
cudaError_t matmul_tiled(const float* a, const float* b, float* c, int m, int n, int k,
                         cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
