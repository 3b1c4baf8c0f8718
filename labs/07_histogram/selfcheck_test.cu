// Lab 07 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 07_histogram
// The grader runs these too, plus hidden cases (sizes 0, 1, primes, 2^28 bytes, misaligned data,
// all-equal and few-valued data, several seeds) and two timed cases; see README.md.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "lab07_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "histogram.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

// 10007 is a prime: not a multiple of a warp, a block, or a 4- or 16-byte vector.
constexpr std::size_t kSmall = 10007;

// n == 0: nothing to count, but the 256 bins must still be overwritten with zeros.
void expect_zero_length(lab07::HistogramFn impl, const char* name) {
  const std::vector<unsigned int> zeros(lab07::kBins, 0);
  lab07::GuardedBins bins = lab07::poisoned_bins();  // every counter starts as 0xFFFFFFFF
  ASSERT_TRUE(lab07::call_and_wait(name, 0, [&] { return impl(nullptr, 0, bins.data(), nullptr); }));
  EXPECT_TRUE(bins.guards_intact(name, "bins"));
  EXPECT_TRUE(lab07::bins_match(zeros, bins.values(), "bins after n = 0 (all must be 0)"));
}

TEST_F(SelfCheck, GlobalAtomicsSmall) {
  const std::vector<unsigned char> data = lab07::random_bytes(kSmall, 701);
  lab07::expect_histogram(&student::histogram_global_atomics, "histogram_global_atomics", data,
                          lab07::cpu_histogram(data), 0, true);
}

TEST_F(SelfCheck, GlobalAtomicsZeroLength) {
  expect_zero_length(&student::histogram_global_atomics, "histogram_global_atomics");
}

TEST_F(SelfCheck, SharedSmall) {
  const std::vector<unsigned char> data = lab07::random_bytes(kSmall, 702);
  lab07::expect_histogram(&student::histogram_shared, "histogram_shared", data, lab07::cpu_histogram(data), 0, true);
}

TEST_F(SelfCheck, SharedZeroLength) { expect_zero_length(&student::histogram_shared, "histogram_shared"); }

// The contention case, small: every byte is 200, so the answer is bins[200] = n, all others 0.
TEST_F(SelfCheck, SharedAllEqualSmall) {
  const std::vector<unsigned char> data = lab07::all_equal_bytes(kSmall, 200);
  lab07::expect_histogram(&student::histogram_shared, "histogram_shared", data, lab07::cpu_histogram(data), 0, false);
}

}  // namespace
