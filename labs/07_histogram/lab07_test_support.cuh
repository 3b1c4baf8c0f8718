#pragma once
// Helpers shared by lab 07's public self-check and the grader's hidden suite: seeded byte data
// (uniform, all equal, a few distinct values, sorted runs), the CPU reference, guarded device
// arrays and failure messages that say what to fix.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab07 {

inline constexpr std::size_t kBins = 256;

// The signature of both lab functions, the same in every namespace.
using HistogramFn = cudaError_t (*)(const unsigned char*, std::size_t, unsigned int*, cudaStream_t);

// --- seeded data -----------------------------------------------------------------------------

// n bytes uniform in [0, 255]: eight bytes from each SplitMix64 draw (cudalabs::fill_random_bytes
// makes the same bytes on the device).
inline std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  return cudalabs::random_bytes(n, seed);
}

// The contention case: every byte the same, so every atomic in the GPU wants one counter.
inline std::vector<unsigned char> all_equal_bytes(std::size_t n, unsigned char value) {
  return std::vector<unsigned char>(n, value);
}

// Each byte drawn uniformly from `values` (high contention on a few counters, short runs).
inline std::vector<unsigned char> few_distinct_bytes(std::size_t n, std::uint64_t seed,
                                                     const std::vector<unsigned char>& values) {
  std::vector<unsigned char> bytes(n);
  cudalabs::SplitMix64 rng(seed);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = values[rng.next() % values.size()];
  return bytes;
}

// 0, 0, ..., 1, 1, ..., 255: 256 long runs (boundaries fall inside vectors and thread chunks).
inline std::vector<unsigned char> sorted_run_bytes(std::size_t n) {
  std::vector<unsigned char> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<unsigned char>(i * kBins / n);
  return bytes;
}

// --- CPU reference ---------------------------------------------------------------------------

// Four interleaved partial histograms, so a run of equal bytes does not serialise on one
// counter's store-to-load latency (2^28 equal bytes would otherwise take about a second).
inline std::vector<unsigned int> cpu_histogram(const std::vector<unsigned char>& data) {
  std::array<std::array<unsigned int, kBins>, 4> partial{};
  const std::size_t n = data.size();
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++partial[0][data[i]];
    ++partial[1][data[i + 1]];
    ++partial[2][data[i + 2]];
    ++partial[3][data[i + 3]];
  }
  for (; i < n; ++i) ++partial[0][data[i]];
  std::vector<unsigned int> bins(kBins);
  for (std::size_t b = 0; b < kBins; ++b) bins[b] = partial[0][b] + partial[1][b] + partial[2][b] + partial[3][b];
  return bins;
}

// --- checks ----------------------------------------------------------------------------------

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const std::string& function, std::size_t n, Launch&& launch) {
  return cudalabs::call_and_wait(function + "(n = " + std::to_string(n) + ")", n == 0, std::forward<Launch>(launch),
                                 "an out-of-bounds access? check the i < n bound, the head/tail of vector loads "
                                 "and the shared-memory indices");
}

// Every count exact, with a hint when the totals do not add up to n.
inline ::testing::AssertionResult bins_match(const std::vector<unsigned int>& expected,
                                             const std::vector<unsigned int>& actual, const std::string& what) {
  const std::vector<int> want(expected.begin(), expected.end());
  const std::vector<int> got(actual.begin(), actual.end());
  ::testing::AssertionResult result = cudalabs::matches(cudalabs::compare_ints(want, got), what);
  if (result) return result;
  std::uint64_t expected_total = 0, actual_total = 0;
  for (unsigned int c : expected) expected_total += c;
  for (unsigned int c : actual) actual_total += c;
  result << "\nthe bins add up to " << actual_total << ", the number of bytes is " << expected_total;
  if (actual_total < expected_total) {
    result << " (bytes lost: a plain ++ instead of atomicAdd, a missing __syncthreads() before the merge, "
              "or bytes at the ends (head/tail) never counted?)";
  } else if (actual_total > expected_total) {
    result << " (bytes counted twice or past n, or bins not zeroed before counting? The function must overwrite "
              "them: the tests fill them with 0xFFFFFFFF first)";
  }
  return result;
}

// n bytes on the device at byte `offset` of a poisoned allocation with guard zones.
using GuardedBytes = cudalabs::GuardedArray<unsigned char>;
// The 256 counters, every one starting as 0xFFFFFFFF poison.
using GuardedBins = cudalabs::GuardedArray<unsigned int>;

// Guard counters before bins[0]: a byte read through a signed char indexes bins[-128..-1].
inline constexpr std::size_t kBinsOffset = 128;

inline GuardedBins poisoned_bins() { return GuardedBins(kBins, kBinsOffset); }

// One call of a lab function on fresh device copies; the caller checks what it returns.
struct HistogramRun {
  GuardedBytes data;
  GuardedBins bins;
  ::testing::AssertionResult status;
};

inline HistogramRun run_histogram(HistogramFn impl, const std::string& name, const std::vector<unsigned char>& data,
                                  std::size_t offset) {
  GuardedBytes device_data(data, offset);
  GuardedBins device_bins = poisoned_bins();
  ::testing::AssertionResult status = call_and_wait(name, data.size(), [&] {
    return impl(device_data.data(), data.size(), device_bins.data(), nullptr);
  });
  return HistogramRun{std::move(device_data), std::move(device_bins), std::move(status)};
}

// Runs `impl` and checks the 256 counts, the counters' guard zones and (when asked) that the
// input came back unmodified.
inline void expect_histogram(HistogramFn impl, const std::string& name, const std::vector<unsigned char>& data,
                             const std::vector<unsigned int>& expected, std::size_t offset, bool check_input) {
  HistogramRun run = run_histogram(impl, name, data, offset);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.bins.guards_intact(name, "bins"));
  EXPECT_TRUE(bins_match(expected, run.bins.values(), "bins"));
  if (check_input) {
    EXPECT_TRUE(cudalabs::bit_identical(data, run.data.values(), name, "data"));
    EXPECT_TRUE(run.data.guards_intact(name, "data"));
  }
}

}  // namespace lab07
