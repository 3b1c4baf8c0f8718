// Lab 05 performance cases (config/labs/05_reduction.yaml `performance:`). Each first checks the
// student's result at the timed size (a wrong answer earns nothing), then times student against
// solution, interleaved in this process, with the L2 flushed before every sample. Student and
// solution each get their own workspace.
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

class Performance : public cudalabs::GpuTest {};

// Times student vs solution on `x` (already checked), reading 4 bytes per element.
template <class T>
void time_case(const char* name, lab05::ReduceFn<T> student_fn, lab05::ReduceFn<T> solution_fn,
               const std::vector<T>& x) {
  cudalabs::DeviceBuffer<T> in(x), student_result(1), solution_result(1);
  cudalabs::DeviceBuffer<unsigned char> student_workspace(lab05::kWorkspaceBytes), solution_workspace(lab05::kWorkspaceBytes);
  cudalabs::PerformanceWork work;
  work.workload.student = [&](cudaStream_t stream) {
    student_fn(in.data(), x.size(), student_result.data(), student_workspace.data(), stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution_fn(in.data(), x.size(), solution_result.data(), solution_workspace.data(), stream);
  };
  work.bytes = static_cast<double>(x.size()) * sizeof(T);  // every element read once
  work.flops = static_cast<double>(x.size());
  cudalabs::run_performance_case(name, work);
}

TEST_F(Performance, sum_float_2to26) {
  const std::vector<float> x = cudalabs::uniform_floats(kTimedSize, 4101);
  const auto run = lab05::run_reduction<float>(&student::sum_float, "sum_float", x);
  ASSERT_TRUE(run.status);
  ASSERT_TRUE(lab05::float_result_is(lab05::cpu_sum_double(x), run,
                                     lab05::sum_float_tolerance(x, cudalabs::lab_tolerance("sum_float")),
                                     "sum of the floats"))
      << "a wrong result is not timed";
  time_case<float>("sum_float_2to26", &student::sum_float, &solution::sum_float, x);
}

TEST_F(Performance, sum_int_2to26) {
  const std::vector<int> x = cudalabs::uniform_ints(kTimedSize, 4102, -1000, 1000);
  const auto run = lab05::run_reduction<int>(&student::sum_int, "sum_int", x);
  ASSERT_TRUE(run.status);
  ASSERT_TRUE(lab05::int_result_is(lab05::cpu_sum_int(x), run, "sum of the ints")) << "a wrong result is not timed";
  time_case<int>("sum_int_2to26", &student::sum_int, &solution::sum_int, x);
}

TEST_F(Performance, max_float_2to26) {
  std::vector<float> x = cudalabs::uniform_floats(kTimedSize, 4103);
  x[kTimedSize / 3] = 2.0f;
  const auto run = lab05::run_reduction<float>(&student::max_float, "max_float", x);
  ASSERT_TRUE(run.status);
  ASSERT_TRUE(lab05::float_result_is(lab05::cpu_max_float(x), run, cudalabs::lab_tolerance("max_float"), "maximum"))
      << "a wrong result is not timed";
  time_case<float>("max_float_2to26", &student::max_float, &solution::max_float, x);
}

}  // namespace
