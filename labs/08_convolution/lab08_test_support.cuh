#pragma once
// Helpers shared by lab 08's public self-check and the grader's hidden and timed suites: seeded
// filters and data, the CPU references, the tolerance the YAML defines, a call that uploads a
// filter and runs one convolution on guarded device arrays, and checks whose messages say what
// to fix (wrong pixels by (x, y), and whether they all sit at the border).
// Namespace-neutral: it never names `student` or `solution`; tests pass the functions to call.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab08 {

// The signatures of the lab API, the same in every namespace.
using SetFilterFn = cudaError_t (*)(const float*, int, cudaStream_t);
using Convolve1dFn = cudaError_t (*)(const float*, float*, int, int, cudaStream_t);
using Convolve2dFn = cudaError_t (*)(const float*, float*, int, int, int, cudaStream_t);

using GuardedArray = cudalabs::GuardedArray<float>;
using cudalabs::bit_identical;

// --- Test data ---------------------------------------------------------------------------------

// Where the input values are drawn from (uniformly).
struct ValueRange {
  float lo;
  float hi;
  const char* name;
  double max_magnitude() const { return std::max(std::fabs(static_cast<double>(lo)), std::fabs(static_cast<double>(hi))); }
};

inline constexpr ValueRange kUnitValues{-1.0f, 1.0f, "values in [-1, 1)"};
// Large magnitudes: a kernel that mixes in a wrong neighbour is off by about 2^40, and the
// products stay far from float's limits (|tap * value| < 2^41).
inline constexpr ValueRange kHugeValues{-0x1p40f, 0x1p40f, "values in [-2^40, 2^40)"};
// Negative and nearly equal: with a zero-sum filter the exact result is tiny while every term is
// about 1000 times a tap, the worst cancellation the tolerance must allow for.
inline constexpr ValueRange kNegativeValues{-1000.0f, -999.0f, "values in [-1000, -999)"};

enum class FilterKind {
  Random,    // taps uniform in [-1, 1): sharpening-like, signs mixed
  Positive,  // taps uniform in [0, 1): blur-like
  ZeroSum    // Random minus its mean: edge-detector-like, a flat input gives (almost) 0
};

inline const char* to_string(FilterKind kind) {
  switch (kind) {
    case FilterKind::Random: return "random taps in [-1, 1)";
    case FilterKind::Positive: return "positive taps in [0, 1)";
    case FilterKind::ZeroSum: return "zero-sum taps";
  }
  return "?";
}

// A filter of `width` taps per side: width taps (1D) or width * width taps, row-major (2D).
struct Filter {
  int width = 1;
  int dimensions = 1;
  std::vector<float> taps;

  int radius() const { return width / 2; }
  double sum_of_magnitudes() const {
    double sum = 0;
    for (float t : taps) sum += std::fabs(static_cast<double>(t));
    return sum;
  }
  std::string describe() const {
    const std::string w = std::to_string(width);
    return dimensions == 1 ? w + "-tap filter" : w + " x " + w + " filter";
  }
};

inline Filter make_filter(int width, int dimensions, std::uint64_t seed, FilterKind kind = FilterKind::Random) {
  const std::size_t count = dimensions == 1 ? static_cast<std::size_t>(width) : static_cast<std::size_t>(width) * width;
  Filter filter{width, dimensions,
                cudalabs::uniform_floats(count, seed, kind == FilterKind::Positive ? 0.0f : -1.0f, 1.0f)};
  if (kind == FilterKind::ZeroSum) {
    double sum = 0;
    for (float t : filter.taps) sum += t;
    const float mean = static_cast<float>(sum / static_cast<double>(count));
    for (float& t : filter.taps) t -= mean;
  }
  return filter;
}

inline Filter make_filter_1d(int width, std::uint64_t seed, FilterKind kind = FilterKind::Random) {
  return make_filter(width, 1, seed, kind);
}
inline Filter make_filter_2d(int width, std::uint64_t seed, FilterKind kind = FilterKind::Random) {
  return make_filter(width, 2, seed, kind);
}

inline std::vector<float> make_values(std::size_t n, std::uint64_t seed, const ValueRange& range = kUnitValues) {
  return cudalabs::uniform_floats(n, seed, range.lo, range.hi);
}

inline double max_magnitude(const std::vector<float>& values) {
  double m = 0;
  for (float v : values) m = std::max(m, std::fabs(static_cast<double>(v)));
  return m;
}

// --- The tolerance (config/labs/08_convolution.yaml, `convolution`) -----------------------------
//
// An output may differ from the exact result by  abs * B + rel * |exact|,  where
// B = max |in| * sum |taps| bounds the sum of the magnitudes of the terms of every output. The
// YAML says why abs is what it is. `bound` is B for the data at hand.
inline cudalabs::Tolerance scaled_tolerance(cudalabs::Tolerance yaml, double bound) {
  return cudalabs::Tolerance{yaml.abs * bound, yaml.rel};
}

// --- CPU references: the header's formulas, each output summed exactly enough in double -----------
// (a product of two floats is exact in double; the sum's own rounding is ~2^-53 of the terms)
// and rounded once to float.

inline int clamp_index(int i, int n) { return std::clamp(i, 0, n - 1); }

inline std::vector<float> cpu_convolve_1d(const std::vector<float>& in, const Filter& filter) {
  const int n = static_cast<int>(in.size());
  const int r = filter.radius();
  std::vector<float> out(in.size());
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int k = 0; k < filter.width; ++k) {
      sum += static_cast<double>(filter.taps[k]) * static_cast<double>(in[clamp_index(i + k - r, n)]);
    }
    out[i] = static_cast<float>(sum);
  }
  return out;
}

// One output pixel of the 2D convolution (for spot checks of large images).
inline float cpu_convolve_2d_at(const std::vector<float>& in, int width, int height, const Filter& filter, int x,
                                int y) {
  const int r = filter.radius();
  double sum = 0;
  for (int j = 0; j < filter.width; ++j) {
    const float* row = in.data() + static_cast<std::size_t>(clamp_index(y + j - r, height)) * width;
    for (int k = 0; k < filter.width; ++k) {
      sum += static_cast<double>(filter.taps[static_cast<std::size_t>(j) * filter.width + k]) *
             static_cast<double>(row[clamp_index(x + k - r, width)]);
    }
  }
  return static_cast<float>(sum);
}

inline std::vector<float> cpu_convolve_2d(const std::vector<float>& in, int width, int height, const Filter& filter) {
  std::vector<float> out(in.size());
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      out[static_cast<std::size_t>(y) * width + x] = cpu_convolve_2d_at(in, width, height, filter, x, y);
    }
  }
  return out;
}

// --- Calls ------------------------------------------------------------------------------------------

inline constexpr const char* kFaultHint =
    "an out-of-bounds access? clamp every neighbour's index into the data, and check i < n (x < width, "
    "y < height) before every store";

// "convolve_2d_tiled(width = 37, height = 23, filter_width = 5)"
inline std::string call_1d(const char* function, int n, int filter_width) {
  return std::string(function) + "(n = " + std::to_string(n) + ", filter_width = " + std::to_string(filter_width) + ")";
}
inline std::string call_2d(const char* function, int width, int height, int filter_width) {
  return std::string(function) + "(width = " + std::to_string(width) + ", height = " + std::to_string(height) +
         ", filter_width = " + std::to_string(filter_width) + ")";
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const std::string& call, bool empty_input, Launch&& launch) {
  return cudalabs::call_and_wait(call, empty_input, std::forward<Launch>(launch), kFaultHint);
}

// Uploads `filter` with set_filter_1d or set_filter_2d (`name` says which) and waits.
inline ::testing::AssertionResult set_filter(SetFilterFn set, const char* name, const Filter& filter) {
  // Pinned host memory: the grader's runner process maps it too (the taps are host memory).
  const cudalabs::PinnedHostBuffer<float> taps(filter.taps);
  return call_and_wait(std::string(name) + "(filter_width = " + std::to_string(filter.width) + ")", false,
                       [&] { return set(taps.data(), filter.width, nullptr); });
}

// One convolution on guarded device arrays: `in` holding the values, `out` poisoned, each
// starting the given number of floats into its allocation (1 to 3: not 16-byte aligned).
struct ConvolutionRun {
  GuardedArray in;
  GuardedArray out;
  ::testing::AssertionResult status;
};

inline ConvolutionRun run_1d(SetFilterFn set, Convolve1dFn convolve, const char* name, const std::vector<float>& values,
                             const Filter& filter, std::size_t in_offset = 0, std::size_t out_offset = 0) {
  GuardedArray in(values, in_offset), out(values.size(), out_offset);
  const int n = static_cast<int>(values.size());
  ::testing::AssertionResult status = set_filter(set, "set_filter_1d", filter);
  if (status) {
    status = call_and_wait(call_1d(name, n, filter.width), n == 0,
                           [&] { return convolve(in.data(), out.data(), n, filter.width, nullptr); });
  }
  return ConvolutionRun{std::move(in), std::move(out), std::move(status)};
}

inline ConvolutionRun run_2d(SetFilterFn set, Convolve2dFn convolve, const char* name, const std::vector<float>& values,
                             int width, int height, const Filter& filter, std::size_t in_offset = 0,
                             std::size_t out_offset = 0) {
  GuardedArray in(values, in_offset), out(values.size(), out_offset);
  ::testing::AssertionResult status = set_filter(set, "set_filter_2d", filter);
  if (status) {
    status = call_and_wait(call_2d(name, width, height, filter.width), width == 0 || height == 0,
                           [&] { return convolve(in.data(), out.data(), width, height, filter.width, nullptr); });
  }
  return ConvolutionRun{std::move(in), std::move(out), std::move(status)};
}

// --- Checks --------------------------------------------------------------------------------------

// What a failed comparison adds: the first wrong outputs as (x, y) for an image, and a hint when
// every listed one lies within the filter's radius of an edge (the border rule or the halo).
// width == 0: 1D data of `height` samples.
inline ::testing::AssertionResult explain_report(const cudalabs::CompareReport& report, int width, int height,
                                                 int radius, const std::string& what) {
  ::testing::AssertionResult result = cudalabs::matches(report, what);
  if (report.ok() || report.first.empty()) return result;
  bool all_at_border = true;
  if (width > 0) {
    result << "\n  as pixels (x, y):";
    for (const cudalabs::Mismatch& m : report.first) {
      const int x = static_cast<int>(m.index % width);
      const int y = static_cast<int>(m.index / width);
      result << " (" << x << ", " << y << ")";
      all_at_border = all_at_border && (x < radius || y < radius || x >= width - radius || y >= height - radius);
    }
  } else {
    for (const cudalabs::Mismatch& m : report.first) {
      const long long i = static_cast<long long>(m.index);
      all_at_border = all_at_border && (i < radius || i >= height - radius);
    }
  }
  if (all_at_border && radius > 0) {
    result << "\n  every listed output lies within " << radius
           << " (the filter's radius) of an edge: check the border rule, clamp to edge (a neighbour outside reads "
              "the nearest sample inside), and in a tiled kernel the halo";
  }
  return result;
}

// Every check on one finished run: the calls succeeded, out holds the convolution within
// `tolerance` (already scaled), nothing outside out was written, in is unchanged.
// width == 0: 1D data.
inline void expect_convolved(const ConvolutionRun& run, const char* name, const std::vector<float>& values,
                             const std::vector<float>& expected, int width, int height, int radius,
                             cudalabs::Tolerance tolerance, const std::string& what) {
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.out.guards_intact(name, "out"));
  EXPECT_TRUE(explain_report(cudalabs::compare_floats(expected, run.out.values(), tolerance), width, height, radius,
                             what));
  EXPECT_TRUE(bit_identical(values, run.in.values(), name, "in"));
  EXPECT_TRUE(run.in.guards_intact(name, "in"));
}

// Nothing to do (n == 0, or width or height 0): the call must succeed with null pointers and with
// valid ones, and leave a 5-float sentinel `out` untouched.
inline void expect_empty_1d_is_a_no_op(SetFilterFn set, Convolve1dFn convolve, const char* name) {
  const Filter filter = make_filter_1d(5, 808);
  ASSERT_TRUE(set_filter(set, "set_filter_1d", filter));
  ASSERT_TRUE(call_and_wait(call_1d(name, 0, 5), true, [&] { return convolve(nullptr, nullptr, 0, 5, nullptr); }));
  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  GuardedArray in(sentinel, 0), out(sentinel, 0);
  ASSERT_TRUE(call_and_wait(call_1d(name, 0, 5), true, [&] { return convolve(in.data(), out.data(), 0, 5, nullptr); }));
  EXPECT_TRUE(bit_identical(sentinel, out.values(), std::string(name) + " with n = 0", "out"));
  EXPECT_TRUE(out.guards_intact(name, "out"));
}

inline void expect_empty_2d_is_a_no_op(SetFilterFn set, Convolve2dFn convolve, const char* name) {
  const Filter filter = make_filter_2d(3, 809);
  ASSERT_TRUE(set_filter(set, "set_filter_2d", filter));
  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  GuardedArray in(sentinel, 0), out(sentinel, 0);
  for (const auto& [width, height] : {std::pair<int, int>{0, 0}, {0, 5}, {5, 0}, {0, 65535}}) {
    SCOPED_TRACE(std::string(name) + " on an empty " + std::to_string(width) + " x " + std::to_string(height) +
                 " image");
    ASSERT_TRUE(call_and_wait(call_2d(name, width, height, 3), true, [&, width = width, height = height] {
      return convolve(nullptr, nullptr, width, height, 3, nullptr);
    }));
    ASSERT_TRUE(call_and_wait(call_2d(name, width, height, 3), true, [&, width = width, height = height] {
      return convolve(in.data(), out.data(), width, height, 3, nullptr);
    }));
  }
  EXPECT_TRUE(bit_identical(sentinel, out.values(), std::string(name) + " with an empty image", "out"));
  EXPECT_TRUE(out.guards_intact(name, "out"));
}

}  // namespace lab08
