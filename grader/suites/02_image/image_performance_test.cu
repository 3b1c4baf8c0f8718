// Lab 02 performance cases (config/labs/02_image.yaml `performance:`), at 8192 x 8192 pixels with
// tight rows. The engine first checks one untimed student call at the timed size (a wrong answer
// earns nothing), then times student against solution, interleaved in this process, with the L2
// flushed before every sample. Every sample runs on an image generated on the GPU from that
// round's seed, with the output poisoned; checked samples' outputs are compared on the GPU with
// the reference's for the same image, made afterwards (the reference itself is checked against
// the CPU by the hidden tests and the bench), and their input with a checksum taken before.
#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
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
  constexpr std::size_t kPitch = 3 * static_cast<std::size_t>(kSide);
  cudalabs::DeviceBuffer<unsigned char> in(kPitch * kSide), out(kPixels);
  cudalabs::DeviceBuffer<unsigned char> expected(kPixels);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(in.data(), in.size(), round_seed(seed, 0), stream);
    cudalabs::poison_async(out.data(), out.bytes(), lab02::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::rgb_to_gray(in.data(), kPitch, expected.data(), kSide, kSide, kSide, stream));
    const auto abs = static_cast<long long>(2 * cudalabs::lab_tolerance("rgb_to_gray").abs);
    return cudalabs::check_matches(expected.data(), out.data(), kPixels, abs, "the gray image", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::rgb_to_gray(in.data(), kPitch, out.data(), kSide, kSide, kSide, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::rgb_to_gray(in.data(), kPitch, out.data(), kSide, kSide, kSide, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "the RGB image"}};
  work.bytes = 4.0 * kPixels;  // read 3 bytes, write 1 per pixel
  cudalabs::run_performance_case("rgb_to_gray_8192", work);
}

TEST_F(Performance, sobel_8192) {
  cudalabs::DeviceBuffer<unsigned char> in(kPixels), out(kPixels), reference(kPixels);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(in.data(), in.size(), round_seed(seed, 0), stream);
    cudalabs::poison_async(out.data(), out.bytes(), lab02::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::sobel(in.data(), kSide, reference.data(), kSide, kSide, kSide, stream));
    const auto abs = static_cast<long long>(2 * cudalabs::lab_tolerance("sobel").abs);
    return cudalabs::check_matches(reference.data(), out.data(), kPixels, abs, "the edge image", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::sobel(in.data(), kSide, out.data(), kSide, kSide, kSide, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::sobel(in.data(), kSide, out.data(), kSide, kSide, kSide, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "the gray image"}};
  work.bytes = 2.0 * kPixels;  // read 1 byte, write 1 per pixel
  cudalabs::run_performance_case("sobel_8192", work);
}

}  // namespace
