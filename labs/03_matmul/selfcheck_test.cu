// Lab 03 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 03_matmul
// The grader runs these too, plus hidden cases (sizes 1, primes, sizes that are not multiples of
// any tile, 4096 x 4096 x 4096, several seeds, misaligned pointers, awkward values); see README.md.
// Preview.matmul_tiled times your matmul_tiled alone at the graded 4096 x 4096 x 4096 against 31%
// of your GPU's FP32 peak: a preview of the graded timed case, worth no points ("Check your work"
// in README.md).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_preview.hpp"
#include "cudalabs/timing/device_peaks.hpp"
#include "lab03_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "matmul.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// None of these sizes is a multiple of 16 or 32, and m, n, k all differ: a mixed-up row and
// column or a missing bounds check shows up.
void check_small(lab03::MatmulFn fn, const char* name, const lab03::Shape& s, std::uint64_t seed) {
  SCOPED_TRACE(std::string(name) + ": " + s.to_string() + ", seed " + std::to_string(seed));
  const lab03::Matrices in = lab03::random_matrices(s, seed);
  lab03::Run run = lab03::run(fn, name, s, in);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(run.c.guards_intact(name, "c"));
  EXPECT_TRUE(lab03::matches(s, lab03::cpu_matmul(s, in.a, in.b), run.c.values(), cudalabs::lab_tolerance("matmul"),
                             "C = A * B"));
}

// m or n == 0: nothing to do, with null pointers. k == 0: C is all zeros.
void check_zero_sizes(lab03::MatmulFn fn, const char* name) {
  for (const lab03::Shape s : {lab03::Shape{0, 0, 0}, lab03::Shape{0, 5, 3}, lab03::Shape{4, 0, 3}}) {
    ASSERT_TRUE(lab03::call_and_wait(name, s, [&] { return fn(nullptr, nullptr, nullptr, s.m, s.n, s.k, nullptr); }));
  }
  const lab03::Shape s{3, 5, 0};
  lab03::GuardedArray dc(s.c_size(), 0);
  ASSERT_TRUE(lab03::call_and_wait(name, s, [&] { return fn(nullptr, nullptr, dc.data(), s.m, s.n, s.k, nullptr); }));
  EXPECT_TRUE(dc.guards_intact(name, "c"));
  EXPECT_TRUE(lab03::matches(s, lab03::cpu_matmul(s, {}, {}), dc.values(), cudalabs::lab_tolerance("matmul"),
                             "C = A * B with k = 0 (all zeros)"));
}

TEST_F(SelfCheck, MatmulSmall) { check_small(&student::matmul, "matmul", {33, 47, 19}, 301); }

TEST_F(SelfCheck, MatmulZeroSizes) { check_zero_sizes(&student::matmul, "matmul"); }

TEST_F(SelfCheck, MatmulTiledSmall) { check_small(&student::matmul_tiled, "matmul_tiled", {70, 90, 50}, 302); }

TEST_F(SelfCheck, MatmulTiledZeroSizes) { check_zero_sizes(&student::matmul_tiled, "matmul_tiled"); }

// --- Timing preview ---------------------------------------------------------------------------
// matmul_tiled alone at the graded size, 4096 x 4096 x 4096, on fresh A and B every sample (values
// uniform in [-1, 1), as in the graded case). The whole product (2 * 4096^3 = 137 GFLOP) would take
// the CPU far longer than the timing, so every sample is checked on part of C against the CPU in
// double, with the lab's error bound: 2 random rows whole, then 256 elements (corners, last row
// and column, random ones: the hidden 4096^3 test's choice).

class Preview : public cudalabs::GpuTest {};

constexpr int kSide = 4096;
constexpr lab03::Shape kTimedShape{kSide, kSide, kSide};
constexpr int kCheckedRows = 2;
constexpr std::size_t kCheckedElements = 256;

using cudalabs::timing::round_seed;

// `count` floats of device memory at `device`, copied into `host`.
void download(std::vector<float>& host, const float* device, std::size_t count) {
  host.resize(count);
  CUDALABS_CHECK(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
}

// The sampled elements' exact values and error scales (as lab03::cpu_matmul_samples computes
// them), from each sample's row of A (`a_rows`, one after another) and the whole of B. p is the
// outer loop so that B is read row by row: walking a column touches a new page per element.
void cpu_sampled_elements(std::vector<lab03::Sample>& samples, const std::vector<float>& a_rows,
                          const std::vector<float>& b, const lab03::Shape& s) {
  std::vector<double> magnitude(samples.size(), 0.0);
  for (std::size_t p = 0; p < static_cast<std::size_t>(s.k); ++p) {
    const float* b_row = b.data() + p * s.n;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double product = static_cast<double>(a_rows[i * s.k + p]) * b_row[samples[i].col];
      samples[i].value += product;
      magnitude[i] += std::fabs(product);
    }
  }
  const double scale = static_cast<double>(s.k) * lab03::kUnitRoundoff;
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i].error_scale = magnitude[i] * scale;
}

TEST_F(Preview, matmul_tiled) {
  const lab03::Shape& s = kTimedShape;
  cudalabs::DeviceBuffer<float> a(s.a_size()), b(s.b_size()), c(s.c_size());
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance("matmul");
  // Host copies reused by every check: B whole (64 MiB: one row of C needs all of it) and the
  // checked rows of A and C.
  std::vector<float> host_b, a_row, c_row, a_rows;
  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(a.data(), a.size(), round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(b.data(), b.size(), round_seed(seed, 1), -1.0f, 1.0f, stream);
    cudalabs::poison_async(c.data(), c.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::matmul_tiled(a.data(), b.data(), c.data(), s.m, s.n, s.k, stream);
  };
  // A and B are checked unchanged before this runs, so their values are the sample's inputs.
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    download(host_b, b.data(), s.b_size());
    lab03::MatrixMismatches report(s, tolerance);
    for (int r = 0; r < kCheckedRows; ++r) {
      const std::size_t row = round_seed(seed, 100 + static_cast<std::uint64_t>(r)) % s.m;
      download(a_row, a.data() + row * s.k, s.k);
      download(c_row, c.data() + row * s.n, s.n);
      const lab03::Reference want = lab03::cpu_matmul({1, s.n, s.k}, a_row, host_b);
      for (std::size_t col = 0; col < static_cast<std::size_t>(s.n); ++col) {
        report.check(row, col, want.value[col], want.error_scale[col], c_row[col], lab03::is_poison(c_row[col]));
      }
    }
    std::vector<lab03::Sample> samples = lab03::sample_positions(s, kCheckedElements, round_seed(seed, 200));
    a_rows.resize(samples.size() * s.k);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      CUDALABS_CHECK(cudaMemcpy(a_rows.data() + i * s.k, a.data() + samples[i].row * s.k, s.k * sizeof(float),
                                cudaMemcpyDeviceToHost));
    }
    cpu_sampled_elements(samples, a_rows, host_b, s);
    for (const lab03::Sample& e : samples) {
      float got = 0;
      CUDALABS_CHECK(cudaMemcpy(&got, c.data() + e.row * s.n + e.col, sizeof got, cudaMemcpyDeviceToHost));
      report.check(e.row, e.col, e.value, e.error_scale, got, lab03::is_poison(got));
    }
    const ::testing::AssertionResult verdict = report.result(
        "matmul_tiled, " + std::to_string(kCheckedRows) + " whole rows and " + std::to_string(samples.size()) +
        " sampled elements of C");
    return verdict ? "" : verdict.message();
  };
  work.workload.sealed_inputs = {{a.data(), a.bytes(), "a"}, {b.data(), b.bytes(), "b"}};
  work.flops = 2.0 * s.m * s.n * s.k;  // one multiply and one add per (row, column, p)
  work.peak_gflops = cudalabs::timing::fp32_peak_gflops();
  work.bytes = 4.0 * (static_cast<double>(s.a_size()) + s.b_size() + s.c_size());  // A, B read and C written once
  cudalabs::run_performance_preview("matmul_tiled", work);
}

}  // namespace
