#pragma once
// Helpers shared by lab 02's public self-check and the grader's hidden suite: host images with
// a row pitch, seeded test pictures, the CPU references, images on the device inside poisoned
// guard zones, and comparisons that name the wrong pixel by (x, y).
// Namespace-neutral: it never names `student` or `solution`; tests pass the function to call.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/lab_checks.hpp"

namespace lab02 {

// The signatures of the lab API, the same in every namespace.
using RgbToGrayFn = cudaError_t (*)(const unsigned char*, std::size_t, unsigned char*, std::size_t, int, int,
                                    cudaStream_t);
using SobelFn = cudaError_t (*)(const unsigned char*, std::size_t, unsigned char*, std::size_t, int, int,
                                cudaStream_t);

// Outputs, row padding and guard zones start as this byte. 0xFF would be white, a value a whole
// Sobel output can take (a fine checkerboard saturates everywhere); 0xA5 = 165 can appear in a
// correct output but not everywhere, and the comparisons only call a pixel "never written" where
// the expected value differs from it.
inline constexpr unsigned char kPoisonByte = 0xA5;

// An image on the host exactly as it lies in device memory: height rows, `pitch` bytes apart,
// each starting with width * channels pixel bytes, then padding.
struct HostImage {
  int width = 0;
  int height = 0;
  int channels = 1;
  std::size_t pitch = 0;
  std::vector<unsigned char> bytes;  // pitch * height

  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels; }
  unsigned char at(int x, int y, int channel = 0) const {
    return bytes[static_cast<std::size_t>(y) * pitch + static_cast<std::size_t>(x) * channels + channel];
  }
};

// Row pitches the tests use. Tight: no padding. Padded: rounded up to 256 bytes like
// cudaMallocPitch, plus `extra` bytes so the pitch is also tried unaligned.
inline std::size_t tight_pitch(int width, int channels) { return static_cast<std::size_t>(width) * channels; }
inline std::size_t padded_pitch(int width, int channels, std::size_t extra = 0) {
  const std::size_t row = tight_pitch(width, channels);
  return (row + 255) / 256 * 256 + extra;
}

// What the pixels look like. Padding bytes are always random, so reading them as pixels shows.
enum class Pattern {
  Noise,   // every byte uniform in [0, 255]: Sobel mostly saturates
  Gentle,  // a slow ramp plus small noise: small gradients, where the rounding of sqrt matters
  Blocks,  // flat 7x5 tiles of random levels: zero inside, sharp edges at tile borders
  Checker  // 1-pixel checkerboard of 0 and 255: the largest gradients, worst case for overflow
};

inline const char* to_string(Pattern pattern) {
  switch (pattern) {
    case Pattern::Noise: return "noise";
    case Pattern::Gentle: return "gentle ramp";
    case Pattern::Blocks: return "flat blocks";
    case Pattern::Checker: return "checkerboard";
  }
  return "?";
}

// A seeded image; each channel of a pixel follows the pattern (channels get different levels).
inline HostImage make_image(int width, int height, int channels, std::size_t pitch, std::uint64_t seed,
                            Pattern pattern = Pattern::Noise) {
  HostImage image{width, height, channels, pitch, {}};
  // Noise bytes straight from the generator, 8 per draw (cudalabs::fill_random_bytes makes the
  // same bytes on the device); padding keeps this noise.
  image.bytes = cudalabs::random_bytes(pitch * static_cast<std::size_t>(height), seed);
  if (pattern == Pattern::Noise) return image;
  const std::vector<int> levels = cudalabs::uniform_ints(4096, seed ^ 0x5EED, 0, 255);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        const std::size_t i = static_cast<std::size_t>(y) * pitch + static_cast<std::size_t>(x) * channels + c;
        int value = image.bytes[i];
        switch (pattern) {
          case Pattern::Noise: break;
          case Pattern::Gentle: value = (x * 3 + y * 2 + c * 40) % 200 + value % 16; break;
          case Pattern::Blocks: value = levels[((x / 7) * 31 + (y / 5) * 17 + c * 7) % levels.size()]; break;
          case Pattern::Checker: value = ((x + y + c) % 2) * 255; break;
        }
        image.bytes[i] = static_cast<unsigned char>(value);
      }
    }
  }
  return image;
}

// CPU reference for rgb_to_gray, row-packed (width * height values): the header's exact formula.
inline std::vector<unsigned char> cpu_rgb_to_gray(const HostImage& rgb) {
  std::vector<unsigned char> gray(static_cast<std::size_t>(rgb.width) * rgb.height);
  for (int y = 0; y < rgb.height; ++y) {
    for (int x = 0; x < rgb.width; ++x) {
      const int weighted = 77 * rgb.at(x, y, 0) + 150 * rgb.at(x, y, 1) + 29 * rgb.at(x, y, 2) + 128;
      gray[static_cast<std::size_t>(y) * rgb.width + x] = static_cast<unsigned char>(weighted >> 8);
    }
  }
  return gray;
}

// CPU reference for one pixel of sobel (the header's formula): integer gradients with
// clamp-to-edge, sqrt in double rounded to nearest (never a tie: the header says why), saturated.
inline unsigned char cpu_sobel_pixel(const HostImage& gray, int x, int y) {
  auto p = [&](int px, int py) {
    return static_cast<int>(gray.at(std::clamp(px, 0, gray.width - 1), std::clamp(py, 0, gray.height - 1)));
  };
  const int gx = (p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1)) - (p(x - 1, y - 1) + 2 * p(x - 1, y) + p(x - 1, y + 1));
  const int gy = (p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1)) - (p(x - 1, y - 1) + 2 * p(x, y - 1) + p(x + 1, y - 1));
  const double magnitude = std::sqrt(static_cast<double>(gx * gx + gy * gy));
  return static_cast<unsigned char>(std::min(255.0, std::floor(magnitude + 0.5)));
}

// CPU reference for sobel, row-packed: integer gradients, clamp-to-edge, sqrt in double and
// rounded to nearest (never a tie: the header says why), saturated at 255.
inline std::vector<unsigned char> cpu_sobel(const HostImage& gray) {
  const int w = gray.width;
  const int h = gray.height;
  std::vector<unsigned char> edges(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) edges[static_cast<std::size_t>(y) * w + x] = cpu_sobel_pixel(gray, x, y);
  }
  return edges;
}

// An image on the device, inside a poisoned allocation with guard zones after it (and `offset`
// bytes before it): an output starts as poison, padding included; an input holds `image.bytes`.
class DeviceImage {
 public:
  DeviceImage(int width, int height, int channels, std::size_t pitch, std::size_t offset)
      : width_(width), height_(height), channels_(channels), pitch_(pitch),
        array_(pitch * static_cast<std::size_t>(height), offset, kPoisonByte) {}
  DeviceImage(const HostImage& image, std::size_t offset)
      : width_(image.width), height_(image.height), channels_(image.channels), pitch_(image.pitch),
        array_(image.bytes, offset, kPoisonByte) {}

  unsigned char* data() { return array_.data(); }
  std::size_t pitch() const { return pitch_; }
  std::vector<unsigned char> bytes() const { return array_.values(); }
  ::testing::AssertionResult guards_intact(const std::string& function, const char* image) const {
    return array_.guards_intact(function, image);
  }

  // The pixel bytes, row-packed (width * channels per row), without the padding.
  std::vector<unsigned char> pixels() const {
    const std::vector<unsigned char> all = bytes();
    const std::size_t row = static_cast<std::size_t>(width_) * channels_;
    std::vector<unsigned char> packed(row * height_);
    for (int y = 0; y < height_; ++y) {
      std::memcpy(packed.data() + y * row, all.data() + static_cast<std::size_t>(y) * pitch_, row);
    }
    return packed;
  }

  // No byte at all was written (an output, after a call with nothing to do).
  ::testing::AssertionResult untouched(const std::string& function, const char* image) const {
    const std::vector<unsigned char> all = bytes();
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i] != kPoisonByte) {
        return ::testing::AssertionFailure() << function << " wrote byte " << i << " of " << image
                                             << ", but it had no pixel to write";
      }
    }
    return guards_intact(function, image);
  }

  // No byte of row padding of an output was written (it started as poison).
  ::testing::AssertionResult padding_untouched(const std::string& function, const char* image) const {
    const std::vector<unsigned char> all = bytes();
    const std::size_t row = static_cast<std::size_t>(width_) * channels_;
    for (int y = 0; y < height_; ++y) {
      for (std::size_t b = row; b < pitch_; ++b) {
        if (all[static_cast<std::size_t>(y) * pitch_ + b] != kPoisonByte) {
          return ::testing::AssertionFailure()
                 << function << " wrote into the padding of " << image << ": row " << y << ", byte " << b
                 << " (the row's pixels are bytes 0 to " << row - 1 << ", the pitch is " << pitch_
                 << " bytes; index rows with y * pitch and stop at x < width)";
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  int width_, height_, channels_;
  std::size_t pitch_;
  cudalabs::GuardedArray<unsigned char> array_;
};

// Compares a row-packed gray result with the expected one within `tolerance`, through the shared
// comparison (cudalabs/compare.hpp); on failure also names the first wrong pixels by (x, y).
// A pixel still holding the poison byte where the expected value differs from it by more than
// the tolerance is reported as never written.
inline ::testing::AssertionResult image_matches(const std::vector<unsigned char>& expected,
                                                const std::vector<unsigned char>& actual, int width,
                                                cudalabs::Tolerance tolerance, const std::string& what) {
  std::vector<double> e(expected.begin(), expected.end());
  std::vector<double> a(actual.begin(), actual.end());
  for (std::size_t i = 0; i < a.size() && i < e.size(); ++i) {
    if (actual[i] == kPoisonByte && std::abs(e[i] - kPoisonByte) > tolerance.abs) {
      std::memset(&a[i], 0xFF, sizeof(double));  // the shared report's "never written" pattern
    }
  }
  const cudalabs::CompareReport report = cudalabs::compare_doubles(e, a, tolerance, 6);
  ::testing::AssertionResult result = cudalabs::matches(report, what);
  if (report.ok() || width == 0) return result;
  result << "\n  as pixels (x, y):";
  for (const cudalabs::Mismatch& m : report.first) {
    result << " (" << m.index % width << ", " << m.index / width << ")";
  }
  if (report.never_written > 0) {
    result << "\n  (\"never written\": the pixel still holds this lab's poison byte 0xA5 = 165)";
  }
  return result;
}

// Calls `launch` (which returns the lab function's cudaError_t), then waits for the kernels.
template <class Launch>
::testing::AssertionResult call_and_wait(const char* function, int width, int height, Launch&& launch) {
  return cudalabs::call_and_wait(std::string(function) + "(width = " + std::to_string(width) +
                                     ", height = " + std::to_string(height) + ")",
                                 width == 0 || height == 0, std::forward<Launch>(launch),
                                 "an out-of-bounds access? check x < width, y < height, the pitch in bytes, "
                                 "and the clamping of neighbours at the borders");
}

using cudalabs::bit_identical;

// Runs one lab function on a fresh device copy of `input`, writing an output image of the same
// size with `output_pitch`; each image starts `*_offset` bytes into its poisoned allocation
// (offsets that are not multiples of 4 or 16 make the rows misaligned).
using ImageFn = cudaError_t (*)(const unsigned char*, std::size_t, unsigned char*, std::size_t, int, int, cudaStream_t);
static_assert(std::is_same_v<ImageFn, RgbToGrayFn> && std::is_same_v<ImageFn, SobelFn>);

struct ImageRun {
  DeviceImage input;
  DeviceImage output;
  ::testing::AssertionResult status;
};

inline ImageRun run_image_function(ImageFn function, const char* name, const HostImage& input,
                                   std::size_t output_pitch, std::size_t input_offset = 0,
                                   std::size_t output_offset = 0) {
  DeviceImage in(input, input_offset);
  DeviceImage out(input.width, input.height, 1, output_pitch, output_offset);
  ::testing::AssertionResult status = call_and_wait(name, input.width, input.height, [&] {
    return function(in.data(), input.pitch, out.data(), output_pitch, input.width, input.height, nullptr);
  });
  return ImageRun{std::move(in), std::move(out), std::move(status)};
}

// Everything a finished call must satisfy: nothing written outside the output's pixels (guard
// zones, row padding), the input unchanged, and every pixel within `tolerance` of `expected`.
inline void expect_correct_output(const ImageRun& run, const HostImage& input, const std::vector<unsigned char>& expected,
                                  cudalabs::Tolerance tolerance, const std::string& function, const std::string& what) {
  EXPECT_TRUE(run.output.guards_intact(function, "the output image"));
  EXPECT_TRUE(run.output.padding_untouched(function, "the output image"));
  EXPECT_TRUE(run.input.guards_intact(function, "the input image"));
  EXPECT_TRUE(bit_identical(input.bytes, run.input.bytes(), function, "image (input)"));
  EXPECT_TRUE(image_matches(expected, run.output.pixels(), input.width, tolerance, what));
}


}  // namespace lab02
