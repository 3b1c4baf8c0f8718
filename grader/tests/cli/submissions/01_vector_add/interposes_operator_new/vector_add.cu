// Adversarial (symbols): the untouched TODOs, plus a global operator new, which replaces the
// allocator of the whole test program (suite, GoogleTest, the result stream): a way to see every
// buffer the trusted code allocates. Expected: rule_violation (exit 8), score 0, naming
// operator new(unsigned long).
#include <cstdlib>
#include <new>
// __host__ alone: nvcc treats a global operator new as host and device code otherwise, and
// device code cannot throw.
__host__ void* operator new(std::size_t size) {
  if (void* p = std::malloc(size ? size : 1)) return p;
  std::abort();
}
#include "vector_add.cuh"

namespace LAB_IMPL {

// One thread (or, better, one thread per stride of a grid-stride loop) per element.
__global__ void vector_add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  // TODO(student): compute this thread's global index from blockIdx, blockDim and threadIdx,
  // then write c[i] = a[i] + b[i] for every i this thread owns. Never touch i >= n: the grid is
  // rounded up to whole blocks, so some threads have no element.
  static_cast<void>(a);
  static_cast<void>(b);
  static_cast<void>(c);
  static_cast<void>(n);
}

__global__ void saxpy_kernel(float alpha, const float* x, float* y, std::size_t n) {
  // TODO(student): same indexing as vector_add_kernel, computing y[i] = alpha * x[i] + y[i].
  static_cast<void>(alpha);
  static_cast<void>(x);
  static_cast<void>(y);
  static_cast<void>(n);
}

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  // TODO(student):
  //  1. If n == 0, return cudaSuccess without launching anything.
  //  2. Choose a block size (e.g. 256 threads) and a grid size (enough blocks to cover n, or
  //     a few blocks per multiprocessor with a grid-stride loop; see the handout).
  //  3. Launch: vector_add_kernel<<<blocks, threads, 0, stream>>>(a, b, c, n);
  //  4. Return cudaGetLastError(), so a bad launch configuration reaches the caller.
  // Delete the lines below once you have done that.
  static_cast<void>(a);
  static_cast<void>(b);
  static_cast<void>(c);
  static_cast<void>(n);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  // TODO(student): the same four steps as vector_add, launching saxpy_kernel.
  // Delete the lines below once you have done that.
  static_cast<void>(alpha);
  static_cast<void>(x);
  static_cast<void>(y);
  static_cast<void>(n);
  static_cast<void>(stream);
  return cudaErrorNotYetImplemented;
}

}  // namespace LAB_IMPL
