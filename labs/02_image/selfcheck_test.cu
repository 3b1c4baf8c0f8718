// Lab 02 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 02_image
// The grader runs these too, plus hidden cases (more sizes, 1-pixel-wide and tall images, padded
// and misaligned rows, other pictures, 4096-pixel images); see README.md.
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "lab02_test_support.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "image.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

using lab02::Pattern;

// 37 x 23: neither is a multiple of a warp or of a typical block side.
constexpr int kWidth = 37;
constexpr int kHeight = 23;

void check_gray(const lab02::HostImage& rgb, std::size_t gray_pitch) {
  const lab02::ImageRun run = lab02::run_image_function(&student::rgb_to_gray, "rgb_to_gray", rgb, gray_pitch);
  ASSERT_TRUE(run.status);
  lab02::expect_correct_output(run, rgb, lab02::cpu_rgb_to_gray(rgb), cudalabs::lab_tolerance("rgb_to_gray"),
                               "rgb_to_gray", "gray = (77 R + 150 G + 29 B + 128) >> 8");
}

void check_sobel(const lab02::HostImage& gray, std::size_t edges_pitch) {
  SCOPED_TRACE("sobel on a " + std::to_string(gray.width) + " x " + std::to_string(gray.height) + " " +
               "image");
  const lab02::ImageRun run = lab02::run_image_function(&student::sobel, "sobel", gray, edges_pitch);
  ASSERT_TRUE(run.status);
  lab02::expect_correct_output(run, gray, lab02::cpu_sobel(gray), cudalabs::lab_tolerance("sobel"), "sobel",
                               "edges = min(255, round(sqrt(gx^2 + gy^2)))");
}

TEST_F(SelfCheck, GraySmall) {
  check_gray(lab02::make_image(kWidth, kHeight, 3, lab02::tight_pitch(kWidth, 3), 101), lab02::tight_pitch(kWidth, 1));
}

TEST_F(SelfCheck, GrayPaddedRows) {
  // Rows 256 bytes apart in the input (111 bytes of pixels, the rest padding) and 67 in the
  // output: index rows with y * pitch, never y * width.
  const int width = 37;
  check_gray(lab02::make_image(width, 19, 3, lab02::padded_pitch(width, 3), 102), lab02::tight_pitch(width, 1) + 30);
}

TEST_F(SelfCheck, SobelSmall) {
  check_sobel(lab02::make_image(kWidth, kHeight, 1, lab02::tight_pitch(kWidth, 1), 201, Pattern::Blocks),
              lab02::tight_pitch(kWidth, 1));
}

TEST_F(SelfCheck, SobelTinyImages) {
  // Every pixel of these is a border pixel: the clamp-to-edge rule decides all of them.
  const int sizes[][2] = {{1, 1}, {2, 2}, {1, 5}, {5, 1}, {3, 3}};
  std::uint64_t seed = 210;
  for (const auto& size : sizes) {
    ASSERT_NO_FATAL_FAILURE(check_sobel(lab02::make_image(size[0], size[1], 1, lab02::tight_pitch(size[0], 1), seed++),
                                        lab02::tight_pitch(size[0], 1)));
  }
}

TEST_F(SelfCheck, EmptyImages) {
  // Nothing to do: launch nothing and succeed, with null pointers ...
  ASSERT_TRUE(lab02::call_and_wait("rgb_to_gray", 0, 0, [] { return student::rgb_to_gray(nullptr, 0, nullptr, 0, 0, 0); }));
  ASSERT_TRUE(lab02::call_and_wait("sobel", 0, 0, [] { return student::sobel(nullptr, 0, nullptr, 0, 0, 0); }));
  // ... and with valid ones (0 x 4 and 4 x 0), leaving the output untouched.
  const lab02::HostImage input = lab02::make_image(4, 4, 3, 12, 220);
  lab02::DeviceImage in(input, 0), out(4, 4, 1, 4, 0);
  const int shapes[][2] = {{0, 4}, {4, 0}};
  for (const auto& shape : shapes) {
    ASSERT_TRUE(lab02::call_and_wait("rgb_to_gray", shape[0], shape[1], [&] {
      return student::rgb_to_gray(in.data(), 12, out.data(), 4, shape[0], shape[1]);
    }));
    ASSERT_TRUE(lab02::call_and_wait("sobel", shape[0], shape[1], [&] {
      return student::sobel(in.data(), 12, out.data(), 4, shape[0], shape[1]);
    }));
  }
  EXPECT_TRUE(out.untouched("rgb_to_gray or sobel with an empty image", "the 4 x 4 output image"));
}

}  // namespace
