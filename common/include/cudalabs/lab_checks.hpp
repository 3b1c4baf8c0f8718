#pragma once
// What every lab's tests check around a call into student code, with messages a student can act
// on: the returned error (naming an unfinished TODO), faults raised while the kernels ran,
// writes outside an array (guard zones), untouched outputs (poison) and modified inputs.
//
//   cudalabs::GuardedArray<float> in(host_values, /*offset=*/0), out(n, /*offset=*/3);
//   ASSERT_TRUE(cudalabs::call_and_wait("scan(n = 1000)", n == 0,
//                                       [&] { return student::scan(in.data(), out.data(), n); }));
//   EXPECT_TRUE(out.guards_intact("scan", "out"));
//   EXPECT_TRUE(cudalabs::bit_identical(host_values, in.values(), "scan", "in"));
//
// Namespace-neutral: it never names `student` or `solution`; tests pass the call to make.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"

namespace cudalabs {

// The byte outputs and guard zones are filled with unless a test chooses another: every float
// and double reads as NaN, every signed integer as -1. Choose a byte no correct output can hold
// everywhere (e.g. 0xA5 for 8-bit images, where 0xFF is white).
inline constexpr unsigned char kPoisonByte = 0xFF;
// Elements of slack after each guarded array.
inline constexpr std::size_t kGuardElements = 64;

// Checks what a lab function returned. `call` names it with its arguments ("sum(n = 5)");
// `empty_input` says the call had nothing to do (a launch of 0 blocks is the classic mistake).
inline ::testing::AssertionResult returned_success(const std::string& call, cudaError_t status, bool empty_input) {
  if (status == cudaSuccess) return ::testing::AssertionSuccess();
  if (status == cudaErrorNotYetImplemented) {
    return ::testing::AssertionFailure() << call << " is still a TODO(student): it returned cudaErrorNotYetImplemented";
  }
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << call << " returned " << cudaGetErrorName(status) << ": " << cudaGetErrorString(status);
  // A launch with a bad shape reports one of these two, depending on the CUDA version.
  const bool bad_launch_shape = status == cudaErrorInvalidConfiguration || status == cudaErrorInvalidValue;
  if (bad_launch_shape && empty_input) {
    failure << " (a launch with 0 blocks is invalid: return cudaSuccess early when there is nothing to do)";
  } else if (bad_launch_shape) {
    failure << " (check the launch: at least 1 block, at most 1024 threads per block, and the shared memory "
               "it asks for)";
  }
  return failure;
}

// Waits for the call's kernels and reports a fault they raised; `hint` says what to look at.
inline ::testing::AssertionResult finished_cleanly(const std::string& call, const char* hint) {
  const cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "while " << call << " ran, the device reported " << cudaGetErrorName(status)
                                       << ": " << cudaGetErrorString(status) << " (" << hint << ")";
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const std::string& call, bool empty_input, Launch&& launch,
                                         const char* fault_hint = "an out-of-bounds access? check every index "
                                                                  "against the sizes") {
  ::testing::AssertionResult returned = returned_success(call, launch(), empty_input);
  if (!returned) return returned;
  return finished_cleanly(call, fault_hint);
}

// n elements of T on the device at element `offset` of an allocation filled with a poison byte,
// with kGuardElements of slack after the array (and `offset` before it), so writes past either
// end show up and outputs nobody wrote stay poison.
template <class T>
class GuardedArray {
  static_assert(std::is_trivially_copyable_v<T>, "GuardedArray holds raw bytes");

 public:
  // An output: every element starts as poison.
  GuardedArray(std::size_t n, std::size_t offset, unsigned char poison = kPoisonByte)
      : buffer_(offset + n + kGuardElements), offset_(offset), n_(n), poison_(poison) {
    buffer_.fill_bytes(poison_);
  }

  // An input (or in/out) array holding `values`.
  GuardedArray(const std::vector<T>& values, std::size_t offset, unsigned char poison = kPoisonByte)
      : GuardedArray(values.size(), offset, poison) {
    if (n_ == 0) return;
    CUDALABS_CHECK(cudaMemcpy(data(), values.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
    detail::wait_for_default_stream();  // as DeviceBuffer's own copies: finished when built
  }

  T* data() { return buffer_.data() + offset_; }
  const T* data() const { return buffer_.data() + offset_; }
  std::size_t size() const { return n_; }
  unsigned char poison() const { return poison_; }

  std::vector<T> values() const {
    std::vector<T> host(n_);
    if (n_ != 0) CUDALABS_CHECK(cudaMemcpy(host.data(), data(), n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

  // Whether `value` still holds the poison pattern in every byte (nobody wrote it).
  bool is_poison(const T& value) const {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (unsigned char b : bytes) {
      if (b != poison_) return false;
    }
    return true;
  }

  // Nothing was written in the slack before or after the array.
  ::testing::AssertionResult guards_intact(const std::string& function, const char* array) const {
    std::vector<T> before(offset_), after(kGuardElements);
    if (offset_ != 0) {
      CUDALABS_CHECK(cudaMemcpy(before.data(), buffer_.data(), offset_ * sizeof(T), cudaMemcpyDeviceToHost));
    }
    CUDALABS_CHECK(
        cudaMemcpy(after.data(), buffer_.data() + offset_ + n_, kGuardElements * sizeof(T), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (!is_poison(before[i])) return outside(function, array, -static_cast<long long>(offset_ - i));
    }
    for (std::size_t i = 0; i < after.size(); ++i) {
      if (!is_poison(after[i])) return outside(function, array, static_cast<long long>(n_ + i));
    }
    return ::testing::AssertionSuccess();
  }

 private:
  ::testing::AssertionResult outside(const std::string& function, const char* array, long long index) const {
    return ::testing::AssertionFailure() << function << " wrote outside its array: " << array << "[" << index
                                         << "] changed, but the array has " << n_
                                         << " elements (valid indices are 0 to " << n_
                                         << "-1; check the bounds of every index)";
  }

  DeviceBuffer<T> buffer_;
  std::size_t offset_;
  std::size_t n_;
  unsigned char poison_;
};

namespace detail {

// "f modified its input a: 3 elements changed, the first at index 7 (was 1.5, now 2); inputs are
// read-only": one wording for the host and the device check.
template <class T>
::testing::AssertionResult input_modified(const std::string& function, const char* array, std::size_t changed,
                                          std::size_t first, const T& was, const T& now) {
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << function << " modified its input " << array << ": " << changed << " elements changed, the first at index "
          << first;
  if constexpr (std::is_arithmetic_v<T>) {
    // Promote so 8-bit values print as numbers, not characters.
    failure << " (was " << +was << ", now " << +now << ")";
  }
  return failure << "; inputs are read-only";
}

}  // namespace detail

// Bit-for-bit equality, for inputs that must come back unmodified.
template <class T>
::testing::AssertionResult bit_identical(const std::vector<T>& before, const std::vector<T>& after,
                                         const std::string& function, const char* array) {
  static_assert(std::is_trivially_copyable_v<T>, "compared as raw bytes");
  if (before.size() != after.size()) {
    return ::testing::AssertionFailure() << array << ": " << before.size() << " elements before, " << after.size()
                                         << " after";
  }
  if (before.empty() || std::memcmp(before.data(), after.data(), before.size() * sizeof(T)) == 0) {
    return ::testing::AssertionSuccess();
  }
  std::size_t changed = 0;
  std::size_t first = before.size();
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (std::memcmp(&before[i], &after[i], sizeof(T)) != 0 && changed++ == 0) first = i;
  }
  return detail::input_modified(function, array, changed, first, before[first], after[first]);
}

// bit_identical for two device arrays of n elements: the scan runs on the GPU (only the count,
// the first index and its two values come back), the message is bit_identical's.
template <class T>
::testing::AssertionResult bit_identical_on_device(const T* before, const T* after, std::size_t n,
                                                   const std::string& function, const char* array) {
  static_assert(std::is_trivially_copyable_v<T>, "compared as raw bytes");
  const BitDifference difference = bit_difference_on_device(before, after, n, sizeof(T));
  if (difference.changed == 0) return ::testing::AssertionSuccess();
  T was, now;
  CUDALABS_CHECK(cudaMemcpy(&was, before + difference.first, sizeof(T), cudaMemcpyDeviceToHost));
  CUDALABS_CHECK(cudaMemcpy(&now, after + difference.first, sizeof(T), cudaMemcpyDeviceToHost));
  return detail::input_modified(function, array, difference.changed, difference.first, was, now);
}

}  // namespace cudalabs
