// Lab 02 performance cases (config/labs/02_image.yaml `performance:`), at 8192 x 8192 pixels with
// tight rows. Each first checks the student's result at the timed size (a wrong answer earns
// nothing), then times student against solution, interleaved in this process, with the L2
// flushed before every sample. rgb_to_gray is checked against the CPU; sobel against the
// reference solution, itself spot-checked against the CPU (a full CPU Sobel of 64 Mpixels would
// take most of the test's time). Every timed sample runs on an image generated on the GPU from
// that round's seed, with the output poisoned; the timed student calls' outputs are checked
// against the reference's on the same image.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab02_test_support.cuh"

namespace {

using cudalabs::timing::round_seed;

constexpr int kSide = 8192;
constexpr std::size_t kPixels = static_cast<std::size_t>(kSide) * kSide;

class Performance : public cudalabs::GpuTest {};

TEST_F(Performance, rgb_to_gray_8192) {
  const lab02::HostImage rgb = lab02::make_image(kSide, kSide, 3, lab02::tight_pitch(kSide, 3), 301);
  cudalabs::DeviceBuffer<unsigned char> in(rgb.bytes), out(kPixels);
  out.fill_bytes(lab02::kPoisonByte);
  ASSERT_TRUE(lab02::call_and_wait("rgb_to_gray", kSide, kSide, [&] {
    return student::rgb_to_gray(in.data(), rgb.pitch, out.data(), kSide, kSide, kSide);
  }));
  ASSERT_TRUE(lab02::image_matches(lab02::cpu_rgb_to_gray(rgb), out.copy_to_host(), kSide,
                                   cudalabs::lab_tolerance("rgb_to_gray"), "gray"))
      << "a wrong result is not timed";

  cudalabs::DeviceBuffer<unsigned char> expected(kPixels);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(in.data(), in.size(), round_seed(seed, 0), stream);
    cudalabs::poison_async(out.data(), out.bytes(), lab02::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::rgb_to_gray(in.data(), rgb.pitch, expected.data(), kSide, kSide, kSide, stream));
    const auto abs = static_cast<long long>(2 * cudalabs::lab_tolerance("rgb_to_gray").abs);
    return cudalabs::check_matches(expected.data(), out.data(), kPixels, abs, "the gray image", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    student::rgb_to_gray(in.data(), rgb.pitch, out.data(), kSide, kSide, kSide, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::rgb_to_gray(in.data(), rgb.pitch, out.data(), kSide, kSide, kSide, stream);
  };
  work.bytes = 4.0 * kPixels;  // read 3 bytes, write 1 per pixel
  cudalabs::run_performance_case("rgb_to_gray_8192", work);
}

TEST_F(Performance, sobel_8192) {
  const lab02::HostImage gray = lab02::make_image(kSide, kSide, 1, lab02::tight_pitch(kSide, 1), 302);
  cudalabs::DeviceBuffer<unsigned char> in(gray.bytes), out(kPixels), reference(kPixels);
  out.fill_bytes(lab02::kPoisonByte);
  reference.fill_bytes(lab02::kPoisonByte);
  ASSERT_TRUE(lab02::call_and_wait("sobel", kSide, kSide, [&] {
    return student::sobel(in.data(), kSide, out.data(), kSide, kSide, kSide);
  }));
  ASSERT_TRUE(lab02::call_and_wait("solution::sobel", kSide, kSide, [&] {
    return solution::sobel(in.data(), kSide, reference.data(), kSide, kSide, kSide);
  }));
  const std::vector<unsigned char> expected = reference.copy_to_host();

  // The reference against the CPU: the four border rows and columns and 20000 seeded pixels.
  std::vector<unsigned char> spot_expected, spot_reference;
  auto spot_check = [&](int x, int y) {
    spot_expected.push_back(lab02::cpu_sobel_pixel(gray, x, y));
    spot_reference.push_back(expected[static_cast<std::size_t>(y) * kSide + x]);
  };
  for (int i = 0; i < kSide; ++i) {
    spot_check(i, 0);
    spot_check(i, kSide - 1);
    spot_check(0, i);
    spot_check(kSide - 1, i);
  }
  const std::vector<int> coordinates = cudalabs::uniform_ints(40000, 303, 0, kSide - 1);
  for (std::size_t i = 0; i < coordinates.size(); i += 2) spot_check(coordinates[i], coordinates[i + 1]);
  ASSERT_TRUE(lab02::image_matches(spot_expected, spot_reference, 0, cudalabs::lab_tolerance("sobel"),
                                   "reference sobel at sampled pixels"))
      << "reference solution disagrees with the CPU: this is a grader bug";

  ASSERT_TRUE(lab02::image_matches(expected, out.copy_to_host(), kSide, cudalabs::lab_tolerance("sobel"),
                                   "edges (compared with the reference solution)"))
      << "a wrong result is not timed";

  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(in.data(), in.size(), round_seed(seed, 0), stream);
    cudalabs::poison_async(out.data(), out.bytes(), lab02::kPoisonByte, stream);
  };
  // The reference of the round goes into `reference`, checked against the CPU above.
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::sobel(in.data(), kSide, reference.data(), kSide, kSide, kSide, stream));
    const auto abs = static_cast<long long>(2 * cudalabs::lab_tolerance("sobel").abs);
    return cudalabs::check_matches(reference.data(), out.data(), kPixels, abs, "the edge image", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    student::sobel(in.data(), kSide, out.data(), kSide, kSide, kSide, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::sobel(in.data(), kSide, out.data(), kSide, kSide, kSide, stream);
  };
  work.bytes = 2.0 * kPixels;  // read 1 byte, write 1 per pixel
  cudalabs::run_performance_case("sobel_8192", work);
}

}  // namespace
