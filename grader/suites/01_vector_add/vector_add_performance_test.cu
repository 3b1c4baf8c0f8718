// Lab 01 performance cases (config/labs/01_vector_add.yaml `performance:`). The engine first
// checks one untimed student call at the timed size (a wrong answer earns nothing), then times
// student against solution, interleaved in this process, with the L2 flushed before every sample.
// Every sample runs on inputs generated on the GPU from that round's seed, with the output
// poisoned; checked samples' outputs are compared on the GPU with the reference's for the same
// inputs, made afterwards, and their inputs with checksums taken before the call.
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
#include "lab01_test_support.cuh"

namespace {

using cudalabs::timing::round_seed;

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

class Performance : public cudalabs::GpuTest {};

TEST_F(Performance, vector_add_2to26) {
  cudalabs::DeviceBuffer<float> da(kTimedSize), db(kTimedSize), dc(kTimedSize);
  cudalabs::DeviceBuffer<float> expected(kTimedSize);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(da.data(), kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(db.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
    cudalabs::poison_async(dc.data(), dc.bytes(), lab01::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::vector_add(da.data(), db.data(), dc.data(), kTimedSize, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::vector_add(da.data(), db.data(), dc.data(), kTimedSize, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::vector_add(da.data(), db.data(), expected.data(), kTimedSize, stream));
    return cudalabs::check_against_reference(expected.data(), dc.data(), kTimedSize,
                                             cudalabs::lab_tolerance("vector_add"), "c", stream);
  };
  work.workload.sealed_inputs = {{da.data(), da.bytes(), "a"}, {db.data(), db.bytes(), "b"}};
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read a and b, write c
  cudalabs::run_performance_case("vector_add_2to26", work);
}

TEST_F(Performance, saxpy_2to26) {
  const float alpha = 1.75f;
  cudalabs::DeviceBuffer<float> dx(kTimedSize), dy(kTimedSize);

  // saxpy works in place: every sample regenerates y, and the check computes the reference from
  // its own copy of the round's y.
  cudalabs::DeviceBuffer<float> expected(kTimedSize);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(dx.data(), kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(dy.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
  };
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) -> std::string {
    cudalabs::fill_uniform_floats(expected.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
    CUDALABS_CHECK(solution::saxpy(alpha, dx.data(), expected.data(), kTimedSize, stream));
    return cudalabs::check_against_reference(expected.data(), dy.data(), kTimedSize,
                                             cudalabs::lab_tolerance("saxpy"), "y", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::saxpy(alpha, dx.data(), dy.data(), kTimedSize, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::saxpy(alpha, dx.data(), dy.data(), kTimedSize, stream);
  };
  work.workload.sealed_inputs = {{dx.data(), dx.bytes(), "x"}};
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read x and y, write y
  work.flops = 2.0 * kTimedSize;
  cudalabs::run_performance_case("saxpy_2to26", work);
}

}  // namespace
