#pragma once
// What the stages of one labgrade run share: its inputs, as loaded and checked before anything
// runs, and the result the stages fill in, each its own part (see grading_session.cpp for the
// order). Internal to session/.
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "build/build_recipe.hpp"
#include "cudalabs/gpu_lock.hpp"
#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "model/grade_result.hpp"
#include "run/suite_runner.hpp"
#include "session/counting_slots.hpp"
#include "session/grading_session.hpp"
#include "stage/staging.hpp"

namespace labgrade {

using SessionClock = std::chrono::steady_clock;

double seconds_since(SessionClock::time_point start);

struct SessionState {
  // Inputs: fixed once the run starts.
  CoursePaths paths;
  RunRequest request;
  bool graded = true;  // grade (hidden suite, every test) or check (public self-check)
  bool only_public() const { return !graded; }
  cudalabs::config::CourseConfig course;
  cudalabs::config::LabConfig lab;
  BuildRecipe recipe;
  std::string harness;               // the suite binary that holds the tests to run
  std::filesystem::path submission;  // what is graded: the request's, or labs/<lab>
  std::filesystem::path sanitizer;   // compute-sanitizer; empty: no sanitizer pass
  std::filesystem::path ncu;         // Nsight Compute; empty: no profile pass (result.profile says why)
  std::filesystem::path source_dir, binary_dir, run_dir;  // inside the work directory
  SessionClock::time_point start;

  // Passed on from one stage to a later one.
  StagedSubmission staged;
  cudalabs::config::ForbidRules rules;  // the course's and the lab's `forbid:`, with the lab's `allow:`
  HarnessInvocation invocation;
  SessionClock::time_point test_start;
  cudalabs::GpuLock gpu_lock;  // shared for the correctness tests, then exclusive to the end of the run
  // The CUDA runtime's start in labgrade (the driver's initialisation, which the GPU lock's device
  // query needs), begun beside staging and the build; take_gpu waits for it.
  std::shared_future<void> cuda_runtime_started;
  SuiteRun shared_run;         // the correctness tests' outcomes while sharing the GPU
  // In a batch, the correctness-tests slot (RunRequest::gpu_slots) while the stage runs; let go
  // early when a harness goes quiet (stages.cpp, run_correctness_tests).
  std::unique_ptr<CountingSlots::Slot> gpu_slot;
  // In a batch, by how much the deferred tests' time-out is stretched (deferred_timeout_stretch):
  // other grades run theirs beside them. 1 when a grade runs them by itself (finish_grade).
  double deferred_timeout_stretch = 1;
  // Whether the shared run's harness also ran the timed cases, after waiting for the GPU alone
  // (stages.cpp, timed_cases_in_shared_run), and whether the session holds it alone now.
  bool timed_in_shared_run = false;
  bool holds_gpu_alone = false;
  // The sanitizer pass's findings by test, made while sharing the GPU (it is untimed), attached
  // once the tests are scored; whether it ran, and its seconds.
  std::map<std::string, std::vector<SanitizerFinding>> sanitizer_findings;
  bool sanitizer_ran = false;
  double sanitizer_seconds = 0;

  GradeResult result;
};

// Why a run ends before its last stage: the run's status, one sentence for the reader, and,
// when the tests never ran, the reason every test is listed as not run.
struct Stop {
  RunStatus status = RunStatus::Graded;
  std::string detail;
  std::string tests_not_run_because;  // "" when the tests ran
};

// A stage: reads the state, fills in its part of the result, and returns a Stop to end the run.
using Stage = std::optional<Stop> (*)(SessionState& session);

}  // namespace labgrade
