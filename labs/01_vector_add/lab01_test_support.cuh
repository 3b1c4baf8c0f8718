#pragma once
// Helpers shared by lab 01's public self-check and the grader's hidden suite: the CPU
// references, poisoned device arrays with guard zones, and failure messages that say what to fix.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"

namespace lab01 {

// The signatures of the lab API, the same in every namespace.
using VectorAddFn = cudaError_t (*)(const float*, const float*, float*, std::size_t, cudaStream_t);
using SaxpyFn = cudaError_t (*)(float, const float*, float*, std::size_t, cudaStream_t);

// Every device array sits inside a larger allocation filled with this byte, kGuard floats of
// slack after it (and `offset` floats before it), so writes past either end show up.
inline constexpr unsigned char kPoisonByte = 0xFF;
inline constexpr std::size_t kGuard = 64;

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

// Checks what a lab function returned, in words a student can act on.
inline ::testing::AssertionResult returned_success(const char* function, cudaError_t status, std::size_t n) {
  if (status == cudaSuccess) return ::testing::AssertionSuccess();
  if (status == cudaErrorNotYetImplemented) {
    return ::testing::AssertionFailure()
           << function << " is still a TODO(student): it returned cudaErrorNotYetImplemented";
  }
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << function << "(n = " << n << ") returned " << cudaGetErrorName(status) << ": "
          << cudaGetErrorString(status);
  // A launch with a bad shape reports one of these two, depending on the CUDA version.
  const bool bad_launch_shape = status == cudaErrorInvalidConfiguration || status == cudaErrorInvalidValue;
  if (bad_launch_shape && n == 0) {
    failure << " (a launch with 0 blocks is invalid: return cudaSuccess early when n == 0)";
  } else if (bad_launch_shape) {
    failure << " (check the launch: at least 1 block, at most 1024 threads per block)";
  }
  return failure;
}

// Waits for the function's kernels and reports a fault they raised.
inline ::testing::AssertionResult finished_cleanly(const char* function, std::size_t n) {
  const cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "while " << function << "(n = " << n << ") ran, the device reported "
         << cudaGetErrorName(status) << ": " << cudaGetErrorString(status)
         << " (an out-of-bounds or misaligned access? check the i < n bound and float4 alignment)";
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const char* function, std::size_t n, Launch&& launch) {
  ::testing::AssertionResult returned = returned_success(function, launch(), n);
  if (!returned) return returned;
  return finished_cleanly(function, n);
}

// n floats on the device at element `offset` of a poisoned allocation with guard zones.
class GuardedArray {
 public:
  // An output: every element starts as poison.
  GuardedArray(std::size_t n, std::size_t offset) : buffer_(offset + n + kGuard), offset_(offset), n_(n) {
    buffer_.fill_bytes(kPoisonByte);
  }

  // An input (or in/out) array holding `values`.
  GuardedArray(const std::vector<float>& values, std::size_t offset) : GuardedArray(values.size(), offset) {
    if (n_ != 0) {
      CUDALABS_CHECK(cudaMemcpy(data(), values.data(), n_ * sizeof(float), cudaMemcpyHostToDevice));
    }
  }

  float* data() { return buffer_.data() + offset_; }
  std::size_t size() const { return n_; }

  std::vector<float> values() const {
    std::vector<float> host(n_);
    if (n_ != 0) {
      CUDALABS_CHECK(
          cudaMemcpy(host.data(), buffer_.data() + offset_, n_ * sizeof(float), cudaMemcpyDeviceToHost));
    }
    return host;
  }

  // Nothing was written in the slack before or after the array.
  ::testing::AssertionResult guards_intact(const char* function, const char* array) const {
    const std::vector<float> whole = read_guards();
    const std::size_t after_start = offset_;  // read_guards() puts the "after" zone at `offset_`
    for (std::size_t i = 0; i < whole.size(); ++i) {
      if (is_poison(whole[i])) continue;
      const long long index = i < after_start ? static_cast<long long>(i) - static_cast<long long>(offset_)
                                              : static_cast<long long>(n_ + (i - after_start));
      return ::testing::AssertionFailure()
             << function << " wrote outside its array: " << array << "[" << index << "] changed, but n = "
             << n_ << " (valid indices are 0 to n-1; check the i < n bound)";
    }
    return ::testing::AssertionSuccess();
  }

 private:
  static bool is_poison(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits == 0xFFFFFFFFu;
  }

  // The slack before the array followed by the slack after it (not the array itself).
  std::vector<float> read_guards() const {
    std::vector<float> guards(offset_ + kGuard);
    if (offset_ != 0) {
      CUDALABS_CHECK(cudaMemcpy(guards.data(), buffer_.data(), offset_ * sizeof(float), cudaMemcpyDeviceToHost));
    }
    CUDALABS_CHECK(cudaMemcpy(guards.data() + offset_, buffer_.data() + offset_ + n_, kGuard * sizeof(float),
                              cudaMemcpyDeviceToHost));
    return guards;
  }

  cudalabs::DeviceBuffer<float> buffer_;
  std::size_t offset_;
  std::size_t n_;
};

// Bit-for-bit equality, for inputs that must come back unmodified.
inline ::testing::AssertionResult bit_identical(const std::vector<float>& before, const std::vector<float>& after,
                                                const char* function, const char* array) {
  if (before.size() != after.size()) {
    return ::testing::AssertionFailure() << array << ": " << before.size() << " elements before, "
                                         << after.size() << " after";
  }
  if (before.empty() || std::memcmp(before.data(), after.data(), before.size() * sizeof(float)) == 0) {
    return ::testing::AssertionSuccess();
  }
  std::size_t changed = 0;
  std::size_t first = before.size();
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (std::memcmp(&before[i], &after[i], sizeof(float)) != 0) {
      if (changed++ == 0) first = i;
    }
  }
  return ::testing::AssertionFailure() << function << " modified its input " << array << ": " << changed
                                       << " elements changed, the first at index " << first << " (was "
                                       << before[first] << ", now " << after[first] << "); inputs are read-only";
}

}  // namespace lab01
