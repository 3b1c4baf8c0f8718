#pragma once
// Helpers shared by lab 05's public self-check and the grader's hidden suite: CPU references,
// the float-sum tolerance, and one function that runs a reduction on guarded device arrays
// (poisoned input slack, poisoned result, poisoned workspace) and checks what it can.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab05 {

// The signatures of the lab API, the same in every namespace.
template <class T>
using ReduceFn = cudaError_t (*)(const T*, std::size_t, T*, void*, cudaStream_t);
using SumIntFn = ReduceFn<int>;
using SumFloatFn = ReduceFn<float>;
using MaxFloatFn = ReduceFn<float>;

// Must equal kReductionWorkspaceBytes in reduction.cuh (the suites static_assert it).
inline constexpr std::size_t kWorkspaceBytes = std::size_t{4} << 20;

// --- CPU references --------------------------------------------------------------------------

// Two's-complement sum modulo 2^32: the same in every order.
inline int cpu_sum_int(const std::vector<int>& x) {
  std::uint32_t sum = 0;
  for (int v : x) sum += static_cast<std::uint32_t>(v);
  return static_cast<int>(sum);
}

// The float sum computed in double: for the sizes used here (at most 2^26 elements of magnitude
// at most 2^20), its own error is below 2^-24 of sum |x_i|, far inside the tolerance.
inline double cpu_sum_double(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += v;
  return sum;
}

inline double cpu_sum_abs(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += std::fabs(static_cast<double>(v));
  return sum;
}

// Maximum ignoring NaN; -inf when nothing is left.
inline float cpu_max_float(const std::vector<float>& x) {
  float best = -std::numeric_limits<float>::infinity();
  for (float v : x) {
    if (!std::isnan(v) && v > best) best = v;
  }
  return best;
}

// The YAML's sum_float tolerance turned into one for this input. Any order of float additions
// is off from the exact sum by at most (k - 1) * eps * sum |x_i|, where k is the longest chain
// of additions an element goes through; so the allowed error scales with sum |x_i|, not with
// |sum x_i| (which cancellation can make arbitrarily small). The YAML's `rel` is that factor,
// `abs` a floor.
inline cudalabs::Tolerance sum_float_tolerance(const std::vector<float>& x, cudalabs::Tolerance yaml) {
  return cudalabs::Tolerance{yaml.abs + yaml.rel * cpu_sum_abs(x), 0.0};
}

// --- Running a reduction on guarded device memory ---------------------------------------------

// What a call leaves to check besides its input: its result and its workspace.
template <class T>
struct ReductionOutputs {
  cudalabs::GuardedArray<T> result;                  // one element, poisoned before the call
  cudalabs::GuardedArray<unsigned char> workspace;   // kWorkspaceBytes, poisoned before the call
  ::testing::AssertionResult status;                 // returned cudaSuccess and ran cleanly
};

// Calls fn(in, n, result, workspace, stream) on a device input of n elements and waits for it.
template <class T>
ReductionOutputs<T> call_reduction(ReduceFn<T> fn, const std::string& name, const T* in, std::size_t n) {
  cudalabs::GuardedArray<T> result(1, 0);
  cudalabs::GuardedArray<unsigned char> workspace(kWorkspaceBytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      name + "(n = " + std::to_string(n) + ")", n == 0,
      [&] { return fn(n == 0 ? nullptr : in, n, result.data(), workspace.data(), nullptr); },
      "an out-of-bounds access? check every index against n, the tail after vector loads, and the "
      "number of partial results against the workspace size");
  return ReductionOutputs<T>{std::move(result), std::move(workspace), std::move(status)};
}

// A call's device arrays, kept so the caller can check them after the run.
template <class T>
struct ReductionRun {
  cudalabs::GuardedArray<T> in;
  cudalabs::GuardedArray<T> result;                  // one element, poisoned before the call
  cudalabs::GuardedArray<unsigned char> workspace;   // kWorkspaceBytes, poisoned before the call
  ::testing::AssertionResult status;                 // returned cudaSuccess and ran cleanly
};

// Calls fn(in, n, result, workspace, stream) with `x` placed `offset` elements into its
// allocation (offset 1, 2 or 3 makes `in` not 16-byte aligned) and waits for it.
template <class T>
ReductionRun<T> run_reduction(ReduceFn<T> fn, const std::string& name, const std::vector<T>& x,
                              std::size_t offset = 0) {
  cudalabs::GuardedArray<T> in(x, offset);
  ReductionOutputs<T> outputs = call_reduction(fn, name, in.data(), x.size());
  return ReductionRun<T>{std::move(in), std::move(outputs.result), std::move(outputs.workspace),
                         std::move(outputs.status)};
}

// No writes past the result's single element or outside the workspace; input intact.
template <class T>
::testing::AssertionResult memory_respected(const ReductionRun<T>& run, const std::vector<T>& x,
                                            const std::string& function) {
  if (auto ok = run.result.guards_intact(function, "result"); !ok) return ok;
  if (auto ok = run.workspace.guards_intact(function, "workspace"); !ok) return ok;
  if (auto ok = run.in.guards_intact(function, "in"); !ok) return ok;
  return cudalabs::bit_identical(x, run.in.values(), function, "in");
}

// The answer against the expected value, with the report's "never written" diagnosis. `run` is
// a ReductionRun or ReductionOutputs.
template <class Run>
::testing::AssertionResult int_result_is(int expected, const Run& run, const char* what) {
  return cudalabs::matches(cudalabs::compare_ints({expected}, run.result.values()), what);
}

template <class Run>
::testing::AssertionResult float_result_is(double expected, const Run& run, cudalabs::Tolerance tolerance,
                                           const char* what) {
  return cudalabs::matches(
      cudalabs::compare_floats({static_cast<float>(expected)}, run.result.values(), tolerance), what);
}

// Floats that are multiples of 1/128 in [-1, 1]: a sum of up to 2^16 of them needs at most
// 16 + 7 + 1 bits, so every partial sum, in any order, is exact in float (24-bit significand).
inline std::vector<float> exactly_summable_floats(const std::vector<int>& in_128ths) {
  std::vector<float> x(in_128ths.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(in_128ths[i]) / 128.0f;
  return x;
}

}  // namespace lab05
