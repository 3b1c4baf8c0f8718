#pragma once
// A large input made on the GPU and sealed against the code under test. A student kernel can
// write anywhere in the process's device memory, so nothing the check trusts may sit there
// unguarded while student code runs: the input's checksum (keyed, device_compare.hpp) is taken
// right after it is made and kept on the host; after the call the input is trusted only if the
// checksum still matches, and otherwise it is made again from its recipe.
//
//   cudalabs::GeneratedInput<float> a(n, /*offset=*/1, [&](float* out) {
//     cudalabs::fill_uniform_floats(out, n, seed);
//   });
//   student::f(a.data(), ...);                          // untrusted
//   EXPECT_TRUE(a.unmodified("f", "a"));                // bit_identical's message if it changed
//   const float* trusted = a.trusted();                 // input for the reference solution
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/lab_checks.hpp"

namespace cudalabs {

template <class T>
class GeneratedInput {
 public:
  // Fills n elements of device memory (asynchronously is fine: it is waited for).
  using Recipe = std::function<void(T* device_out)>;

  // n elements at element `offset` of a guarded, poisoned allocation (GuardedArray), made by
  // `recipe`, then checksummed.
  GeneratedInput(std::size_t n, std::size_t offset, Recipe recipe, unsigned char poison = kPoisonByte)
      : array_(n, offset, poison), recipe_(std::move(recipe)) {
    if (n != 0) recipe_(array_.data());
    CUDALABS_CHECK(cudaDeviceSynchronize());
    checksum_ = checksum();
  }

  T* data() { return array_.data(); }
  const T* data() const { return array_.data(); }
  std::size_t size() const { return array_.size(); }
  const GuardedArray<T>& array() const { return array_; }

  ::testing::AssertionResult guards_intact(const std::string& function, const char* name) const {
    return array_.guards_intact(function, name);
  }

  // Whether the input still holds what the recipe made (its checksum is unchanged).
  bool intact() const { return checksum() == checksum_; }

  // The "inputs unmodified" check: bit_identical's message, computed on the device against a
  // fresh copy, when the checksum shows a change.
  ::testing::AssertionResult unmodified(const std::string& function, const char* name) const {
    if (intact()) return ::testing::AssertionSuccess();
    const DeviceBuffer<T>& fresh = remade();
    return bit_identical_on_device(fresh.data(), data(), size(), function, name);
  }

  // The input the reference solution may read after the untrusted call: this array while its
  // checksum holds, otherwise a fresh copy made again from the recipe.
  const T* trusted() const { return intact() ? data() : remade().data(); }

 private:
  std::uint64_t checksum() const { return device_checksum(data(), size() * sizeof(T)); }

  const DeviceBuffer<T>& remade() const {
    if (!remade_) {
      remade_.emplace(size());
      if (size() != 0) recipe_(remade_->data());
      CUDALABS_CHECK(cudaDeviceSynchronize());
    }
    return *remade_;
  }

  GuardedArray<T> array_;
  Recipe recipe_;
  std::uint64_t checksum_ = 0;
  mutable std::optional<DeviceBuffer<T>> remade_;
};

}  // namespace cudalabs
