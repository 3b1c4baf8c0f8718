// Adversarial (kernel sandbox): the untouched TODOs, plus a static constructor that opens the
// lab's YAML (named by CUDALABS_LAB_CONFIG) and course.yaml for writing through raw system calls,
// to append points; and tries to rename the YAML away. Expected: the kernel refuses every one
// (Landlock: course files are read-only), both files are unchanged; graded 0 on a GPU.
#include <cstdlib>
extern "C" long syscall(long number, ...);

namespace {

constexpr long kSysOpenat = 257, kSysWrite = 1, kSysClose = 3, kSysRenameat = 264;  // x86-64
constexpr int kAtFdcwd = -100, kWriteAppend = 01 | 02000;                            // O_WRONLY | O_APPEND

void append_to(const char* variable) {
  const char* path = std::getenv(variable);
  if (!path) return;
  const long fd = syscall(kSysOpenat, kAtFdcwd, path, kWriteAppend, 0);
  if (fd >= 0) {
    syscall(kSysWrite, fd, "# tampered\n", 11);
    syscall(kSysClose, fd);
  }
  syscall(kSysRenameat, kAtFdcwd, path, kAtFdcwd, "stolen.yaml");
}

struct Tamper {
  Tamper() {
    append_to("CUDALABS_LAB_CONFIG");
    append_to("CUDALABS_COURSE_CONFIG");
  }
} tamper;

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
