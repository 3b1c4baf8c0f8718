// Lab 01 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 01_vector_add
// The grader runs these too, plus hidden cases (sizes 1, 31, 1000003, 2^26, several seeds,
// misaligned pointers); see README.md.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
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

}  // namespace
