// Lab 01 API: vector addition and SAXPY on the GPU.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including vector_add.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// c[i] = a[i] + b[i] for every i in [0, n).
//
// a, b and c are device pointers to at least n floats each; a and b are only read. They need
// not be 16-byte aligned. n may be 0: then nothing is launched and cudaSuccess is returned
// (the pointers may be null).
//
// Asynchronous: the work is queued on `stream` and the function returns without waiting for it.
// Returns the launch error (cudaGetLastError() after the launch), cudaSuccess when the launch
// was accepted; errors raised while the kernel runs show up at the caller's next synchronisation.
cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n,
                       cudaStream_t stream = nullptr);

// y[i] = alpha * x[i] + y[i] for every i in [0, n): "single-precision a*x plus y", in place.
//
// x and y are device pointers to at least n floats each; x is only read. Same rules as
// vector_add for alignment, n == 0, asynchrony and the returned error.
cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n,
                  cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
