// Lab 04 API: three transposes of a row-major float matrix, each faster than the one before.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including transpose.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// The contract shared by the three functions below.
//
// `in` holds a rows x cols matrix in row-major order: element (r, c) is in[r * cols + c].
// Each function writes its transpose, a cols x rows matrix, to `out`:
//     out[c * rows + r] = in[r * cols + c]   for every r < rows and c < cols.
// Nothing else of `out` may be written. The result is a copy, so it must be exact bit for bit
// (NaN payloads, -0.0 and denormals included): move the values, never compute with them.
//
// in and out are device pointers to at least rows * cols floats each and do not overlap (no
// in-place transpose); `in` is only read. They are 4-byte aligned but not necessarily 16-byte
// aligned. rows and cols are each at most 131072 (2^17) and rows * cols is at most 2^28, so an
// element index fits in a 32-bit int. rows or cols may be 0: then nothing is launched and
// cudaSuccess is returned (the pointers may be null).
//
// Asynchronous: the work is queued on `stream` and the function returns without waiting for it.
// Returns the launch error (cudaGetLastError() after the launch), cudaSuccess when the launch was
// accepted; errors raised while the kernel runs show up at the caller's next synchronisation.

// One thread per element: reads along a row of `in` (coalesced), writes down a column of `out`
// (strided). Correct, and the baseline the other two are measured against.
cudaError_t transpose_naive(const float* in, float* out, std::size_t rows, std::size_t cols,
                            cudaStream_t stream = nullptr);

// Stages a tile of `in` through shared memory so that both the global reads and the global writes
// are coalesced (consecutive threads touch consecutive addresses).
cudaError_t transpose_coalesced(const float* in, float* out, std::size_t rows, std::size_t cols,
                                cudaStream_t stream = nullptr);

// transpose_coalesced with a tile padded by one column (tile[32][33]), so that reading a column
// of the tile does not send all 32 threads of a warp to the same shared-memory bank.
cudaError_t transpose_conflict_free(const float* in, float* out, std::size_t rows, std::size_t cols,
                                    cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
