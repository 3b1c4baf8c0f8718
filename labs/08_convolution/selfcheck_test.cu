// Lab 08 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 08_convolution
// The grader runs these too, plus hidden cases (every filter width, primes and sizes that are not
// multiples of any block size, 1 x N and N x 1 images, arrays not 16-byte aligned, large and
// negative values, filters whose taps add up to 0, the largest sizes); see README.md.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "lab08_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "convolution.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

void check_1d(int n, int filter_width, std::uint64_t seed) {
  const lab08::Filter filter = lab08::make_filter_1d(filter_width, seed);
  SCOPED_TRACE("convolve_1d of " + std::to_string(n) + " values with a " + filter.describe() + ", seed " +
               std::to_string(seed));
  const std::vector<float> in = lab08::make_values(static_cast<std::size_t>(n), seed + 1);
  const lab08::ConvolutionRun run =
      lab08::run_1d(&student::set_filter_1d, &student::convolve_1d, "convolve_1d", in, filter);
  const cudalabs::Tolerance tolerance = lab08::scaled_tolerance(
      cudalabs::lab_tolerance("convolution"), lab08::max_magnitude(in) * filter.sum_of_magnitudes());
  lab08::expect_convolved(run, "convolve_1d", in, lab08::cpu_convolve_1d(in, filter), 0, n, filter.radius(),
                          tolerance, "out[i] = sum_k taps[k] * in[clamp(i + k - r)]");
}

void check_2d(lab08::Convolve2dFn convolve, const char* name, int width, int height, int filter_width,
              std::uint64_t seed) {
  const lab08::Filter filter = lab08::make_filter_2d(filter_width, seed);
  SCOPED_TRACE(std::string(name) + " of a " + std::to_string(width) + " x " + std::to_string(height) +
               " image with a " + filter.describe() + ", seed " + std::to_string(seed));
  const std::vector<float> in = lab08::make_values(static_cast<std::size_t>(width) * height, seed + 1);
  const lab08::ConvolutionRun run = lab08::run_2d(&student::set_filter_2d, convolve, name, in, width, height, filter);
  const cudalabs::Tolerance tolerance = lab08::scaled_tolerance(
      cudalabs::lab_tolerance("convolution"), lab08::max_magnitude(in) * filter.sum_of_magnitudes());
  lab08::expect_convolved(run, name, in, lab08::cpu_convolve_2d(in, width, height, filter), width, height,
                          filter.radius(), tolerance, "out(x, y) = sum_j sum_k taps[j][k] * in(clamp(x + k - r), clamp(y + j - r))");
}

// 1000 values with a 5-tap filter, and 37 with a 1-tap filter (out = taps[0] * in).
TEST_F(SelfCheck, Convolve1dSmall) {
  ASSERT_NO_FATAL_FAILURE(check_1d(1000, 5, 801));
  ASSERT_NO_FATAL_FAILURE(check_1d(37, 1, 802));
}

// 37 x 23 and 23 x 37: neither side is a multiple of 8, 16 or 32, so the last blocks are partial,
// and the image is not square, so mixing up width and height shows.
TEST_F(SelfCheck, Convolve2dNaiveSmall) {
  ASSERT_NO_FATAL_FAILURE(check_2d(&student::convolve_2d_naive, "convolve_2d_naive", 37, 23, 5, 811));
  ASSERT_NO_FATAL_FAILURE(check_2d(&student::convolve_2d_naive, "convolve_2d_naive", 23, 37, 3, 812));
}

TEST_F(SelfCheck, Convolve2dTiledSmall) {
  ASSERT_NO_FATAL_FAILURE(check_2d(&student::convolve_2d_tiled, "convolve_2d_tiled", 37, 23, 5, 821));
  ASSERT_NO_FATAL_FAILURE(check_2d(&student::convolve_2d_tiled, "convolve_2d_tiled", 70, 45, 7, 822));
}

// Data smaller than the filter: every output reads clamped neighbours, on both sides at once.
TEST_F(SelfCheck, TinyInputs) {
  std::uint64_t seed = 830;
  for (int n : {1, 2, 3}) ASSERT_NO_FATAL_FAILURE(check_1d(n, 5, seed += 2));
  for (const auto& [width, height] : {std::pair<int, int>{1, 1}, {2, 3}, {5, 1}}) {
    ASSERT_NO_FATAL_FAILURE(check_2d(&student::convolve_2d_naive, "convolve_2d_naive", width, height, 5, seed += 2));
    ASSERT_NO_FATAL_FAILURE(check_2d(&student::convolve_2d_tiled, "convolve_2d_tiled", width, height, 5, seed += 2));
  }
}

// n = 0, or an image with no rows or no columns: nothing to do, cudaSuccess, nothing written.
TEST_F(SelfCheck, EmptyInputs) {
  ASSERT_NO_FATAL_FAILURE(lab08::expect_empty_1d_is_a_no_op(&student::set_filter_1d, &student::convolve_1d,
                                                            "convolve_1d"));
  ASSERT_NO_FATAL_FAILURE(lab08::expect_empty_2d_is_a_no_op(&student::set_filter_2d, &student::convolve_2d_naive,
                                                            "convolve_2d_naive"));
  ASSERT_NO_FATAL_FAILURE(lab08::expect_empty_2d_is_a_no_op(&student::set_filter_2d, &student::convolve_2d_tiled,
                                                            "convolve_2d_tiled"));
}

}  // namespace
