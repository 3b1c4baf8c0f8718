// Lab 05 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 05_reduction
// The grader runs these too, plus hidden cases (sizes 1, primes, sizes that are not multiples of
// any block size, 2^26, several seeds, misaligned input, overflow, NaN, infinities, signed zeros,
// the maximum at either end); see README.md.
#include <cstddef>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "lab05_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "reduction.cuh"
#undef LAB_IMPL

static_assert(student::kReductionWorkspaceBytes == lab05::kWorkspaceBytes, "workspace size out of sync");

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// 1000 is not a multiple of a warp or of a typical block size.
constexpr std::size_t kSmall = 1000;

TEST_F(SelfCheck, SumIntSmall) {
  const std::vector<int> x = cudalabs::uniform_ints(kSmall, 501, -1000, 1000);
  const auto run = lab05::run_reduction<int>(&student::sum_int, "sum_int", x);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "sum_int"));
  EXPECT_TRUE(lab05::int_result_is(lab05::cpu_sum_int(x), run, "sum of the ints"));
}

TEST_F(SelfCheck, SumFloatSmall) {
  const std::vector<float> x = cudalabs::uniform_floats(kSmall, 502);
  const auto run = lab05::run_reduction<float>(&student::sum_float, "sum_float", x);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "sum_float"));
  const cudalabs::Tolerance tolerance = lab05::sum_float_tolerance(x, cudalabs::lab_tolerance("sum_float"));
  EXPECT_TRUE(lab05::float_result_is(lab05::cpu_sum_double(x), run, tolerance, "sum of the floats"));
}

TEST_F(SelfCheck, MaxFloatSmall) {
  std::vector<float> x = cudalabs::uniform_floats(kSmall, 503, -100.0f, 0.0f);  // all negative
  x[kSmall - 1] = -0.5f;  // the maximum is the very last element
  const auto run = lab05::run_reduction<float>(&student::max_float, "max_float", x);
  ASSERT_TRUE(run.status);
  EXPECT_TRUE(lab05::memory_respected(run, x, "max_float"));
  EXPECT_TRUE(lab05::float_result_is(lab05::cpu_max_float(x), run, cudalabs::lab_tolerance("max_float"),
                                     "maximum of the floats"));
}

TEST_F(SelfCheck, ZeroLength) {
  // n == 0: in may be null, but the result is still written: 0, 0.0f, -infinity.
  const auto ints = lab05::run_reduction<int>(&student::sum_int, "sum_int", {});
  ASSERT_TRUE(ints.status);
  EXPECT_TRUE(lab05::int_result_is(0, ints, "sum of no ints"));

  const auto sums = lab05::run_reduction<float>(&student::sum_float, "sum_float", {});
  ASSERT_TRUE(sums.status);
  EXPECT_TRUE(lab05::float_result_is(0.0, sums, {0, 0}, "sum of no floats"));

  const auto maxima = lab05::run_reduction<float>(&student::max_float, "max_float", {});
  ASSERT_TRUE(maxima.status);
  EXPECT_TRUE(lab05::float_result_is(-std::numeric_limits<double>::infinity(), maxima, {0, 0},
                                     "maximum of no floats"));
}

}  // namespace
