// Lab 01's public timed case: your saxpy at 2^26 floats, timed alone on your GPU against a share
// of this device's own copy bandwidth, measured in the same run (config/labs/01_vector_add.yaml
// `performance:` saxpy_2to26). `labgrade check 01_vector_add` runs it after the correctness tests;
// the grade runs the same case with the same threshold, so what you see here is what you get.
// A wrong result is never timed.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "lab01_test_support.cuh"

#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "vector_add.cuh"
#undef LAB_IMPL

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

TEST_F(Performance, saxpy_2to26) {
  const float alpha = 1.75f;
  const std::vector<float> x = cudalabs::uniform_floats(kTimedSize, 103);
  const std::vector<float> y = cudalabs::uniform_floats(kTimedSize, 104);
  cudalabs::DeviceBuffer<float> dx(x), dy(y), pristine_y(y);
  ASSERT_TRUE(lab01::call_and_wait("saxpy", kTimedSize,
                                   [&] { return student::saxpy(alpha, dx.data(), dy.data(), kTimedSize); }));
  ASSERT_TRUE(cudalabs::matches(cudalabs::compare_floats(lab01::cpu_saxpy(alpha, x, y), dy.copy_to_host(),
                                                         cudalabs::lab_tolerance("saxpy")),
                                "y = alpha * x + y"))
      << "a wrong result is not timed";

  cudalabs::PerformanceWork work;
  // saxpy works in place: every sample starts from the same y.
  work.workload.restore_inputs = [&](cudaStream_t stream) {
    CUDALABS_CHECK(cudaMemcpyAsync(dy.data(), pristine_y.data(), dy.bytes(), cudaMemcpyDeviceToDevice, stream));
  };
  work.workload.student = [&](cudaStream_t stream) { student::saxpy(alpha, dx.data(), dy.data(), kTimedSize, stream); };
  // No solution: the threshold is a fraction of this device's measured copy bandwidth.
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read x and y, write y
  work.flops = 2.0 * kTimedSize;
  cudalabs::run_performance_case("saxpy_2to26", work);
}

}  // namespace
