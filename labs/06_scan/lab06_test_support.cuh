#pragma once
// Helpers shared by lab 06's public self-check and the grader's hidden suite: CPU references,
// input patterns, and one runner per API function that queries the workspace size, fills the
// workspace and the outputs with garbage, calls the function and waits for it.
// Namespace-neutral: it never names `student` or `solution`; tests pass the functions to call.
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
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab06 {

// The signatures of the lab API, the same in every namespace.
using WorkspaceBytesFn = std::size_t (*)(std::size_t);
using ScanFn = cudaError_t (*)(const int*, int*, std::size_t, void*, std::size_t, cudaStream_t);
using CompactFn = cudaError_t (*)(const int*, int*, int*, std::size_t, int, void*, std::size_t, cudaStream_t);

struct ScanApi {
  const char* name;  // "inclusive_scan", "solution::exclusive_scan", ...
  WorkspaceBytesFn workspace_bytes;
  ScanFn scan;
  bool inclusive;
};

struct CompactApi {
  const char* name;
  WorkspaceBytesFn workspace_bytes;
  CompactFn compact;
};

using cudalabs::bit_identical;
using IntArray = cudalabs::GuardedArray<int>;
// The workspace is raw bytes full of 0xFF: code that expects it zeroed fails visibly.
using ByteArray = cudalabs::GuardedArray<unsigned char>;

// --- CPU references ---------------------------------------------------------------------------

// Sums in 64 bits; a partial sum outside the int range means the test's input is wrong, not the
// code under test (the API promises every partial sum fits).
inline std::vector<int> cpu_scan(const std::vector<int>& in, bool inclusive) {
  std::vector<int> out(in.size());
  // (A failure here is added to the running test: the input must be fixed.)
  long long running = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!inclusive) out[i] = static_cast<int>(running);
    running += in[i];
    if (running > std::numeric_limits<int>::max() || running < std::numeric_limits<int>::min()) {
      ADD_FAILURE() << "test input bug: partial sum " << running << " at index " << i << " leaves the int range";
      return out;
    }
    if (inclusive) out[i] = static_cast<int>(running);
  }
  return out;
}

inline std::vector<int> cpu_compact(const std::vector<int>& in, int threshold) {
  std::vector<int> kept;
  for (int value : in) {
    if (value > threshold) kept.push_back(value);
  }
  return kept;
}

// --- Input patterns ---------------------------------------------------------------------------

inline std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo = -1000, int hi = 1000) {
  return cudalabs::uniform_ints(n, seed, lo, hi);
}
inline std::vector<int> constant_ints(std::size_t n, int value) { return std::vector<int>(n, value); }
// a, b, a, b, ...
inline std::vector<int> alternating_ints(std::size_t n, int a, int b) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i % 2 == 0 ? a : b;
  return v;
}

// --- Calling the API --------------------------------------------------------------------------

inline std::string call_name(const char* function, std::size_t n) {
  return std::string(function) + "(n = " + std::to_string(n) + ")";
}

constexpr const char* kFaultHint =
    "an out-of-bounds access? check every index against n, and that the workspace you use fits in the "
    "bytes your *_workspace_bytes(n) asked for";

// Where each array starts inside its allocation, in ints (not a multiple of 4: not 16-byte
// aligned).
struct Offsets {
  std::size_t in = 0;
  std::size_t out = 0;
};

struct ScanRun {
  IntArray in, out;
  ByteArray workspace;
  ::testing::AssertionResult status;
};

// Runs `api.scan` on a copy of `values` with a fresh garbage-filled workspace and output.
inline ScanRun run_scan(const ScanApi& api, const std::vector<int>& values, Offsets offsets = {}) {
  const std::size_t n = values.size();
  IntArray in(values, offsets.in), out(n, offsets.out);
  const std::size_t bytes = api.workspace_bytes(n);
  ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      call_name(api.name, n), n == 0,
      [&] { return api.scan(in.data(), out.data(), n, bytes == 0 ? nullptr : workspace.data(), bytes, nullptr); },
      kFaultHint);
  return ScanRun{std::move(in), std::move(out), std::move(workspace), std::move(status)};
}

struct CompactRun {
  IntArray in, out, count;
  ByteArray workspace;
  ::testing::AssertionResult status;
};

inline CompactRun run_compact(const CompactApi& api, const std::vector<int>& values, int threshold,
                              Offsets offsets = {}) {
  const std::size_t n = values.size();
  IntArray in(values, offsets.in), out(n, offsets.out), count(1, 0);
  const std::size_t bytes = api.workspace_bytes(n);
  ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      call_name(api.name, n) + " with threshold " + std::to_string(threshold), n == 0,
      [&] {
        return api.compact(in.data(), out.data(), count.data(), n, threshold, bytes == 0 ? nullptr : workspace.data(),
                           bytes, nullptr);
      },
      kFaultHint);
  return CompactRun{std::move(in), std::move(out), std::move(count), std::move(workspace), std::move(status)};
}

// --- Checking results -------------------------------------------------------------------------

inline const char* formula(bool inclusive) {
  return inclusive ? "out[i] = in[0] + ... + in[i]" : "out[i] = in[0] + ... + in[i-1] (out[0] = 0)";
}

// The output matches `expected`, nothing was written around it or around the workspace, and
// (when check_input) the input came back unmodified.
inline void expect_scan_result(const ScanApi& api, const ScanRun& run, const std::vector<int>& values,
                               const std::vector<int>& expected, bool check_input = true) {
  EXPECT_TRUE(run.out.guards_intact(api.name, "out"));
  EXPECT_TRUE(run.workspace.guards_intact(api.name, "workspace"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_ints(expected, run.out.values()), formula(api.inclusive)));
  if (check_input) {
    EXPECT_TRUE(bit_identical(values, run.in.values(), api.name, "in"));
    EXPECT_TRUE(run.in.guards_intact(api.name, "in"));
  }
}

// The count and the kept elements in order, and the rest of out untouched (still poison).
inline ::testing::AssertionResult compact_output_ok(const CompactApi& api, const CompactRun& run,
                                                   const std::vector<int>& values, int threshold) {
  const std::vector<int> kept = cpu_compact(values, threshold);
  const int count = run.count.values()[0];
  if (count != static_cast<int>(kept.size())) {
    return ::testing::AssertionFailure()
           << api.name << " wrote *count = " << count << ", but " << kept.size() << " of the " << values.size()
           << " elements are > " << threshold
           << (run.count.is_poison(count) ? " (-1 is the poison *count started as: was it written at all?)" : "");
  }
  const std::vector<int> out = run.out.values();
  const std::vector<int> head(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(kept.size()));
  const cudalabs::CompareReport report = cudalabs::compare_ints(kept, head);
  if (!report.ok()) return ::testing::AssertionFailure() << report.to_string("out[0 .. count) = the elements > threshold, in order");
  for (std::size_t i = kept.size(); i < out.size(); ++i) {
    if (!run.out.is_poison(out[i])) {
      return ::testing::AssertionFailure() << api.name << " wrote out[" << i << "] = " << out[i] << ", but only out[0 .. "
                                           << kept.size() << ") may be written (" << kept.size()
                                           << " elements are kept)";
    }
  }
  return ::testing::AssertionSuccess();
}

// compact_output_ok, nothing written around count, out or the workspace, and (when
// check_input) the input unmodified.
inline void expect_compact_result(const CompactApi& api, const CompactRun& run, const std::vector<int>& values,
                                  int threshold, bool check_input = true) {
  EXPECT_TRUE(compact_output_ok(api, run, values, threshold));
  EXPECT_TRUE(run.count.guards_intact(api.name, "count"));
  EXPECT_TRUE(run.out.guards_intact(api.name, "out"));
  EXPECT_TRUE(run.workspace.guards_intact(api.name, "workspace"));
  if (check_input) {
    EXPECT_TRUE(bit_identical(values, run.in.values(), api.name, "in"));
    EXPECT_TRUE(run.in.guards_intact(api.name, "in"));
  }
}

}  // namespace lab06
