// Lab 01 performance cases (config/labs/01_vector_add.yaml `performance:`). Each first checks the
// student's result at the timed size (a wrong answer earns nothing), then times student against
// solution, interleaved in this process, with the L2 flushed before every sample.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/compare_gtest.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab01_test_support.cuh"


namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

class Performance : public cudalabs::GpuTest {};

TEST_F(Performance, vector_add_2to26) {
  const std::vector<float> a = cudalabs::uniform_floats(kTimedSize, 101);
  const std::vector<float> b = cudalabs::uniform_floats(kTimedSize, 102);
  cudalabs::DeviceBuffer<float> da(a), db(b), dc(kTimedSize);
  dc.fill_bytes(lab01::kPoisonByte);
  ASSERT_TRUE(lab01::call_and_wait("vector_add", kTimedSize,
                                   [&] { return student::vector_add(da.data(), db.data(), dc.data(), kTimedSize); }));
  ASSERT_TRUE(cudalabs::matches(cudalabs::compare_floats(lab01::cpu_vector_add(a, b), dc.copy_to_host(),
                                                         cudalabs::lab_tolerance("vector_add")),
                                "c = a + b"))
      << "a wrong result is not timed";

  cudalabs::PerformanceWork work;
  work.workload.student = [&](cudaStream_t stream) {
    student::vector_add(da.data(), db.data(), dc.data(), kTimedSize, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::vector_add(da.data(), db.data(), dc.data(), kTimedSize, stream);
  };
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read a and b, write c
  cudalabs::run_performance_case("vector_add_2to26", work);
}

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
  work.workload.solution = [&](cudaStream_t stream) {
    solution::saxpy(alpha, dx.data(), dy.data(), kTimedSize, stream);
  };
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // read x and y, write y
  work.flops = 2.0 * kTimedSize;
  cudalabs::run_performance_case("saxpy_2to26", work);
}

}  // namespace
