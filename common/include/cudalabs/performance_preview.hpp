#pragma once
// A timing preview: the student's code timed alone in the public self-check, against a threshold
// relative to this device (a fraction of its measured copy bandwidth or FP32 peak, or a time per
// GPU model), so students see where they stand without any reference solution in their tree.
// It is a preview, never a grade: the lab's YAML lists it under `performance:` with
// `preview: true` (public, no points), labgrade shows it apart from the points, and the grade
// times the hidden case it previews, against the reference. Used from a test named
// Preview.<preview> in the lab's selfcheck_test.cu:
//
//   TEST_F(Preview, vector_add) {
//     ...allocate a, b, c at the timed size...
//     cudalabs::PreviewWork work;
//     work.workload.prepare = [&](std::uint64_t seed, cudaStream_t s) { ...a, b from seed; c poisoned... };
//     work.workload.student = [&](cudaStream_t s) { return student::vector_add(a, b, c, n, s); };
//     work.workload.verify  = [&](std::uint64_t seed, cudaStream_t s) { ...c against a CPU reference of
//                                 the same inputs; "" or what differs... };
//     work.workload.sealed_inputs = {{a, bytes, "a"}, {b, bytes, "b"}};
//     work.bytes = 3.0 * n * sizeof(float);
//     cudalabs::run_performance_preview("vector_add", work);
//   }
//
// The timed calls get the same checks as a graded case's, so the preview cannot be fooled into
// flattering code that does not do its work: one untimed qualifying call at the timed size first
// (timing::qualifying_call: a wrong result or a TODO(student) is not timed), fresh inputs from a
// per-run seed and poisoned outputs before every sample, the L2 flushed, each call's status
// checked, the device idle after each call, and the first sample and a seeded share of the others
// verified (sealed inputs unchanged, `verify` satisfied). The only difference from a graded case
// is that no solution is timed beside the student's code: `workload.solution` stays empty, and
// `verify` compares with a reference of the test's own (a CPU oracle), not with the solution.
//
// A pipeline (lab 09) may be previewed against the slowest of its stages instead
// (max_ratio_to_slowest_stage): the test lists them in `stages`, as a graded pipeline case does
// (cudalabs/performance_case.hpp), from code the self-check has too: cudaMemcpyAsync copies and the
// student's own kernel. Each is measured alone first, on the prepared inputs, then the student's
// code alone; the figure is the student's median over the slowest stage's (its interval, the
// student's interval over that median). Unlike the grade, the two are measured one after the
// other, not interleaved.
//
// The figures (median time, GB/s, fraction of this device's copy bandwidth or the ratio to the
// slowest stage, the threshold and whether it is met) go to labgrade as a measurement event and
// to stdout. The test fails only when the code is wrong at the timed size or its timed calls
// cannot be trusted; a result below the threshold passes, with the figures that say so.
#include <string>
#include <string_view>
#include <vector>

#include "cudalabs/pipeline_stage.hpp"
#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs {

struct PreviewWork {
  timing::Workload workload;          // solution stays empty; verify is required
  std::vector<PipelineStage> stages;  // max_ratio_to_slowest_stage only
  double bytes = 0;                   // bytes the operation must move (reads + writes): achieved GB/s
  double flops = 0;                   // floating-point operations: achieved GFLOP/s
  double peak_gflops = 0;             // this device's peak, for min_fraction_of_peak_flops
};

// What one preview measured: the student's samples alone.
struct PreviewSamples {
  timing::SampleSummary student_ms;
  bool target_met = false;  // the median's interval reached the course's precision target
  bool settled = false;     // policy.settled said the interval settled the verdict (stopped there)
  double seconds_spent = 0;
  int verified_samples = 0;
  int samples_with_outstanding_work = 0;
  double max_outstanding_ms = 0;
  std::string integrity_failure;  // as timing::PairedResult's: the figures must not be shown as a result
};

// Times work.workload.student alone under `policy`, with the checks above (after the qualifying
// call, which the caller makes). Throws std::invalid_argument for an invalid policy, an empty
// student call; CudaError when a launch fails or the timed work faults.
PreviewSamples measure_student_alone(const timing::Workload& work, const timing::SamplingPolicy& policy,
                                     cudaStream_t stream = nullptr);

// Configuration files: CUDALABS_LAB_CONFIG / CUDALABS_COURSE_CONFIG (labgrade sets both), else the
// defaults given. Adds GoogleTest failures; throws only on CUDA errors.
void run_performance_preview_in(const char* default_lab_config, const char* default_course_config,
                                std::string_view name, const PreviewWork& work);

#if defined(CUDALABS_LAB_CONFIG_DEFAULT) && defined(CUDALABS_COURSE_CONFIG_DEFAULT)
inline void run_performance_preview(std::string_view name, const PreviewWork& work) {
  run_performance_preview_in(CUDALABS_LAB_CONFIG_DEFAULT, CUDALABS_COURSE_CONFIG_DEFAULT, name, work);
}
#endif

}  // namespace cudalabs
