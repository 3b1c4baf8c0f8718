// Lab 10 performance cases (config/labs/10_sad.yaml `performance:`): motion_search on a 3840 x 2160
// frame pair with R = 16 (1089 candidates per block) and on 1920 x 1080 with R = 32 (4225). The
// engine first checks one untimed student call at the timed size (a wrong answer earns nothing),
// then times student against solution, interleaved in this process, with the L2 flushed before
// every sample. Every sample searches frames generated on the GPU from that round's seed: a random
// reference frame and, as the current frame, that frame moved by a vector the seed chooses (within
// R / 2), so most blocks have a real motion vector to find. Outputs start poisoned; every timed
// result is compared with the reference's for the same frames, made afterwards, and the frames
// with a checksum taken before the call.
//
// The work is pixel comparisons, not bytes: blocks x (2R + 1)^2 x 64 absolute differences, about
// 9.0e9 per call in both cases. The reported GB/s count the two frames read once and the outputs
// written once, which is all the memory traffic the problem needs; it is far below the copy
// bandwidth because the search is bound by integer arithmetic.
#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"

namespace {

using cudalabs::timing::round_seed;

class Performance : public cudalabs::GpuTest {};

void time_search(const char* case_name, int width, int height, int radius) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  const std::size_t blocks = lab10::block_count(width, height);
  cudalabs::DeviceBuffer<unsigned char> current(pixels), reference(pixels);
  cudalabs::DeviceBuffer<int2> vectors(blocks), expected_vectors(blocks);
  cudalabs::DeviceBuffer<unsigned> sads(blocks), expected_sads(blocks);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&, width, height, radius](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_random_bytes(reference.data(), pixels, round_seed(seed, 0), stream);
    // The round's motion, each component in [-R/2, R/2].
    const std::uint64_t motion = round_seed(seed, 1);
    const int span = radius + 1;
    const int sx = static_cast<int>(motion % static_cast<std::uint64_t>(span)) - radius / 2;
    const int sy = static_cast<int>((motion >> 20) % static_cast<std::uint64_t>(span)) - radius / 2;
    lab10::fill_shifted_frame(current.data(), reference.data(), width, height, sx, sy, round_seed(seed, 2), stream);
    cudalabs::poison_async(vectors.data(), vectors.bytes(), cudalabs::kPoisonByte, stream);
    cudalabs::poison_async(sads.data(), sads.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&, width, height, radius](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::motion_search(current.data(), reference.data(), width, height, radius,
                                           expected_vectors.data(), expected_sads.data(), stream));
    std::string wrong = cudalabs::check_matches(reinterpret_cast<const int*>(expected_vectors.data()),
                                                reinterpret_cast<const int*>(vectors.data()), 2 * blocks,
                                                "vectors (dx, dy interleaved)", stream);
    if (wrong.empty()) wrong = cudalabs::check_matches(expected_sads.data(), sads.data(), blocks, "sads", stream);
    return wrong;
  };
  work.workload.student = [&, width, height, radius](cudaStream_t stream) {
    return student::motion_search(current.data(), reference.data(), width, height, radius, vectors.data(),
                                  sads.data(), stream);
  };
  work.workload.solution = [&, width, height, radius](cudaStream_t stream) {
    solution::motion_search(current.data(), reference.data(), width, height, radius, vectors.data(), sads.data(),
                            stream);
  };
  work.workload.sealed_inputs = {{current.data(), current.bytes(), "current"},
                                 {reference.data(), reference.bytes(), "reference"}};
  work.bytes = 2.0 * static_cast<double>(pixels) + static_cast<double>(blocks) * (sizeof(int2) + sizeof(unsigned));
  cudalabs::run_performance_case(case_name, work);
}

// 4K UHD, R = 16: 129600 blocks x 1089 candidates x 64 pixels = 9.03e9 absolute differences.
TEST_F(Performance, search_3840x2160_r16) { time_search("search_3840x2160_r16", 3840, 2160, 16); }

// Full HD, R = 32: 32400 blocks x 4225 candidates x 64 pixels = 8.76e9 absolute differences, with
// four times the window per block.
TEST_F(Performance, search_1920x1080_r32) { time_search("search_1920x1080_r32", 1920, 1080, 32); }

}  // namespace
