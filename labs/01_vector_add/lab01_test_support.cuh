#pragma once
// Helpers shared by lab 01's public self-check and the grader's hidden suite: the CPU
// references, poisoned device arrays with guard zones, and failure messages that say what to fix.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <utility>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab01 {

// The signatures of the lab API, the same in every namespace.
using VectorAddFn = cudaError_t (*)(const float*, const float*, float*, std::size_t, cudaStream_t);
using SaxpyFn = cudaError_t (*)(float, const float*, float*, std::size_t, cudaStream_t);

// Every device array sits inside a larger allocation filled with this byte (every float reads
// as NaN), with slack after it (and `offset` floats before it), so writes past either end show up.
inline constexpr unsigned char kPoisonByte = cudalabs::kPoisonByte;

// CPU reference for vector_add: one IEEE float addition, exactly what the GPU must produce.
inline std::vector<float> cpu_vector_add(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}

// CPU reference for saxpy in double (alpha * x is exact there), rounded once to float.
inline std::vector<float> cpu_saxpy(float alpha, const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> out(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double exact_product = static_cast<double>(alpha) * static_cast<double>(x[i]);
    out[i] = static_cast<float>(exact_product + static_cast<double>(y[i]));
  }
  return out;
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const char* function, std::size_t n, Launch&& launch) {
  return cudalabs::call_and_wait(std::string(function) + "(n = " + std::to_string(n) + ")", n == 0,
                                 std::forward<Launch>(launch),
                                 "an out-of-bounds or misaligned access? check the i < n bound and float4 alignment");
}

// n floats on the device inside a poisoned allocation with guard zones (cudalabs/lab_checks.hpp).
using GuardedArray = cudalabs::GuardedArray<float>;
using cudalabs::bit_identical;

}  // namespace lab01

// The fixture of every Performance.<case> test, public (saxpy_timing_test.cu) and hidden alike:
// GoogleTest requires one fixture type per test suite name in a binary.
using Performance = cudalabs::GpuTest;

namespace lab01 {

}  // namespace lab01
