#pragma once
// A lab's timed case: the suite says what to run and how much work it is; the YAML
// (config/labs/<lab>.yaml `performance:`) says what is fast enough; the course's `timing:` says
// how to measure. Used from a test named Performance.<case>:
//
//   TEST_F(Performance, vector_add_2to26) {
//     ...allocate a, b, c at the timed size (no need to fill them: prepare does)...
//     cudalabs::PerformanceWork work;
//     work.workload.prepare  = [&](std::uint64_t seed, cudaStream_t s) { ...a, b from seed; c poisoned... };
//     work.workload.student  = [&](cudaStream_t s) { return student::vector_add(a, b, c, n, s); };
//     work.workload.solution = [&](cudaStream_t s) { solution::vector_add(a, b, c, n, s); };
//     work.workload.verify   = [&](std::uint64_t seed, cudaStream_t s) { ...reference into its own
//                                buffer, compare with c; "" or what differs... };
//     work.workload.sealed_inputs = {{a, bytes, "a"}, {b, bytes, "b"}};
//     work.bytes = 3.0 * n * sizeof(float);
//     cudalabs::run_performance_case("vector_add_2to26", work);
//   }
//
// Before anything is timed, one untimed student call on inputs of the timed size is checked like a
// timed one (timing::qualifying_call): a wrong result, an error status or a TODO(student) fails the
// case with that message and nothing is timed.
//
// Student and solution are measured interleaved in this process (cudalabs/timing/interleaved.hpp),
// every sample on inputs regenerated from a seed drawn for this grade (timing/grade_seed.hpp), so
// no call can reuse an earlier result; a result whose confidence interval straddles the threshold
// is measured again (course timing.remeasure_attempts, each with twice the samples and time, and
// fresh inputs).
//
// Integrity of the timed calls: a wrong timed result or work left running outside the given
// stream fails the case with the reason and reports no measurement (no points); a figure beyond
// what this GPU can physically do (timing/plausibility.hpp) is reported flagged "implausible",
// which labgrade never scores and shows for the instructor to review.
//
// A pipeline over several streams (copies in, kernels, copies out) is timed the same way, with
// its streams in workload.side_streams (the timed region spans them all). With the threshold
// max_ratio_to_slowest_stage it is compared not with the solution but with the slowest of the
// stages it is made of: the suite lists them in `stages` (trusted code, each one stage over the
// whole input on the given stream, e.g. one cudaMemcpyAsync of everything); each is measured alone
// first, on the case's prepared inputs, and the slowest takes the solution's place in the
// interleaved comparison. 1.0 is perfect overlap.
//
// The figures go to labgrade on the result stream, which scores them with the YAML's points and
// partial credit; the test also fails, with the figures, when the verdict is short of full
// credit, so a student running the harness by hand sees why.
#include <string>
#include <string_view>
#include <vector>

#include "cudalabs/pipeline_stage.hpp"
#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs {

struct PerformanceWork {
  timing::Workload workload;  // for max_ratio_to_slowest_stage, workload.solution may stay empty
  std::vector<PipelineStage> stages;  // max_ratio_to_slowest_stage only
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
