#pragma once
// Helpers shared by lab 03's public self-check and the grader's hidden suite: seeded matrices,
// the CPU reference (in double, with a rounding-error bound per element), the comparison that
// names rows and columns, and the call that runs one implementation on guarded device arrays.
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
//
// Why a bound per element rather than a fixed relative tolerance: each element of C is a sum of
// k products, and the GPU adds them in another order than the CPU (tiles, FMAs, several partial
// sums). Summed in float in any order, the result differs from the exact one by at most about
// k * u * S, where u = 2^-24 is float's unit roundoff and S = sum_p |a_ip| * |b_pj| (Higham,
// "Accuracy and Stability of Numerical Algorithms", §3.1: the bound gamma_k for dot products).
// A fixed relative tolerance would fail correct code wherever terms cancel (C near 0 while S is
// not) and let wrong code pass where k is small. The YAML tolerance `matmul` scales this bound:
// allowed difference = abs + rel * k * u * S, computed in double from the inputs.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab03 {

// The signature of both lab functions, the same in every namespace.
using MatmulFn = cudaError_t (*)(const float*, const float*, float*, int, int, int, cudaStream_t);

using GuardedArray = cudalabs::GuardedArray<float>;
using cudalabs::bit_identical;

// float's unit roundoff, 2^-24: the largest relative error of one rounding.
inline constexpr double kUnitRoundoff = 1.0 / 16777216.0;

// C (m x n) = A (m x k) * B (k x n).
struct Shape {
  int m = 0;
  int n = 0;
  int k = 0;

  std::size_t a_size() const { return static_cast<std::size_t>(m) * k; }
  std::size_t b_size() const { return static_cast<std::size_t>(k) * n; }
  std::size_t c_size() const { return static_cast<std::size_t>(m) * n; }
  bool empty_output() const { return m == 0 || n == 0; }
  std::string to_string() const {
    return "m = " + std::to_string(m) + ", n = " + std::to_string(n) + ", k = " + std::to_string(k);
  }
};

// Where each array starts inside its allocation, in floats (cudaMalloc is 256-byte aligned, so
// an offset that is not a multiple of 4 makes the pointer not 16-byte aligned).
struct Offsets {
  std::size_t a = 0;
  std::size_t b = 0;
  std::size_t c = 0;
};

struct Matrices {
  std::vector<float> a;  // m x k, row-major
  std::vector<float> b;  // k x n, row-major
};

// Uniform values in [lo, hi): a from `seed`, b from `seed + 1`.
inline Matrices random_matrices(const Shape& s, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  return {cudalabs::uniform_floats(s.a_size(), seed, lo, hi), cudalabs::uniform_floats(s.b_size(), seed + 1, lo, hi)};
}

// The exact product (to double precision) and each element's rounding-error scale k * u * S.
struct Reference {
  std::vector<double> value;
  std::vector<double> error_scale;
};

// Everything, on the CPU: m * n * k multiply-adds, so keep that below ~1e8 per call.
inline Reference cpu_matmul(const Shape& s, const std::vector<float>& a, const std::vector<float>& b) {
  Reference ref{std::vector<double>(s.c_size(), 0.0), std::vector<double>(s.c_size(), 0.0)};
  const double scale = static_cast<double>(s.k) * kUnitRoundoff;
  for (int i = 0; i < s.m; ++i) {
    double* value = ref.value.data() + static_cast<std::size_t>(i) * s.n;
    double* magnitude = ref.error_scale.data() + static_cast<std::size_t>(i) * s.n;
    for (int p = 0; p < s.k; ++p) {  // i, p, j order: B and C rows are walked contiguously
      const double aip = a[static_cast<std::size_t>(i) * s.k + p];
      const float* b_row = b.data() + static_cast<std::size_t>(p) * s.n;
      for (int j = 0; j < s.n; ++j) {
        value[j] += aip * b_row[j];  // float * float is exact in double
        magnitude[j] += std::fabs(aip * b_row[j]);
      }
    }
    for (int j = 0; j < s.n; ++j) magnitude[j] *= scale;
  }
  return ref;
}

// The same for chosen elements only (for sizes whose full product is too slow on the CPU).
struct Sample {
  std::size_t row = 0;
  std::size_t col = 0;
  double value = 0;
  double error_scale = 0;
};

// About `count` elements: the four corners, the last row and column at a few places (where
// partial tiles live), and seeded random ones. Only row and col are set.
inline std::vector<Sample> sample_positions(const Shape& s, std::size_t count, std::uint64_t seed) {
  std::vector<Sample> samples;
  if (s.empty_output()) return samples;
  const std::size_t last_row = s.m - 1, last_col = s.n - 1;
  std::vector<std::pair<std::size_t, std::size_t>> where = {{0, 0}, {0, last_col}, {last_row, 0}, {last_row, last_col}};
  cudalabs::SplitMix64 rng(seed);
  for (int e = 0; e < 16; ++e) {
    where.emplace_back(last_row, rng.next_int(0, static_cast<std::int64_t>(last_col)));
    where.emplace_back(rng.next_int(0, static_cast<std::int64_t>(last_row)), last_col);
  }
  while (where.size() < count) {
    where.emplace_back(rng.next_int(0, static_cast<std::int64_t>(last_row)),
                       rng.next_int(0, static_cast<std::int64_t>(last_col)));
  }
  for (const auto& [row, col] : where) samples.push_back({row, col, 0.0, 0.0});
  return samples;
}

inline std::vector<Sample> cpu_matmul_samples(const Shape& s, const std::vector<float>& a, const std::vector<float>& b,
                                              std::size_t count, std::uint64_t seed) {
  std::vector<Sample> samples = sample_positions(s, count, seed);
  const double scale = static_cast<double>(s.k) * kUnitRoundoff;
  for (Sample& e : samples) {
    double value = 0, magnitude = 0;
    for (std::size_t p = 0; p < static_cast<std::size_t>(s.k); ++p) {
      const double product = static_cast<double>(a[e.row * s.k + p]) * b[p * s.n + e.col];
      value += product;
      magnitude += std::fabs(product);
    }
    e.value = value;
    e.error_scale = magnitude * scale;
  }
  return samples;
}

// The first wrong elements of C, named by (row, col), with what went wrong.
class MatrixMismatches {
 public:
  MatrixMismatches(const Shape& s, cudalabs::Tolerance tolerance) : shape_(s), tolerance_(tolerance) {}

  // Checks one element; `poisoned` says whether it still holds the 0xFF poison.
  void check(std::size_t row, std::size_t col, double expected, double error_scale, float actual, bool poisoned) {
    ++checked_;
    const double allowed = tolerance_.abs + tolerance_.rel * error_scale;
    const bool ok = !poisoned && std::isfinite(actual) && std::fabs(actual - expected) <= allowed;
    if (ok) return;
    ++wrong_;
    if (poisoned) ++unwritten_;
    min_row_ = std::min(min_row_, row);
    min_col_ = std::min(min_col_, col);
    if (listed_.size() < kListed) {
      std::ostringstream line;
      line.precision(9);
      line << "  C[" << row << "][" << col << "] expected " << expected << ", got ";
      if (poisoned) {
        line << "<never written (still 0xFF poison)>";
      } else {
        line << actual << " (difference " << std::fabs(actual - expected) << ", allowed " << allowed << ")";
      }
      listed_.push_back(line.str());
    }
  }

  ::testing::AssertionResult result(const std::string& what) const {
    if (wrong_ == 0) {
      return ::testing::AssertionSuccess() << what << ": all " << checked_ << " checked elements match";
    }
    ::testing::AssertionResult failure = ::testing::AssertionFailure();
    failure << what << " (" << shape_.to_string() << "): " << wrong_ << " of " << checked_
            << " checked elements are wrong (allowed difference: " << tolerance_.abs << " + " << tolerance_.rel
            << " * k * 2^-24 * sum_p |a_ip * b_pj|)";
    if (unwritten_ == checked_) {
      failure << "; nothing was written (did the kernel run?)";
    } else if (unwritten_ > 0) {
      failure << "; " << unwritten_ << " never written (check that the grid covers all m rows and n columns)";
    }
    if (unwritten_ < checked_ && (min_row_ > 0 || min_col_ > 0)) {
      failure << "; every wrong element lies in row >= " << min_row_ << " and column >= " << min_col_
              << " (edge tiles? sizes need not be multiples of the tile)";
    }
    for (const std::string& line : listed_) failure << "\n" << line;
    if (wrong_ > listed_.size()) failure << "\n  ... and " << wrong_ - listed_.size() << " more";
    return failure;
  }

 private:
  static constexpr std::size_t kListed = 10;
  Shape shape_;
  cudalabs::Tolerance tolerance_;
  std::size_t checked_ = 0, wrong_ = 0, unwritten_ = 0;
  std::size_t min_row_ = SIZE_MAX, min_col_ = SIZE_MAX;
  std::vector<std::string> listed_;
};

inline bool is_poison(float value) {
  std::uint32_t bits = 0;
  static_assert(sizeof(bits) == sizeof(value));
  std::memcpy(&bits, &value, sizeof(bits));
  return bits == 0xFFFFFFFFu;
}

// Every element of C against the full CPU reference.
inline ::testing::AssertionResult matches(const Shape& s, const Reference& ref, const std::vector<float>& c,
                                          cudalabs::Tolerance tolerance, const std::string& what) {
  if (c.size() != s.c_size()) {
    return ::testing::AssertionFailure() << what << ": expected " << s.c_size() << " elements, got " << c.size();
  }
  MatrixMismatches report(s, tolerance);
  for (std::size_t i = 0; i < c.size(); ++i) {
    report.check(i / s.n, i % s.n, ref.value[i], ref.error_scale[i], c[i], is_poison(c[i]));
  }
  return report.result(what);
}

// Elements of C still holding the poison: how many, and the first.
struct Unwritten {
  std::size_t count = 0;
  std::size_t first = 0;
};

// The verdict of matches_samples from what it looks at: C at the sampled elements (`sampled[i]`
// is C at samples[i]) and C's unwritten elements.
inline ::testing::AssertionResult sampled_elements_match(const Shape& s, const std::vector<Sample>& samples,
                                                         const std::vector<float>& sampled, Unwritten unwritten,
                                                         cudalabs::Tolerance tolerance, const std::string& what) {
  MatrixMismatches report(s, tolerance);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& e = samples[i];
    report.check(e.row, e.col, e.value, e.error_scale, sampled[i], is_poison(sampled[i]));
  }
  if (unwritten.count != 0) {
    const std::size_t i = unwritten.first;
    return ::testing::AssertionFailure() << what << " (" << s.to_string() << "): " << unwritten.count
                                         << " elements of C were never written (still 0xFF poison), the first C["
                                         << i / s.n << "][" << i % s.n
                                         << "] (check that the grid covers all m rows and n columns)";
  }
  return report.result(what + " (" + std::to_string(samples.size()) + " sampled elements)");
}

// The sampled elements of C against the CPU, and every element checked for having been written.
inline ::testing::AssertionResult matches_samples(const Shape& s, const std::vector<Sample>& samples,
                                                  const std::vector<float>& c, cudalabs::Tolerance tolerance,
                                                  const std::string& what) {
  if (c.size() != s.c_size()) {
    return ::testing::AssertionFailure() << what << ": expected " << s.c_size() << " elements, got " << c.size();
  }
  std::vector<float> sampled;
  for (const Sample& e : samples) sampled.push_back(c[e.row * s.n + e.col]);
  Unwritten unwritten;
  const auto first = std::find_if(c.begin(), c.end(), is_poison);
  if (first != c.end()) {
    unwritten.first = static_cast<std::size_t>(first - c.begin());
    unwritten.count = static_cast<std::size_t>(std::count_if(c.begin(), c.end(), is_poison));
  }
  return sampled_elements_match(s, samples, sampled, unwritten, tolerance, what);
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const char* function, const Shape& s, Launch&& launch) {
  return cudalabs::call_and_wait(std::string(function) + "(" + s.to_string() + ")", s.empty_output(),
                                 std::forward<Launch>(launch),
                                 "an out-of-bounds access? check rows against m, columns against n and the k index "
                                 "of every tile load against k");
}

// One call of `fn` on fresh guarded copies of a and b, C poisoned; the caller checks the arrays.
struct Run {
  GuardedArray a, b, c;
  ::testing::AssertionResult status;
};

inline Run run(MatmulFn fn, const char* name, const Shape& s, const Matrices& in, Offsets offsets = {}) {
  GuardedArray da(in.a, offsets.a), db(in.b, offsets.b), dc(s.c_size(), offsets.c);
  ::testing::AssertionResult status =
      call_and_wait(name, s, [&] { return fn(da.data(), db.data(), dc.data(), s.m, s.n, s.k, nullptr); });
  return Run{std::move(da), std::move(db), std::move(dc), std::move(status)};
}

}  // namespace lab03
