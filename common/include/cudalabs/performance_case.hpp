#pragma once
// A lab's timed case: the suite says what to run and how much work it is; the YAML
// (config/labs/<lab>.yaml `performance:`) says what is fast enough; the course's `timing:` says
// how to measure. Used from a test named Performance.<case>:
//
//   TEST_F(Performance, add_large) {
//     ...allocate, fill, check the student's result is correct first (a wrong answer earns nothing)...
//     cudalabs::PerformanceWork work;
//     work.workload.student  = [&](cudaStream_t s) { student::vector_add(a, b, c, n, s); };
//     work.workload.solution = [&](cudaStream_t s) { solution::vector_add(a, b, c, n, s); };
//     work.bytes = 3.0 * n * sizeof(float);
//     cudalabs::run_performance_case("add_large", work);
//   }
//
// A public case (in a lab's self-check suite, which has no solution) leaves workload.solution
// empty: the student is then timed alone, which only thresholds relative to this device allow
// (min_fraction_of_peak_bandwidth, min_fraction_of_peak_flops, max_ms); the lab YAML's loader
// refuses max_ratio_to_solution on a public case.
// Student and solution are measured interleaved in this process (cudalabs/timing/interleaved.hpp);
// a result whose confidence interval straddles the threshold is measured again (course
// timing.remeasure_attempts, each with twice the samples and time). The figures go to labgrade on
// the result stream, which scores them with the YAML's points and partial credit; the test also
// fails, with the figures, when the verdict is short of full credit, so a student running the
// harness by hand sees why.
#include <string_view>

#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs {

struct PerformanceWork {
  timing::Workload workload;
  double bytes = 0;       // bytes the operation must move (reads + writes): achieved GB/s
  double flops = 0;       // floating-point operations: achieved GFLOP/s
  double peak_gflops = 0; // this device's peak for min_fraction_of_peak_flops (the suite measures it)
};

// Configuration files: CUDALABS_LAB_CONFIG / CUDALABS_COURSE_CONFIG (labgrade sets both), else
// the defaults given. Adds GoogleTest failures; throws only on CUDA errors (a failed test too).
void run_performance_case_in(const char* default_lab_config, const char* default_course_config,
                             std::string_view name, const PerformanceWork& work);

#if defined(CUDALABS_LAB_CONFIG_DEFAULT) && defined(CUDALABS_COURSE_CONFIG_DEFAULT)
// Each lab harness is compiled with its config paths (see cmake/CudalabsLab.cmake).
inline void run_performance_case(std::string_view name, const PerformanceWork& work) {
  run_performance_case_in(CUDALABS_LAB_CONFIG_DEFAULT, CUDALABS_COURSE_CONFIG_DEFAULT, name, work);
}
#endif

}  // namespace cudalabs
