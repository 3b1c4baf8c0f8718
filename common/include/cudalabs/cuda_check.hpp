#pragma once
// Checked CUDA calls: a failing call becomes a CudaError exception that names the call, the file
// and line, and the error, so a test failure says exactly which CUDA call went wrong.
//
//   CUDALABS_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
//   my_kernel<<<grid, block>>>(...);
//   CUDALABS_CHECK_LAUNCH();
//
// Host code only (it throws). Usable from .cpp and .cu files.
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime.h>

namespace cudalabs {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, std::string call, std::string file, int line)
      : std::runtime_error(describe(code, call, file, line)),
        code_(code),
        call_(std::move(call)),
        file_(std::move(file)),
        line_(line) {}

  cudaError_t code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }

  // "file:line: <call> failed: cudaErrorXxx: <description>"
  static std::string describe(cudaError_t code, const std::string& call, const std::string& file,
                              int line) {
    return file + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(code) +
           ": " + cudaGetErrorString(code);
  }

 private:
  cudaError_t code_;
  std::string call_;
  std::string file_;
  int line_;
};

namespace detail {

// Out of the macro so the macro stays one cheap comparison at each call site.
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file,
                                          int line) {
  throw CudaError(code, call, file, line);
}

}  // namespace detail
}  // namespace cudalabs

#define CUDALABS_CHECK(call)                                                            \
  do {                                                                                  \
    const cudaError_t cudalabs_check_status_ = (call);                                  \
    if (cudalabs_check_status_ != cudaSuccess) {                                        \
      ::cudalabs::detail::throw_cuda_error(cudalabs_check_status_, #call, __FILE__, __LINE__); \
    }                                                                                   \
  } while (false)

// After a <<<...>>> launch: a bad launch configuration is only reported by cudaGetLastError.
#define CUDALABS_CHECK_LAUNCH()                                                           \
  do {                                                                                    \
    const cudaError_t cudalabs_check_status_ = cudaGetLastError();                        \
    if (cudalabs_check_status_ != cudaSuccess) {                                          \
      ::cudalabs::detail::throw_cuda_error(cudalabs_check_status_,                        \
                                           "kernel launch (cudaGetLastError)", __FILE__, __LINE__); \
    }                                                                                     \
  } while (false)
