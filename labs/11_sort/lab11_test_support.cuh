#pragma once
// Helpers shared by lab 11's public self-check and the grader's hidden suite: seeded key patterns
// (made the same way on the host and on the device), CPU references, one runner per API function
// that queries the workspace size, fills workspace and outputs with garbage, calls the function
// and waits, and the checks of a result with messages that say what to fix.
// Namespace-neutral: it never names `student` or `solution`; tests pass the functions to call.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab11 {

// The signatures of the lab API, the same in every namespace.
using BlockSortFn = cudaError_t (*)(const std::uint32_t*, std::uint32_t*, std::size_t, unsigned, cudaStream_t);
using WorkspaceBytesFn = std::size_t (*)(std::size_t);
using SortKeysFn = cudaError_t (*)(const std::uint32_t*, std::uint32_t*, std::size_t, void*, std::size_t, cudaStream_t);
using SortPairsFn = cudaError_t (*)(const std::uint32_t*, std::uint32_t*, const std::uint32_t*, std::uint32_t*,
                                    std::size_t, void*, std::size_t, cudaStream_t);

struct BlockSortApi {
  const char* name;  // "block_sort", "solution::block_sort"
  BlockSortFn sort;
};
struct KeysApi {
  const char* name;
  WorkspaceBytesFn workspace_bytes;
  SortKeysFn sort;
};
struct PairsApi {
  const char* name;
  WorkspaceBytesFn workspace_bytes;
  SortPairsFn sort;
};

using KeyArray = cudalabs::GuardedArray<std::uint32_t>;
// The workspace is raw bytes full of 0xFF: code that expects it zeroed fails visibly.
using ByteArray = cudalabs::GuardedArray<unsigned char>;

// --- Seeded keys, the same on the host and on the device -----------------------------------------

enum class Pattern : int {
  Uniform,      // every bit random
  AllEqual,     // one value n times
  Sorted,       // already ascending
  Reversed,     // descending
  FewDistinct,  // four random 32-bit values, drawn at random: long runs of equal keys
  TopByteOnly,  // random top byte, the other 24 bits zero: only the last pass sorts anything
  LowByteOnly,  // random low byte, the rest zero: only the first pass sorts anything
};

inline const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::Uniform: return "uniform random keys";
    case Pattern::AllEqual: return "all keys equal";
    case Pattern::Sorted: return "keys already sorted";
    case Pattern::Reversed: return "keys in reverse order";
    case Pattern::FewDistinct: return "4 distinct keys";
    case Pattern::TopByteOnly: return "keys differing only in the top byte";
    case Pattern::LowByteOnly: return "keys differing only in the low byte";
  }
  return "?";
}

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__host__ __device__ inline std::uint32_t hash32(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint32_t>(mix64(mix64(seed) ^ i) >> 32);
}

// Key i of n in `pattern` from `seed`.
__host__ __device__ inline std::uint32_t pattern_key(Pattern pattern, std::uint64_t seed, std::size_t i,
                                                     std::size_t n) {
  switch (pattern) {
    case Pattern::Uniform: return hash32(seed, i);
    case Pattern::AllEqual: return hash32(seed, 0x5EED);
    // i * 2^32 / n: ascending, spread over all four bytes.
    case Pattern::Sorted: return static_cast<std::uint32_t>((static_cast<std::uint64_t>(i) << 32) / n);
    case Pattern::Reversed: return static_cast<std::uint32_t>((static_cast<std::uint64_t>(n - 1 - i) << 32) / n);
    case Pattern::FewDistinct: return hash32(seed ^ 0xD15717C7ull, hash32(seed, i) % 4);
    case Pattern::TopByteOnly: return hash32(seed, i) & 0xFF000000u;
    case Pattern::LowByteOnly: return hash32(seed, i) & 0x000000FFu;
  }
  return 0;
}

// Value i of a pair: random, so that the order of equal keys shows in the values, and a sort that
// orders equal keys by their value is caught.
__host__ __device__ inline std::uint32_t pattern_value(std::uint64_t seed, std::size_t i) {
  return hash32(seed ^ 0xA5A5A5A5A5A5A5A5ull, i);
}

inline std::vector<std::uint32_t> make_keys(Pattern pattern, std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = pattern_key(pattern, seed, i, n);
  return keys;
}

inline std::vector<std::uint32_t> make_values(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = pattern_value(seed, i);
  return values;
}

// --- CPU references ----------------------------------------------------------------------------

inline std::vector<std::uint32_t> cpu_block_sort(std::vector<std::uint32_t> keys, unsigned segment_size) {
  for (std::size_t begin = 0; begin < keys.size(); begin += segment_size) {
    const std::size_t end = std::min(keys.size(), begin + segment_size);
    std::sort(keys.begin() + static_cast<std::ptrdiff_t>(begin), keys.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return keys;
}

inline std::vector<std::uint32_t> cpu_sort_keys(std::vector<std::uint32_t> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

struct SortedPairs {
  std::vector<std::uint32_t> keys, values;
};

// std::stable_sort by key: equal keys keep their input order.
inline SortedPairs cpu_sort_pairs(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& values) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  SortedPairs sorted{std::vector<std::uint32_t>(keys.size()), std::vector<std::uint32_t>(keys.size())};
  for (std::size_t j = 0; j < order.size(); ++j) {
    sorted.keys[j] = keys[order[j]];
    sorted.values[j] = values[order[j]];
  }
  return sorted;
}

// Exact comparison of 32-bit unsigned arrays, reported like cudalabs::compare_ints (values printed
// as unsigned numbers; an element that still holds 0xFFFFFFFF where something else was expected
// counts as never written).
inline cudalabs::CompareReport compare_keys(const std::vector<std::uint32_t>& expected,
                                            const std::vector<std::uint32_t>& actual, std::size_t max_listed = 10) {
  cudalabs::CompareReport report;
  report.kind = cudalabs::ValueKind::Int;
  report.expected_size = expected.size();
  report.actual_size = actual.size();
  report.checked = std::min(expected.size(), actual.size());
  for (std::size_t i = 0; i < report.checked; ++i) {
    if (expected[i] == actual[i]) continue;
    const bool never_written = actual[i] == 0xFFFFFFFFu;
    if (never_written && report.never_written++ == 0) report.first_never_written = i;
    if (report.mismatches++ < max_listed) {
      report.first.push_back({i, static_cast<double>(expected[i]), static_cast<double>(actual[i]), never_written});
    }
  }
  return report;
}

// --- Calling the API ---------------------------------------------------------------------------

inline std::string call_name(const char* function, std::size_t n) {
  return std::string(function) + "(n = " + std::to_string(n) + ")";
}

constexpr const char* kFaultHint =
    "an out-of-bounds access? check every index against n (the last tile or segment is partial), and that the "
    "workspace you use fits in the bytes your *_workspace_bytes(n) asked for";

// Where each array starts inside its allocation, in elements (not a multiple of 4: not 16-byte
// aligned).
struct Offsets {
  std::size_t in = 0;
  std::size_t out = 0;
};

struct BlockSortRun {
  KeyArray in, out;
  ::testing::AssertionResult status;
};

inline BlockSortRun run_block_sort(const BlockSortApi& api, const std::vector<std::uint32_t>& keys,
                                   unsigned segment_size, Offsets offsets = {}) {
  const std::size_t n = keys.size();
  KeyArray in(keys, offsets.in), out(n, offsets.out);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      call_name(api.name, n) + " with segment_size " + std::to_string(segment_size), n == 0,
      [&] { return api.sort(in.data(), out.data(), n, segment_size, nullptr); }, kFaultHint);
  return BlockSortRun{std::move(in), std::move(out), std::move(status)};
}

struct KeysRun {
  KeyArray in, out;
  ByteArray workspace;
  ::testing::AssertionResult status;
};

inline KeysRun run_sort_keys(const KeysApi& api, const std::vector<std::uint32_t>& keys, Offsets offsets = {}) {
  const std::size_t n = keys.size();
  KeyArray in(keys, offsets.in), out(n, offsets.out);
  const std::size_t bytes = api.workspace_bytes(n);
  ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      call_name(api.name, n), n == 0,
      [&] { return api.sort(in.data(), out.data(), n, bytes == 0 ? nullptr : workspace.data(), bytes, nullptr); },
      kFaultHint);
  return KeysRun{std::move(in), std::move(out), std::move(workspace), std::move(status)};
}

struct PairsRun {
  KeyArray keys_in, keys_out, values_in, values_out;
  ByteArray workspace;
  ::testing::AssertionResult status;
};

inline PairsRun run_sort_pairs(const PairsApi& api, const std::vector<std::uint32_t>& keys,
                               const std::vector<std::uint32_t>& values, Offsets offsets = {}) {
  const std::size_t n = keys.size();
  KeyArray keys_in(keys, offsets.in), keys_out(n, offsets.out), values_in(values, offsets.in),
      values_out(n, offsets.out);
  const std::size_t bytes = api.workspace_bytes(n);
  ByteArray workspace(bytes, 0);
  ::testing::AssertionResult status = cudalabs::call_and_wait(
      call_name(api.name, n), n == 0,
      [&] {
        return api.sort(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                        bytes == 0 ? nullptr : workspace.data(), bytes, nullptr);
      },
      kFaultHint);
  return PairsRun{std::move(keys_in), std::move(keys_out), std::move(values_in), std::move(values_out),
                  std::move(workspace), std::move(status)};
}

// --- Checking results --------------------------------------------------------------------------

inline ::testing::AssertionResult keys_match(const std::vector<std::uint32_t>& expected,
                                             const std::vector<std::uint32_t>& actual, const char* what) {
  const cudalabs::CompareReport report = compare_keys(expected, actual);
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report.to_string(what);
}

// The values after correct keys: a mismatch there is a stability bug (or values not moved along).
inline ::testing::AssertionResult values_match(const std::vector<std::uint32_t>& expected,
                                               const std::vector<std::uint32_t>& actual) {
  const cudalabs::CompareReport report = compare_keys(expected, actual);
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << report.to_string("values_out (each value must stay with its key)")
         << "\nkeys_out is right, so the values were moved differently: is every pass STABLE (equal digits keep "
            "their input order, across warps and blocks too) and does each value travel with its own key?";
}

inline void expect_block_sort_result(const BlockSortApi& api, const BlockSortRun& run,
                                     const std::vector<std::uint32_t>& keys, unsigned segment_size) {
  EXPECT_TRUE(run.out.guards_intact(api.name, "out"));
  EXPECT_TRUE(keys_match(cpu_block_sort(keys, segment_size), run.out.values(),
                         "out (each segment of segment_size keys sorted on its own)"));
  EXPECT_TRUE(cudalabs::bit_identical(keys, run.in.values(), api.name, "in"));
  EXPECT_TRUE(run.in.guards_intact(api.name, "in"));
}

inline void expect_keys_result(const KeysApi& api, const KeysRun& run, const std::vector<std::uint32_t>& keys,
                               const std::vector<std::uint32_t>& expected) {
  EXPECT_TRUE(run.out.guards_intact(api.name, "keys_out"));
  EXPECT_TRUE(run.workspace.guards_intact(api.name, "workspace"));
  EXPECT_TRUE(keys_match(expected, run.out.values(), "keys_out (ascending)"));
  EXPECT_TRUE(cudalabs::bit_identical(keys, run.in.values(), api.name, "keys_in"));
  EXPECT_TRUE(run.in.guards_intact(api.name, "keys_in"));
}

inline void expect_pairs_result(const PairsApi& api, const PairsRun& run, const std::vector<std::uint32_t>& keys,
                                const std::vector<std::uint32_t>& values, const SortedPairs& expected) {
  EXPECT_TRUE(run.keys_out.guards_intact(api.name, "keys_out"));
  EXPECT_TRUE(run.values_out.guards_intact(api.name, "values_out"));
  EXPECT_TRUE(run.workspace.guards_intact(api.name, "workspace"));
  const ::testing::AssertionResult keys_ok = keys_match(expected.keys, run.keys_out.values(), "keys_out (ascending)");
  EXPECT_TRUE(keys_ok);
  if (keys_ok) EXPECT_TRUE(values_match(expected.values, run.values_out.values()));
  EXPECT_TRUE(cudalabs::bit_identical(keys, run.keys_in.values(), api.name, "keys_in"));
  EXPECT_TRUE(cudalabs::bit_identical(values, run.values_in.values(), api.name, "values_in"));
  EXPECT_TRUE(run.keys_in.guards_intact(api.name, "keys_in"));
  EXPECT_TRUE(run.values_in.guards_intact(api.name, "values_in"));
}

// A call that must be refused with cudaErrorInvalidValue (and must not fault).
template <class Call>
::testing::AssertionResult refused(const std::string& call, Call&& make_call) {
  const cudaError_t status = make_call();
  const cudaError_t after = cudaDeviceSynchronize();
  if (status == cudaErrorNotYetImplemented) {
    return ::testing::AssertionFailure() << call << " is still a TODO(student): it returned cudaErrorNotYetImplemented";
  }
  if (status != cudaErrorInvalidValue) {
    return ::testing::AssertionFailure() << call << " returned " << cudaGetErrorName(status)
                                         << ", but must be refused with cudaErrorInvalidValue";
  }
  if (after != cudaSuccess) {
    return ::testing::AssertionFailure() << call << " was refused, but the device then reported "
                                         << cudaGetErrorName(after) << ": a refused call must launch nothing";
  }
  return ::testing::AssertionSuccess();
}

}  // namespace lab11
