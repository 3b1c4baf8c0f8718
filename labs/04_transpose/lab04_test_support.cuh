#pragma once
// Helpers shared by lab 04's public self-check and the grader's hidden and timed suites: the CPU
// reference, test data (including the float values a copy must not alter), a call that runs one
// transpose on guarded device arrays, and checks whose messages say what to fix.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab04 {

// The signature of the three lab functions, the same in every namespace.
using TransposeFn = cudaError_t (*)(const float*, float*, std::size_t, std::size_t, cudaStream_t);

using GuardedArray = cudalabs::GuardedArray<float>;
using cudalabs::bit_identical;

inline std::string shape(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// out[c * rows + r] = in[r * cols + c], walked in 64x64 blocks so that even the 2^26-element
// matrices of the hidden suite take well under a second on the CPU.
inline std::vector<float> cpu_transpose(const std::vector<float>& in, std::size_t rows, std::size_t cols) {
  constexpr std::size_t kBlock = 64;
  std::vector<float> out(in.size());
  for (std::size_t r0 = 0; r0 < rows; r0 += kBlock) {
    for (std::size_t c0 = 0; c0 < cols; c0 += kBlock) {
      const std::size_t r_end = std::min(rows, r0 + kBlock);
      const std::size_t c_end = std::min(cols, c0 + kBlock);
      for (std::size_t r = r0; r < r_end; ++r) {
        for (std::size_t c = c0; c < c_end; ++c) out[c * rows + r] = in[r * cols + c];
      }
    }
  }
  return out;
}

inline float float_from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

inline std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// n floats a copy must carry bit for bit and arithmetic would not: NaNs with different payloads
// and signs, -0.0, infinities, denormals (flushed to zero by fast-math arithmetic), the extremes,
// mixed with ordinary values from `seed`. None is the all-0xFF poison pattern.
inline std::vector<float> special_floats(std::size_t n, std::uint64_t seed) {
  static const std::uint32_t kSpecialBits[] = {
      0x7FC00000u,  // quiet NaN
      0x7FC12345u,  // quiet NaN with a payload
      0xFFC00001u,  // negative quiet NaN with a payload
      0x7F800001u,  // signalling NaN
      0x80000000u,  // -0.0
      0x7F800000u,  // +inf
      0xFF800000u,  // -inf
      0x00000001u,  // smallest denormal
      0x807FFFFFu,  // largest negative denormal
      0x7F7FFFFFu,  // FLT_MAX
      0x00800000u,  // FLT_MIN
  };
  constexpr std::size_t kSpecials = sizeof kSpecialBits / sizeof kSpecialBits[0];
  std::vector<float> values = cudalabs::uniform_floats(n, seed, -1000.0f, 1000.0f);
  cudalabs::SplitMix64 pick(seed ^ 0x5EC1A1u);
  for (float& v : values) {
    const std::uint64_t draw = pick.next();
    if (draw % 3 != 0) v = float_from_bits(kSpecialBits[(draw >> 8) % kSpecials]);
  }
  return values;
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const char* function, std::size_t rows, std::size_t cols, Launch&& launch) {
  return cudalabs::call_and_wait(std::string(function) + "(rows = " + std::to_string(rows) +
                                     ", cols = " + std::to_string(cols) + ")",
                                 rows == 0 || cols == 0, std::forward<Launch>(launch),
                                 "an out-of-bounds access? check r < rows and c < cols before every load and "
                                 "store; in a tiled kernel the store's bounds swap roles");
}

// One call of a transpose on guarded device arrays (`in` holding `values`, `out` poisoned),
// each starting the given number of floats into its allocation.
struct TransposeRun {
  GuardedArray in;
  GuardedArray out;
  ::testing::AssertionResult status;
};

inline TransposeRun run_transpose(TransposeFn transpose, const char* name, const std::vector<float>& values,
                                  std::size_t rows, std::size_t cols, std::size_t in_offset = 0,
                                  std::size_t out_offset = 0) {
  GuardedArray in(values, in_offset), out(values.size(), out_offset);
  ::testing::AssertionResult status = call_and_wait(name, rows, cols, [&] {
    return transpose(in.data(), out.data(), rows, cols, nullptr);
  });
  return TransposeRun{std::move(in), std::move(out), std::move(status)};
}

// What the mismatch report's flat indices mean, and the classic mistakes worth naming.
inline std::string describe_output(std::size_t rows, std::size_t cols) {
  return "out (" + shape(cols, rows) + ", row-major: out[i] is element (i / " + std::to_string(rows) + ", i % " +
         std::to_string(rows) + ") and must equal in[(i % " + std::to_string(rows) + ") * " + std::to_string(cols) +
         " + i / " + std::to_string(rows) + "])";
}

// Shown when out is bit for bit the input.
inline constexpr const char* kCopyHint =
    "\nout holds `in` unchanged: that is a copy, not a transpose (write element (r, c) to out[c * rows + r])";

inline std::string layout_hint(const std::vector<float>& in, const std::vector<float>& out) {
  if (in.size() > 1 && std::memcmp(in.data(), out.data(), in.size() * sizeof(float)) == 0) return kCopyHint;
  return "";
}

// Exact comparison for the values a copy must preserve (NaN payloads, -0.0): compare_floats
// treats any NaN as equal to any NaN, and -0.0 as equal to 0.0.
inline ::testing::AssertionResult bits_match(const std::vector<float>& expected, const std::vector<float>& actual,
                                             const std::string& what) {
  if (expected.size() != actual.size()) {
    return ::testing::AssertionFailure() << what << ": expected " << expected.size() << " elements, got "
                                         << actual.size();
  }
  std::size_t differ = 0;
  std::string listed;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::uint32_t want = bits_of(expected[i]);
    const std::uint32_t got = bits_of(actual[i]);
    if (want == got) continue;
    if (differ++ < 10) {
      char line[160];
      std::snprintf(line, sizeof line, "\n  [%zu] expected bits 0x%08X (%g), got 0x%08X (%g)%s", i, want,
                    static_cast<double>(expected[i]), got, static_cast<double>(actual[i]),
                    got == 0xFFFFFFFFu ? " <never written (still 0xFF poison)>" : "");
      listed += line;
    }
  }
  if (differ == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << differ << " of " << expected.size()
                                       << " elements differ bit for bit (a transpose only moves values: NaN "
                                          "payloads, -0.0 and denormals must arrive unchanged)"
                                       << listed;
}

// Every check on one finished run: the call succeeded, out holds the transpose (compared with
// `tolerance`, or bit for bit when `bit_exact`), nothing outside out was written, in is intact.
inline void expect_transposed(const TransposeRun& run, const char* name, const std::vector<float>& values,
                              const std::vector<float>& expected, std::size_t rows, std::size_t cols,
                              cudalabs::Tolerance tolerance, bool bit_exact) {
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.out.guards_intact(name, "out"));
  const std::vector<float> got = run.out.values();
  const std::string what = describe_output(rows, cols);
  if (bit_exact) {
    EXPECT_TRUE(bits_match(expected, got, what)) << layout_hint(values, got);
  } else {
    EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, got, tolerance), what))
        << layout_hint(values, got);
  }
  EXPECT_TRUE(bit_identical(values, run.in.values(), name, "in"));
  EXPECT_TRUE(run.in.guards_intact(name, "in"));
}

// rows or cols is 0: the call must succeed without launching, with null pointers and with valid
// ones, and leave a 5-float sentinel `out` untouched.
inline void expect_empty_is_a_no_op(TransposeFn transpose, const char* name, std::size_t rows, std::size_t cols) {
  SCOPED_TRACE(std::string(name) + " on an empty " + shape(rows, cols) + " matrix");
  ASSERT_TRUE(call_and_wait(name, rows, cols, [&] { return transpose(nullptr, nullptr, rows, cols, nullptr); }));
  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  GuardedArray in(sentinel, 0), out(sentinel, 0);
  ASSERT_TRUE(call_and_wait(name, rows, cols, [&] { return transpose(in.data(), out.data(), rows, cols, nullptr); }));
  EXPECT_TRUE(bit_identical(sentinel, out.values(), std::string(name) + " with an empty matrix", "out"));
  EXPECT_TRUE(out.guards_intact(name, "out"));
}

}  // namespace lab04
