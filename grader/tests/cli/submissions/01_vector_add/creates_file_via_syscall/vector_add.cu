// Adversarial (kernel sandbox): the untouched TODOs, plus a static constructor that, through raw
// system calls (no symbol rule names them), creates /tmp/cudalabs_adversarial_escape outside the
// work directory and a directory beside it. Expected: the kernel refuses both (Landlock: writes
// only beneath the test's scratch directory), nothing is created; graded 0 on a GPU; the report
// lists the raw system calls and the static constructor for the instructor to review.
extern "C" long syscall(long number, ...);

namespace {

constexpr long kSysOpenat = 257, kSysMkdirat = 258, kSysWrite = 1, kSysClose = 3;  // x86-64
constexpr int kAtFdcwd = -100, kWriteCreate = 01 | 0100;  // O_WRONLY | O_CREAT

struct Escape {
  Escape() {
    const long fd = syscall(kSysOpenat, kAtFdcwd, "/tmp/cudalabs_adversarial_escape", kWriteCreate, 0644);
    if (fd >= 0) {
      syscall(kSysWrite, fd, "escaped\n", 8);
      syscall(kSysClose, fd);
    }
    syscall(kSysMkdirat, kAtFdcwd, "/tmp/cudalabs_adversarial_escape_dir", 0755);
  }
} escape;

}  // namespace

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
