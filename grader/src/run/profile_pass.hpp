#pragma once
// The profile pass of `labgrade grade|check --profile` (or of a lab whose YAML says
// `profile: {on_grade: true}` / `on_check: true`): after the normal run, the timed cases run again
// with CUDALABS_PROFILE_PASS set, each making one untimed call (common/src/profiled_call.hpp), and
// that call's kernels are measured by Nsight Compute. In a grade the judge starts the student's
// runner under ncu (CUDALABS_STUDENT_RUNNER_LAUNCHER), then, in a second pass, the reference's
// (CUDALABS_REFERENCE_RUNNER_LAUNCHER): one ncu at a time on the GPU, each log holding one side's
// kernels. In a self-check (the student's code in the harness) ncu runs the harness, one test at
// a time, measuring only the range the call marks. Nothing of it is scored.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cudalabs/course/profile_spec.hpp"
#include "model/profile_result.hpp"
#include "run/ncu_csv.hpp"
#include "run/suite_runner.hpp"

namespace labgrade {

struct ProfilePassRequest {
  std::filesystem::path ncu;
  cudalabs::config::ProfileSpec spec;
  std::vector<std::string> tests;     // the timed cases (Performance.*) or previews (Preview.*) to profile
  std::set<std::string> hidden;       // those of `tests` that are hidden
  bool in_runners = true;             // a grade (runners under ncu); false: a self-check (the harness under it)
};

// `normal` is the invocation of the normal run; the pass's own logs go under its working
// directory (profile-logs/). Never throws for what ncu or the code does: a pass that could not
// run says why in ProfileReport::unavailable (ncu not permitted to read the GPU's counters is
// seen on the first test, and the rest are not run), a case without figures in its `problem`.
ProfileReport run_profile_pass(const HarnessInvocation& normal, const ProfilePassRequest& request);

// What a profile pass knows of a case from ncu's logs and the test's outcome under it: the
// figures of each side, or why there are none. `reference` is null in a self-check. Split out so
// that it can be tested on recorded logs.
ProfiledCase profiled_case(const std::string& test, const cudalabs::config::ProfileSpec& spec,
                           const NcuLog& student, const NcuLog* reference, const TestOutcome* outcome);

// The line a report gives when ncu may not read the performance counters (ERR_NVGPUCTRPERM).
std::string counters_not_permitted();

}  // namespace labgrade
