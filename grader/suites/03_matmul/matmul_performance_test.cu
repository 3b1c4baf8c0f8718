// Lab 03 performance cases (config/labs/03_matmul.yaml `performance:`). Each first checks the
// student's result at the timed size on sampled elements (a wrong answer earns nothing), then
// times student against solution, interleaved in this process, with the L2 flushed before every
// sample.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab03_test_support.cuh"

namespace {

class Performance : public cudalabs::GpuTest {};

void time_against_reference(const char* case_name, lab03::MatmulFn student_fn, lab03::MatmulFn solution_fn,
                            const char* function, const lab03::Shape& s, std::uint64_t seed) {
  const lab03::Matrices in = lab03::random_matrices(s, seed);
  cudalabs::DeviceBuffer<float> da(in.a), db(in.b), dc(s.c_size());
  dc.fill_bytes(cudalabs::kPoisonByte);
  ASSERT_TRUE(lab03::call_and_wait(function, s, [&] {
    return student_fn(da.data(), db.data(), dc.data(), s.m, s.n, s.k, nullptr);
  }));
  ASSERT_TRUE(lab03::matches_samples(s, lab03::cpu_matmul_samples(s, in.a, in.b, 2000, seed), dc.copy_to_host(),
                                     cudalabs::lab_tolerance("matmul"), "C = A * B"))
      << "a wrong result is not timed";

  cudalabs::PerformanceWork work;
  work.workload.student = [&](cudaStream_t stream) {
    student_fn(da.data(), db.data(), dc.data(), s.m, s.n, s.k, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution_fn(da.data(), db.data(), dc.data(), s.m, s.n, s.k, stream);
  };
  // One multiply and one add per (row, column, p); at least A and B read and C written once.
  work.flops = 2.0 * s.m * s.n * s.k;
  work.bytes = 4.0 * (static_cast<double>(s.a_size()) + s.b_size() + s.c_size());
  cudalabs::run_performance_case(case_name, work);
}

// The lab's technique: shared-memory (and register) tiling at 4096^3.
TEST_F(Performance, matmul_tiled_4096) {
  time_against_reference("matmul_tiled_4096", &student::matmul_tiled, &solution::matmul_tiled, "matmul_tiled",
                         {4096, 4096, 4096}, 501);
}

// The direct version at 2048^3: only catches an uncoalesced mapping (threadIdx.x along rows).
TEST_F(Performance, matmul_naive_2048) {
  time_against_reference("matmul_naive_2048", &student::matmul, &solution::matmul, "matmul", {2048, 2048, 2048}, 502);
}

}  // namespace
