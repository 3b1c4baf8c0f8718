#pragma once
// One queued submission graded by the same engine as `labgrade grade` (a graded run) or
// `labgrade check` (a self-check): grade_submission / self_check on the uploaded archive, the same
// confinement, GPU lock and reports. The reports are those a student may see (student view: hidden
// tests' details left out). A failure of labgrade or of the course's configuration becomes the
// outcome "error" with its message, never an exception.
#include "serve/service_store.hpp"
#include "session/grading_session.hpp"

namespace labgrade::serve {

JobOutcome grade_job(const CoursePaths& paths, const Job& job);

// The outcome "error" when labgrade itself could not grade a submission: `detail` says why (it is
// also the text report the student gets); `exit_code` is labgrade's (model/exit_codes.hpp).
JobOutcome error_outcome(const std::string& detail, int exit_code);

}  // namespace labgrade::serve
