// Lab 03 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 03_matmul
// The grader runs these too, plus hidden cases (sizes 1, primes, sizes that are not multiples of
// any tile, 4096 x 4096 x 4096, several seeds, misaligned pointers, awkward values); see README.md.
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
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

}  // namespace
