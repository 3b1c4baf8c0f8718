// Lab 01's hidden performance case (config/labs/01_vector_add.yaml `performance:`): it first checks
// the student's result at the timed size (a wrong answer earns nothing), then times student against
// solution, interleaved in this process, with the L2 flushed before every sample. The public case
// saxpy_2to26 is in labs/01_vector_add/saxpy_timing_test.cu.
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

}  // namespace
