#include "serve/job_grading.hpp"

#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "batch/late_penalty.hpp"
#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "cudalabs/course/timestamp.hpp"
#include "model/exit_codes.hpp"
#include "remote_submit/service_api.hpp"
#include "report/report_outputs.hpp"
#include "stage/scratch_folder.hpp"

namespace labgrade::serve {
namespace fs = std::filesystem;

namespace {

std::map<std::string, std::string> render_reports(const GradeResult& result) {
  const ScratchFolder folder("labgrade-serve-reports");
  ReportOutputs outputs;
  outputs.output_dir = folder.path() / "reports";
  outputs.student_view = true;
  prepare_report_outputs(outputs);
  std::ostringstream text, notes;
  emit_reports(result, outputs, text, false, notes);
  std::map<std::string, std::string> reports;
  for (const auto& entry : fs::directory_iterator(outputs.output_dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    reports[entry.path().filename().string()] = content.str();
  }
  return reports;
}

// A graded run under the lab's `late:` policy, from the time the service received it (as batch
// applies it from a submission's time): the report's points become those after the penalty.
void apply_late_policy(const CoursePaths& paths, const Job& job, GradeResult& result) {
  if (job.mode != service_api::kModeGrade || !is_a_grade(result)) return;
  const auto lab = cudalabs::config::load_lab_config(paths.lab_config(job.lab));
  const auto penalty = batch::late_penalty(lab.late, job.received_at, result.points_earned);
  if (!penalty) return;
  result.late = LatePenaltyNote{cudalabs::config::format_timestamp_utc(job.received_at),
                                cudalabs::config::format_timestamp_utc(lab.late->due), penalty->days_late,
                                penalty->percent, penalty->points, result.points_earned};
  result.points_earned -= penalty->points;
}

std::string status_name(const GradeResult& result) {
  if (result.status == RunStatus::Graded && !result.build.succeeded) return "compile_error";
  return std::string(run_status_name(result.status));
}

}  // namespace

JobOutcome error_outcome(const std::string& detail, int exit_code) {
  JobOutcome outcome;
  outcome.status = "error";
  outcome.detail = detail;
  outcome.exit_code = exit_code;
  outcome.reports["report.txt"] = outcome.detail + "\n";
  return outcome;
}

JobOutcome grade_job(const CoursePaths& paths, const Job& job) {
  const auto start = std::chrono::steady_clock::now();
  JobOutcome outcome;
  try {
    RunRequest request;
    request.lab = job.lab;
    request.submission = job.archive;
    GradeResult result =
        job.mode == service_api::kModeGrade ? grade_submission(paths, request) : self_check(paths, request);
    apply_late_policy(paths, job, result);
    outcome.status = status_name(result);
    outcome.detail = result.status_detail;
    outcome.points_possible = result.points_possible;
    if (has_score(result)) outcome.points_earned = result.points_earned;
    outcome.exit_code = static_cast<int>(result.status);
    outcome.reports = render_reports(result);
  } catch (const cudalabs::config::ConfigError& error) {
    outcome = error_outcome(fmt::format("labgrade could not grade it: the course's configuration is invalid: {}", error.what()),
                            kConfigExitCode);
  } catch (const std::exception& error) {
    outcome = error_outcome(std::string("labgrade could not grade it: ") + error.what(), kInternalExitCode);
  }
  outcome.grade_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace labgrade::serve
