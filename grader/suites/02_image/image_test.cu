// Lab 02 hidden suite: empty and 1-pixel images, 1-pixel-wide rows and columns, sizes that are
// not multiples of any block side, images taller than gridDim.y allows, padded and misaligned
// rows, several pictures and seeds, large images. Every case checks the input comes back
// unchanged and nothing outside the output's pixels was written. Every case also runs the
// reference solution and checks it against the CPU first, so a broken reference shows up as a
// grader bug rather than as lost points. Images of kMadeOnTheGpu pixels and more are made and
// checked on the GPU instead: the input made on the device, sealed by a host-held checksum while
// the student's code runs, and the expected output made by the reference solution only after it
// has finished.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/generated_input.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"
#include "lab02_test_support.cuh"

namespace {

constexpr const char* kGraderBug = "reference solution disagrees with the CPU: this is a grader bug";

using lab02::Pattern;

// From this many pixels on, a case is made and checked on the GPU (the CPU would take seconds).
constexpr std::size_t kMadeOnTheGpu = std::size_t{1} << 22;

// How rows lie in memory.
enum class Layout {
  Tight,     // pitch = row bytes, images at the start of their allocations
  Padded,    // pitch rounded up to 256 bytes (as cudaMallocPitch does): rows 16-byte aligned
  Misaligned // padded pitch + 3 bytes, input 1 byte and output 2 bytes into their allocations
};

struct ImageCase {
  int width;
  int height;
  std::uint64_t seed;
  Pattern pattern = Pattern::Noise;
  Layout layout = Layout::Tight;
};

const char* to_string(Layout layout) {
  switch (layout) {
    case Layout::Tight: return "tight rows";
    case Layout::Padded: return "rows padded to 256 bytes";
    case Layout::Misaligned: return "padded rows with an odd pitch, misaligned starts";
  }
  return "?";
}

std::size_t pitch_for(Layout layout, int width, int channels) {
  switch (layout) {
    case Layout::Tight: return lab02::tight_pitch(width, channels);
    case Layout::Padded: return lab02::padded_pitch(width, channels);
    case Layout::Misaligned: return lab02::padded_pitch(width, channels, 3);
  }
  return 0;
}

// What one lab function is: its two implementations, its CPU reference and how to describe it.
struct Operation {
  const char* name;
  lab02::ImageFn student;
  lab02::ImageFn solution;
  int input_channels;
  std::vector<unsigned char> (*cpu)(const lab02::HostImage&);
  const char* formula;
};

const Operation kGray{"rgb_to_gray", &student::rgb_to_gray, &solution::rgb_to_gray, 3, &lab02::cpu_rgb_to_gray,
                      "gray = (77 R + 150 G + 29 B + 128) >> 8"};
const Operation kSobel{"sobel", &student::sobel, &solution::sobel, 1, &lab02::cpu_sobel,
                       "edges = min(255, round(sqrt(gx^2 + gy^2))), clamp to edge"};

// A large case (see the top of the file): lab02::expect_correct_output's checks, in its order,
// with its messages.
void check_on_gpu(const Operation& op, const ImageCase& c) {
  SCOPED_TRACE(std::string(op.name) + " case: " + std::to_string(c.width) + " x " + std::to_string(c.height) +
               ", seed " + std::to_string(c.seed) + ", " + lab02::to_string(c.pattern) + ", " + to_string(c.layout));
  const int channels = op.input_channels;
  const std::size_t input_pitch = pitch_for(c.layout, c.width, channels);
  const std::size_t output_pitch = pitch_for(c.layout, c.width, 1);
  const std::size_t in_offset = c.layout == Layout::Misaligned ? 1 : 0;
  const std::size_t out_offset = c.layout == Layout::Misaligned ? 2 : 0;
  const cudalabs::GeneratedInput<unsigned char> in(
      input_pitch * static_cast<std::size_t>(c.height), in_offset,
      [&](unsigned char* out) { lab02::make_image_on_device(out, c.width, c.height, channels, input_pitch, c.seed, c.pattern); },
      lab02::kPoisonByte);
  lab02::DeviceImage out(c.width, c.height, 1, output_pitch, out_offset);
  ASSERT_TRUE(lab02::call_and_wait(op.name, c.width, c.height, [&] {
    return op.student(in.data(), input_pitch, out.data(), output_pitch, c.width, c.height, nullptr);
  }));
  // The expected output exists only from here on, made from an input whose checksum holds.
  const std::string reference = std::string("solution::") + op.name;
  lab02::DeviceImage expected(c.width, c.height, 1, output_pitch, 0);
  ASSERT_TRUE(lab02::call_and_wait(reference.c_str(), c.width, c.height, [&] {
    return op.solution(in.trusted(), input_pitch, expected.data(), output_pitch, c.width, c.height, nullptr);
  })) << kGraderBug;
  ASSERT_TRUE(expected.padding_untouched(reference, "the output image")) << kGraderBug;
  EXPECT_TRUE(out.guards_intact(op.name, "the output image"));
  EXPECT_TRUE(out.padding_untouched(op.name, "the output image"));
  EXPECT_TRUE(in.guards_intact(op.name, "the input image"));
  EXPECT_TRUE(in.unmodified(op.name, "image (input)"));
  EXPECT_TRUE(lab02::image_matches_on_device(expected.data(), output_pitch, out.data(), output_pitch, c.width, c.height,
                                             cudalabs::lab_tolerance(op.name), op.formula));
}

void check(const Operation& op, const ImageCase& c) {
  if (static_cast<std::size_t>(c.width) * c.height >= kMadeOnTheGpu) return check_on_gpu(op, c);
  SCOPED_TRACE(std::string(op.name) + " case: " + std::to_string(c.width) + " x " + std::to_string(c.height) +
               ", seed " + std::to_string(c.seed) + ", " + lab02::to_string(c.pattern) + ", " + to_string(c.layout));
  const lab02::HostImage input =
      lab02::make_image(c.width, c.height, op.input_channels, pitch_for(c.layout, c.width, op.input_channels), c.seed,
                        c.pattern);
  const std::vector<unsigned char> expected = op.cpu(input);
  const cudalabs::Tolerance tolerance = cudalabs::lab_tolerance(op.name);
  const std::size_t output_pitch = pitch_for(c.layout, c.width, 1);
  const std::size_t in_offset = c.layout == Layout::Misaligned ? 1 : 0;
  const std::size_t out_offset = c.layout == Layout::Misaligned ? 2 : 0;

  {  // The reference first; its buffers are freed before the student's are allocated.
    const std::string reference = std::string("solution::") + op.name;
    const lab02::ImageRun ref =
        lab02::run_image_function(op.solution, reference.c_str(), input, output_pitch, in_offset, out_offset);
    ASSERT_TRUE(ref.status) << kGraderBug;
    ASSERT_TRUE(lab02::image_matches(expected, ref.output.pixels(), c.width, tolerance, "reference output"))
        << kGraderBug;
    ASSERT_TRUE(ref.output.padding_untouched(reference, "the output image")) << kGraderBug;
  }

  const lab02::ImageRun run = lab02::run_image_function(op.student, op.name, input, output_pitch, in_offset, out_offset);
  ASSERT_TRUE(run.status);
  lab02::expect_correct_output(run, input, expected, tolerance, op.name, op.formula);
}

// Empty images: null pointers, then valid ones whose bytes must stay untouched.
void check_empty(const Operation& op) {
  ASSERT_TRUE(lab02::call_and_wait(op.name, 0, 0, [&] { return op.student(nullptr, 0, nullptr, 0, 0, 0, nullptr); }));
  ASSERT_TRUE(lab02::call_and_wait("reference", 0, 0, [&] {
    return op.solution(nullptr, 0, nullptr, 0, 0, 0, nullptr);
  })) << kGraderBug;
  const lab02::HostImage input = lab02::make_image(8, 8, op.input_channels, 8 * op.input_channels, 7);
  lab02::DeviceImage in(input, 0), out(8, 8, 1, 8, 0);
  const int shapes[][2] = {{0, 8}, {8, 0}, {0, 0}};
  for (const auto& shape : shapes) {
    ASSERT_TRUE(lab02::call_and_wait(op.name, shape[0], shape[1], [&] {
      return op.student(in.data(), input.pitch, out.data(), 8, shape[0], shape[1], nullptr);
    }));
  }
  EXPECT_TRUE(out.untouched(std::string(op.name) + " with an empty image", "the 8 x 8 output image"));
  EXPECT_TRUE(lab02::bit_identical(input.bytes, in.bytes(), op.name, "image (input)"));
}

// Sizes that are not multiples of 4, 8, 16, 32 or 128 in either direction, some primes.
const int kOddSizes[][2] = {{31, 33}, {127, 129}, {257, 17}, {1023, 3}, {3, 1021}, {641, 479}};

class RgbToGray : public cudalabs::GpuTest {};
class Sobel : public cudalabs::GpuTest {};

// --- rgb_to_gray -----------------------------------------------------------------------------

TEST_F(RgbToGray, ZeroSize) { check_empty(kGray); }

TEST_F(RgbToGray, SinglePixel) {
  check(kGray, {1, 1, 11});
  check(kGray, {1, 1, 12, Pattern::Noise, Layout::Misaligned});
}

TEST_F(RgbToGray, OneRowOneColumn) {
  check(kGray, {1000, 1, 13});
  check(kGray, {1, 1000, 14});
  check(kGray, {4099, 1, 15, Pattern::Noise, Layout::Padded});
}

TEST_F(RgbToGray, OddSizes) {
  std::uint64_t seed = 20;
  for (const auto& size : kOddSizes) ASSERT_NO_FATAL_FAILURE(check(kGray, {size[0], size[1], seed++}));
}

TEST_F(RgbToGray, PaddedAndMisalignedRows) {
  ASSERT_NO_FATAL_FAILURE(check(kGray, {640, 480, 31, Pattern::Noise, Layout::Padded}));
  ASSERT_NO_FATAL_FAILURE(check(kGray, {641, 479, 32, Pattern::Noise, Layout::Padded}));
  ASSERT_NO_FATAL_FAILURE(check(kGray, {640, 480, 33, Pattern::Noise, Layout::Misaligned}));
  ASSERT_NO_FATAL_FAILURE(check(kGray, {1021, 77, 34, Pattern::Gentle, Layout::Misaligned}));
}

TEST_F(RgbToGray, TallImage) {
  // More rows than gridDim.y can hold (65535): loop over rows or fold them into gridDim.x.
  check(kGray, {2, 70001, 41});
}

TEST_F(RgbToGray, Large) {
  ASSERT_NO_FATAL_FAILURE(check(kGray, {4096, 4096, 51}));
  ASSERT_NO_FATAL_FAILURE(check(kGray, {4099, 2053, 52, Pattern::Blocks, Layout::Misaligned}));
}

// --- sobel -----------------------------------------------------------------------------------

TEST_F(Sobel, ZeroSize) { check_empty(kSobel); }

TEST_F(Sobel, SinglePixel) {
  // Every neighbour clamps to the pixel itself: the result is 0.
  check(kSobel, {1, 1, 61});
  check(kSobel, {1, 1, 62, Pattern::Noise, Layout::Misaligned});
}

TEST_F(Sobel, TinyImages) {
  // All border: 1 x N and N x 1 (one neighbour direction always clamps), 2 x 2, 2 x 3, 3 x 2.
  const int sizes[][2] = {{1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 2}, {1, 1000}, {1000, 1}, {4099, 1}, {1, 4099}};
  std::uint64_t seed = 70;
  for (const auto& size : sizes) ASSERT_NO_FATAL_FAILURE(check(kSobel, {size[0], size[1], seed++}));
}

TEST_F(Sobel, OddSizes) {
  std::uint64_t seed = 80;
  for (const auto& size : kOddSizes) ASSERT_NO_FATAL_FAILURE(check(kSobel, {size[0], size[1], seed++}));
}

TEST_F(Sobel, Pictures) {
  // Small gradients (rounding of sqrt), flat areas with sharp edges, the largest gradients.
  const Pattern patterns[] = {Pattern::Gentle, Pattern::Blocks, Pattern::Checker};
  std::uint64_t seed = 90;
  for (Pattern pattern : patterns) {
    ASSERT_NO_FATAL_FAILURE(check(kSobel, {300, 200, seed++, pattern}));
    ASSERT_NO_FATAL_FAILURE(check(kSobel, {129, 65, seed++, pattern}));
  }
}

TEST_F(Sobel, PaddedAndMisalignedRows) {
  ASSERT_NO_FATAL_FAILURE(check(kSobel, {640, 480, 101, Pattern::Blocks, Layout::Padded}));
  ASSERT_NO_FATAL_FAILURE(check(kSobel, {641, 479, 102, Pattern::Noise, Layout::Padded}));
  ASSERT_NO_FATAL_FAILURE(check(kSobel, {640, 480, 103, Pattern::Gentle, Layout::Misaligned}));
  ASSERT_NO_FATAL_FAILURE(check(kSobel, {1021, 77, 104, Pattern::Blocks, Layout::Misaligned}));
}

TEST_F(Sobel, TallImage) {
  check(kSobel, {1, 70001, 111});
  check(kSobel, {5, 66001, 112, Pattern::Blocks});
}

TEST_F(Sobel, Large) {
  ASSERT_NO_FATAL_FAILURE(check(kSobel, {4096, 4096, 121, Pattern::Gentle}));
  ASSERT_NO_FATAL_FAILURE(check(kSobel, {4099, 2053, 122, Pattern::Blocks, Layout::Misaligned}));
}

}  // namespace
