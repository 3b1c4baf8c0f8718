#include "session/grading_session.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "build/build_recipe.hpp"
#include "build/submission_builder.hpp"
#include "checks/include_scan.hpp"
#include "checks/symbol_scan.hpp"
#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "run/sanitizer_pass.hpp"
#include "run/suite_runner.hpp"
#include "sandbox/containment_rules.hpp"
#include "score/scoring.hpp"
#include "stage/staging.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

std::vector<std::string> CoursePaths::lab_ids() const {
  std::vector<std::string> ids;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root / "config" / "labs", error)) {
    if (entry.path().extension() == ".yaml") ids.push_back(entry.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The work directory: ours to create and, unless asked to keep it, to delete. An existing
// non-empty directory is never used, so nothing of the caller's is overwritten.
class WorkDirectory {
 public:
  WorkDirectory(const fs::path& requested, const std::string& lab, bool keep) : keep_(keep) {
    if (requested.empty()) {
      std::string pattern = (fs::temp_directory_path() / ("labgrade-" + lab + "-XXXXXX")).string();
      if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a work directory under " + pattern);
      path_ = pattern;
    } else {
      if (fs::exists(requested) && !fs::is_empty(requested)) {
        throw UsageError(fmt::format("--work-dir {} exists and is not empty; give a new or empty directory",
                                     requested.string()));
      }
      fs::create_directories(requested);
      path_ = fs::absolute(requested);
    }
  }
  ~WorkDirectory() {
    std::error_code ignored;
    if (!keep_) fs::remove_all(path_, ignored);
  }
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool keep_;
};

struct LoadedLab {
  config::CourseConfig course;
  config::LabConfig lab;
  BuildRecipe recipe;
};

LoadedLab load_lab(const CoursePaths& paths, const std::string& lab_id) {
  const auto ids = paths.lab_ids();
  if (std::find(ids.begin(), ids.end(), lab_id) == ids.end()) {
    throw UsageError(fmt::format("unknown lab '{}'; the labs are: {}", lab_id, fmt::join(ids, ", ")));
  }
  return LoadedLab{config::load_course_config(paths.course_config()), config::load_lab_config(paths.lab_config(lab_id)),
                   load_build_recipe(paths.build_recipe(lab_id))};
}

GradeResult run(const CoursePaths& paths, const RunRequest& request, bool graded) {
  const auto start = Clock::now();
  const LoadedLab loaded = load_lab(paths, request.lab);
  const bool only_public = !graded;
  const std::string harness = graded ? loaded.recipe.grade_harness : loaded.recipe.selfcheck_harness;
  if (harness.empty()) {
    throw UsageError(fmt::format("this tree has no hidden suite for {} (a student release?); use `labgrade check {}`",
                                 request.lab, request.lab));
  }
  const fs::path submission = request.submission.empty() ? paths.lab_dir(request.lab) : request.submission;
  // Found before anything is built, so a missing sanitizer costs no time.
  const bool sanitize = request.sanitize || (graded && loaded.lab.sanitizer.required);
  const fs::path sanitizer = sanitize ? find_compute_sanitizer(loaded.recipe.nvcc) : fs::path{};
  if (sanitize && sanitizer.empty()) {
    throw UsageError(fmt::format("{} needs compute-sanitizer, found neither next to {} nor on PATH",
                                 request.sanitize ? "--sanitize" : request.lab + " (its YAML says sanitizer: "
                                                                                 "{required: true})",
                                 loaded.recipe.nvcc.empty() ? "nvcc" : loaded.recipe.nvcc));
  }

  GradeResult report;
  report.mode = graded ? "grade" : "check";
  report.lab = loaded.lab.id;
  report.title = loaded.lab.title;
  report.submission = submission.string();

  auto finish = [&](RunStatus status, std::string detail) {
    report.status = status;
    report.status_detail = std::move(detail);
    total_points(report);
    if (report.points_possible == 0) {  // nothing ran: the possible points still come from the YAML
      for (const auto& spec : loaded.lab.tests) {
        if (!only_public || spec.visibility == config::Visibility::Public) report.points_possible += spec.points;
      }
      for (const auto& spec : loaded.lab.performance) {
        if (!only_public || spec.visibility == config::Visibility::Public) report.points_possible += spec.points;
      }
    }
    report.total_seconds = seconds_since(start);
    return report;
  };

  WorkDirectory work(request.work_dir, request.lab, request.keep_work_dir);
  const fs::path source_dir = work.path() / "src", binary_dir = work.path() / "bin", run_dir = work.path() / "run";
  fs::create_directories(binary_dir);
  fs::create_directories(run_dir);

  StagedSubmission staged;
  try {
    staged = stage_submission(submission, loaded.lab.student_files, source_dir, loaded.course.max_source_bytes);
  } catch (const SubmissionError& error) {
    report.tests = unscored_tests(loaded.lab, TestStatus::NotRun, error.what(), only_public);
    report.stage_seconds = seconds_since(start);
    return finish(RunStatus::SubmissionRejected, error.what());
  }
  report.staged_files = staged.taken_from;
  report.ignored_files = staged.ignored;
  report.ignored_not_listed = staged.ignored_not_listed;
  report.stage_seconds = seconds_since(start);

  // The lab's `forbid:` rules: headers before the build, called functions after it. Breaking
  // one scores 0 and nothing of the code runs.
  const config::ForbidRules rules = forbid_rules_for(loaded.course, loaded.lab, paths.root);
  auto broke_rules = [&](const std::vector<RuleViolation>& violations) {
    for (const auto& violation : violations) report.rule_violations.push_back(violation.describe());
    report.tests = unscored_tests(loaded.lab, TestStatus::NotRun, "not run: the code breaks a rule of the lab",
                                  only_public);
    const std::string more = violations.size() > 1 ? fmt::format(" (and {} more)", violations.size() - 1) : "";
    return finish(RunStatus::RuleViolation, "score 0: " + violations.front().describe() + more);
  };
  if (const auto violations = scan_includes(staged.files, staged.taken_from, rules.includes); !violations.empty()) {
    return broke_rules(violations);
  }

  report.build = build_student_library(BuildRequest{loaded.recipe, staged.files, binary_dir,
                                                    loaded.course.build_timeout_seconds,
                                                    loaded.course.max_output_bytes,
                                                    compiler_limits(loaded.course.limits)});
  const RunStatus not_built = graded ? RunStatus::Graded : RunStatus::BuildFailed;
  if (!report.build.succeeded) {
    report.tests = unscored_tests(loaded.lab, TestStatus::NotRun, "not run: the code did not compile", only_public);
    return finish(not_built, "the code did not compile; the compiler's messages are below");
  }
  std::vector<std::string> called;
  for (const auto& object : report.build.object_files) {
    for (auto& symbol : undefined_symbols(object, compiler_limits(loaded.course.limits))) called.push_back(std::move(symbol));
  }
  const std::string compiled = fmt::format("the compiled code of {}", fmt::join(staged.taken_from, ", "));
  if (const auto violations = check_symbols(called, rules.symbols, compiled); !violations.empty()) {
    return broke_rules(violations);
  }

  const std::shared_ptr<void> gpu = request.hold_gpu ? request.hold_gpu() : nullptr;  // until the grade ends
  const auto test_start = Clock::now();
  HarnessInvocation invocation;
  invocation.harness = place_harness(harness, binary_dir);
  invocation.working_dir = run_dir;
  invocation.env = {{"CUDALABS_LAB_CONFIG", fs::absolute(paths.lab_config(request.lab)).string()},
                    {"CUDALABS_COURSE_CONFIG", fs::absolute(paths.course_config()).string()}};
  invocation.test_timeout_seconds = loaded.lab.timeout_for_tests(loaded.course);
  invocation.max_output_bytes = loaded.course.max_output_bytes;
  invocation.limits = test_process_limits(loaded.course.limits);

  const TestListing listing = list_tests(invocation);
  if (!listing.ok()) {
    // Typically a function of the API that the submission deleted or renamed.
    report.build.succeeded = false;
    report.build.output += fmt::format("\nThe library compiled, but the test program could not load it ({}):\n{}",
                                       listing.process.describe_end(invocation.test_timeout_seconds),
                                       listing.process.output);
    report.tests = unscored_tests(loaded.lab, TestStatus::NotRun, "not run: the test program could not load the code",
                                  only_public);
    return finish(not_built, "the code compiled but does not provide the lab's API (see the build output)");
  }
  const auto mismatches = config::check_against_suite(loaded.lab, listing.tests, only_public);
  if (!mismatches.empty()) throw config::ConfigError(mismatches);

  std::vector<std::string> wanted;
  for (const auto& spec : loaded.lab.tests) {
    if (!only_public || spec.visibility == config::Visibility::Public) wanted.push_back(spec.name);
  }
  for (const auto& spec : loaded.lab.performance) {
    if (!only_public || spec.visibility == config::Visibility::Public) wanted.push_back(spec.test_name());
  }
  const SuiteRun suite = run_tests(invocation, wanted);
  report.device = suite.device;
  report.tests = score_tests(loaded.lab, suite.outcomes, only_public);
  for (ScoredTest& timed : score_performance(loaded.lab, suite.outcomes, suite.measurements, only_public)) {
    report.tests.push_back(std::move(timed));
  }
  report.test_seconds = seconds_since(test_start);
  if (!suite.cuda_device) {
    std::string reason = suite.no_device_reason;
    const std::string redundant = "no CUDA device: ";
    if (reason.rfind(redundant, 0) == 0) reason.erase(0, redundant.size());
    return finish(RunStatus::NoCudaDevice,
                  fmt::format("not a grade: the code compiled, but no CUDA device is usable here, so its tests "
                              "were skipped; {}", reason));
  }
  if (sanitize) {
    std::vector<std::string> correctness;  // not Performance.*: far too slow under a sanitizer
    for (const auto& spec : loaded.lab.tests) {
      if (!only_public || spec.visibility == config::Visibility::Public) correctness.push_back(spec.name);
    }
    apply_sanitizer_findings(report.tests, run_sanitizer_pass(invocation, sanitizer, correctness),
                             loaded.lab.sanitizer.required);
    report.test_seconds = seconds_since(test_start);
  }
  const bool all_passed = std::all_of(report.tests.begin(), report.tests.end(), [](const ScoredTest& test) {
    return test.outcome.status == TestStatus::Passed;
  });
  if (!graded && !all_passed) {
    return finish(RunStatus::TestsFailed, "some public tests did not pass");
  }
  return finish(RunStatus::Graded, graded ? "graded" : "all public tests passed");
}

}  // namespace

GradeResult grade_submission(const CoursePaths& paths, const RunRequest& request) { return run(paths, request, true); }

GradeResult self_check(const CoursePaths& paths, const RunRequest& request) { return run(paths, request, false); }

}  // namespace labgrade
