// Lab 01 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 01_vector_add
// The grader runs these too, plus hidden cases (sizes 1, 31, 1000003, 2^26, several seeds,
// misaligned pointers); see README.md.
// Preview.* time your functions alone at 2^26 floats against 85% of your GPU's copy bandwidth: a
// preview of the graded timed cases, worth no points (see "What fast means here" in README.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_preview.hpp"
#include "lab01_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "vector_add.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// 1000 is not a multiple of a warp or of a typical block size.
constexpr std::size_t kSmall = 1000;

TEST_F(SelfCheck, VectorAddSmall) {
  const std::vector<float> a = cudalabs::uniform_floats(kSmall, 101);
  const std::vector<float> b = cudalabs::uniform_floats(kSmall, 102);
  lab01::GuardedArray da(a, 0), db(b, 0), dc(kSmall, 0);  // c starts as 0xFF poison

  ASSERT_TRUE(lab01::call_and_wait("vector_add", kSmall, [&] {
    return student::vector_add(da.data(), db.data(), dc.data(), kSmall);
  }));
  EXPECT_TRUE(dc.guards_intact("vector_add", "c"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats(lab01::cpu_vector_add(a, b), dc.values(),
                                                         cudalabs::lab_tolerance("vector_add")),
                                "c = a + b"));
}

TEST_F(SelfCheck, VectorAddZeroLength) {
  // n == 0 must launch nothing and succeed, with null pointers ...
  ASSERT_TRUE(lab01::call_and_wait("vector_add", 0, [] {
    return student::vector_add(nullptr, nullptr, nullptr, 0);
  }));
  // ... and with valid ones, leaving the output untouched.
  lab01::GuardedArray da(std::vector<float>{1.0f}, 0), db(std::vector<float>{2.0f}, 0), dc(0, 0);
  ASSERT_TRUE(lab01::call_and_wait("vector_add", 0, [&] {
    return student::vector_add(da.data(), db.data(), dc.data(), 0);
  }));
  EXPECT_TRUE(dc.guards_intact("vector_add", "c"));
}

TEST_F(SelfCheck, SaxpySmall) {
  const float alpha = 2.5f;
  const std::vector<float> x = cudalabs::uniform_floats(kSmall, 201);
  const std::vector<float> y = cudalabs::uniform_floats(kSmall, 202);
  lab01::GuardedArray dx(x, 0), dy(y, 0);

  ASSERT_TRUE(lab01::call_and_wait("saxpy", kSmall, [&] {
    return student::saxpy(alpha, dx.data(), dy.data(), kSmall);
  }));
  EXPECT_TRUE(dy.guards_intact("saxpy", "y"));
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats(lab01::cpu_saxpy(alpha, x, y), dy.values(),
                                                         cudalabs::lab_tolerance("saxpy")),
                                "y = alpha * x + y"));
}

TEST_F(SelfCheck, SaxpyZeroLength) {
  ASSERT_TRUE(lab01::call_and_wait("saxpy", 0, [] { return student::saxpy(2.0f, nullptr, nullptr, 0); }));
  const std::vector<float> y{7.0f};
  lab01::GuardedArray dx(std::vector<float>{1.0f}, 0), dy(y, 0);
  ASSERT_TRUE(lab01::call_and_wait("saxpy", 0, [&] { return student::saxpy(2.0f, dx.data(), dy.data(), 0); }));
  // y[0] lies past n == 0: it must keep its value.
  EXPECT_TRUE(lab01::bit_identical(y, dy.values(), "saxpy with n = 0", "y"));
  EXPECT_TRUE(dy.guards_intact("saxpy", "y"));
}

// ---- timing previews ---------------------------------------------------------------------------
// Your code alone at the size the grade times, with the checks the grade's timed cases make: an
// untimed call first must be right, every sample gets fresh inputs (and a poisoned output) made on
// the GPU from a per-run seed, and the first sample and a seeded share of the others are checked
// against the CPU reference above (cudalabs/performance_preview.hpp).

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

using cudalabs::timing::round_seed;

// n floats of device memory, copied to the host once the stream's work is done.
std::vector<float> download(const float* device, std::size_t n, cudaStream_t stream) {
  std::vector<float> host(n);
  CUDALABS_CHECK(cudaStreamSynchronize(stream));
  CUDALABS_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// "" when `actual` matches the CPU reference, else what differs.
std::string against_cpu(const std::vector<float>& expected, const std::vector<float>& actual, const char* tolerance,
                        const char* what) {
  const cudalabs::CompareReport report =
      cudalabs::compare_floats(expected, actual, cudalabs::lab_tolerance(tolerance));
  return report.ok() ? "" : report.to_string(what);
}

TEST_F(Preview, vector_add) {
  cudalabs::DeviceBuffer<float> da(kTimedSize), db(kTimedSize), dc(kTimedSize);
  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(da.data(), kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(db.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
    cudalabs::poison_async(dc.data(), dc.bytes(), lab01::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::vector_add(da.data(), db.data(), dc.data(), kTimedSize, stream);
  };
  // The inputs are checked unchanged before this runs, so their copies are the round's inputs.
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) {
    const std::vector<float> expected =
        lab01::cpu_vector_add(download(da.data(), kTimedSize, stream), download(db.data(), kTimedSize, stream));
    return against_cpu(expected, download(dc.data(), kTimedSize, stream), "vector_add", "c = a + b");
  };
  work.workload.sealed_inputs = {{da.data(), da.bytes(), "a"}, {db.data(), db.bytes(), "b"}};
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read a and b, write c
  cudalabs::run_performance_preview("vector_add", work);
}

TEST_F(Preview, saxpy) {
  const float alpha = 1.75f;
  cudalabs::DeviceBuffer<float> dx(kTimedSize), dy(kTimedSize), y_before(kTimedSize);
  cudalabs::PreviewWork work;
  // saxpy works in place: every sample regenerates y.
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(dx.data(), kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(dy.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::saxpy(alpha, dx.data(), dy.data(), kTimedSize, stream);
  };
  // The round's y as it was before the call, made again from its seed.
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(y_before.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
    const std::vector<float> expected = lab01::cpu_saxpy(alpha, download(dx.data(), kTimedSize, stream),
                                                         download(y_before.data(), kTimedSize, stream));
    return against_cpu(expected, download(dy.data(), kTimedSize, stream), "saxpy", "y = alpha * x + y");
  };
  work.workload.sealed_inputs = {{dx.data(), dx.bytes(), "x"}};
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read x and y, write y
  work.flops = 2.0 * kTimedSize;
  cudalabs::run_performance_preview("saxpy", work);
}

}  // namespace
