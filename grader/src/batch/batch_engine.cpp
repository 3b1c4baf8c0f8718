#include "batch_engine.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "build/build_recipe.hpp"
#include "content_hash.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "cudalabs/course/timestamp.hpp"
#include "late_penalty.hpp"
#include "report/report_outputs.hpp"
#include "results_store.hpp"

namespace labgrade::batch {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

fs::path database_path(const BatchRequest& request) {
  return request.database.empty() ? request.out / "results.sqlite" : request.database;
}

fs::path reports_folder(const fs::path& out, const std::string& student_id) {
  return out / "reports" / file_name_for(student_id);
}

namespace {

void require_known_lab(const CoursePaths& paths, const std::string& lab) {
  const auto ids = paths.lab_ids();
  if (std::find(ids.begin(), ids.end(), lab) == ids.end()) {
    throw UsageError(fmt::format("unknown lab '{}'; the labs are: {}", lab, fmt::join(ids, ", ")));
  }
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string status_of(const GradeResult& report) {
  switch (report.status) {
    case RunStatus::SubmissionRejected: return status::kRejected;
    case RunStatus::RuleViolation: return status::kRuleViolation;
    case RunStatus::NoCudaDevice: return status::kNoCudaDevice;
    case RunStatus::Graded: return report.build.succeeded ? status::kGraded : status::kCompileError;
    default: return status::kError;  // check-only statuses: not reachable from a grade
  }
}

// Adds the lab's late policy to the report (its points become those after the penalty) and
// returns the penalty; nullopt when none applies.
std::optional<LatePenalty> apply_late_policy(const config::LabConfig& lab, const BatchSubmission& submission,
                                             GradeResult& report) {
  if (report.status == RunStatus::NoCudaDevice) return std::nullopt;
  const auto penalty = late_penalty(lab.late, submission.submitted_at, report.points_earned);
  if (!penalty) return std::nullopt;
  report.late = LatePenaltyNote{config::format_timestamp_utc(*submission.submitted_at),
                            config::format_timestamp_utc(lab.late->due), penalty->days_late, penalty->percent,
                            penalty->points, report.points_earned};
  report.points_earned -= penalty->points;
  return penalty;
}

SubmissionRow row_for(const config::LabConfig& lab, const BatchSubmission& submission, const GradeResult& report,
                      const std::optional<LatePenalty>& penalty) {
  SubmissionRow row;
  row.student_id = submission.student_id;
  row.name = submission.name;
  row.source = submission.path.string();
  row.submitted_at = submission.submitted_at;
  row.status = status_of(report);
  row.detail = report.status_detail;
  row.points_possible = report.points_possible;
  if (row.status != status::kNoCudaDevice) {
    row.total = report.points_earned;
    row.raw_points = report.late ? report.late->points_before : report.points_earned;
  }
  if (penalty) {
    row.late_days = penalty->days_late;
    row.late_penalty_percent = penalty->percent;
    row.late_penalty_points = penalty->points;
  }
  row.build_seconds = report.build.seconds;
  row.test_seconds = report.test_seconds;
  row.total_seconds = report.total_seconds;
  row.graded_at = unix_now();
  for (const ScoredTest& test : report.tests) {
    TestRow t;
    t.name = test.name;
    t.timed = lab.find_performance_test(test.name) != nullptr;
    t.status = std::string(to_string(test.outcome.status));
    t.points_earned = test.points_earned;
    t.points_possible = test.points_possible;
    if (test.performance) {
      t.student_ms = test.performance->measurement.student_ms.median;
      t.solution_ms = test.performance->measurement.solution_ms.median;
    }
    row.tests.push_back(std::move(t));
  }
  return row;
}

// Every report format into reports/<student>/, as `labgrade grade --output-dir` writes them.
void write_reports(const fs::path& folder, const GradeResult& report) {
  ReportOutputs outputs;
  outputs.output_dir = folder;
  prepare_report_outputs(outputs);
  std::ostringstream text, notes;
  emit_reports(report, outputs, text, false, notes);
}

SubmissionRow error_row(const config::LabConfig& lab, const BatchSubmission& submission, const std::string& what,
                        double seconds) {
  SubmissionRow row;
  row.student_id = submission.student_id;
  row.name = submission.name;
  row.source = submission.path.string();
  row.submitted_at = submission.submitted_at;
  row.status = status::kError;
  row.detail = "labgrade could not grade it: " + what;
  row.points_possible = lab.total_points;
  row.total_seconds = seconds;
  row.graded_at = unix_now();
  return row;
}

}  // namespace

std::string lab_config_hash(const CoursePaths& paths, const std::string& lab) {
  require_known_lab(paths, lab);
  const BuildRecipe recipe = load_build_recipe(paths.build_recipe(lab));
  std::vector<fs::path> files{paths.course_config(), paths.lab_config(lab), paths.build_recipe(lab)};
  if (!recipe.grade_harness.empty()) files.emplace_back(recipe.grade_harness);
  return hash_files(files);
}

std::string submission_hash(const BatchSubmission& submission) {
  try {
    ContentHash hash;
    hash.add(hash_submission(submission.path));
    hash.add(submission.submitted_at ? std::to_string(*submission.submitted_at) : "unknown time");
    return hash.hex();
  } catch (const std::exception&) {
    return "unreadable";
  }
}

std::vector<PendingSubmission> pending_submissions(const BatchRequest& request, const std::string& config_hash,
                                                   const ResultsStore& store, BatchProgress& progress,
                                                   std::size_t& kept) {
  SubmissionInventory inventory = find_submissions(request.submissions, request.out);
  for (const std::string& ignored : inventory.ignored) {
    progress.note(fmt::format("ignored {}: neither a folder nor a .zip/.tar.gz/.tgz archive", ignored));
  }
  const std::set<std::string> wanted(request.only_students.begin(), request.only_students.end());
  std::vector<PendingSubmission> pending;
  kept = 0;
  for (BatchSubmission& submission : inventory.submissions) {
    if (!wanted.empty() && wanted.count(submission.student_id) == 0) continue;
    std::string files_hash = submission_hash(submission);
    if (!request.regrade && store.has_final_result(submission.student_id, files_hash, config_hash)) {
      ++kept;
      continue;
    }
    pending.push_back({std::move(submission), std::move(files_hash)});
  }
  return pending;
}

BatchOutcome run_batch(const CoursePaths& paths, const BatchRequest& request, BatchProgress& progress,
                       const std::atomic<bool>& stop) {
  require_known_lab(paths, request.lab);
  const config::LabConfig lab = config::load_lab_config(paths.lab_config(request.lab));
  const std::string config_hash = lab_config_hash(paths, request.lab);
  std::error_code error;
  fs::create_directories(request.out, error);
  if (error) throw UsageError(fmt::format("cannot create the output folder {}: {}", request.out.string(), error.message()));
  ResultsStore store(database_path(request), request.lab);
  BatchOutcome outcome;
  const std::vector<PendingSubmission> jobs = pending_submissions(request, config_hash, store, progress, outcome.kept);
  outcome.submissions = jobs.size() + outcome.kept;

  // Grades run in parallel: staging, the rule checks and compilation on the CPU cores; on the GPU,
  // several grades' correctness tests at once, and every timed case alone (each grade takes the
  // per-GPU lock shared, then exclusive: cudalabs/gpu_lock.hpp, session/stages.cpp).

  progress.start(jobs.size(), outcome.kept);
  std::atomic<std::size_t> next{0};
  std::mutex outcome_mutex;
  std::exception_ptr fatal;
  std::atomic<bool> abort{false};
  const auto worker = [&] {
    for (;;) {
      if (stop || abort) return;
      const std::size_t index = next++;
      if (index >= jobs.size()) return;
      const PendingSubmission& job = jobs[index];
      const BatchSubmission& submission = job.submission;
      const auto started = std::chrono::steady_clock::now();
      SubmissionRow row;
      try {
        RunRequest run;
        run.lab = request.lab;
        run.submission = submission.path;
        GradeResult report = grade_submission(paths, run);
        const auto penalty = apply_late_policy(lab, submission, report);
        write_reports(reports_folder(request.out, submission.student_id), report);
        row = row_for(lab, submission, report, penalty);
      } catch (const config::ConfigError&) {
        std::lock_guard lock(outcome_mutex);
        if (!fatal) fatal = std::current_exception();
        abort = true;
        return;
      } catch (const UsageError&) {
        std::lock_guard lock(outcome_mutex);
        if (!fatal) fatal = std::current_exception();
        abort = true;
        return;
      } catch (const std::exception& failure) {
        row = error_row(lab, submission, failure.what(),
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      }
      row.files_hash = job.files_hash;
      row.config_hash = config_hash;
      try {
        store.save(row);
      } catch (const std::exception&) {
        std::lock_guard lock(outcome_mutex);
        if (!fatal) fatal = std::current_exception();
        abort = true;
        return;
      }
      {
        std::lock_guard lock(outcome_mutex);
        ++outcome.graded;
        if (!status::is_final(row.status)) ++outcome.not_final;
      }
      progress.finished(row);
    }
  };
  const unsigned threads =
      std::max(1u, std::min<unsigned>(request.jobs ? request.jobs : std::max(1u, std::thread::hardware_concurrency()),
                                      static_cast<unsigned>(std::max<std::size_t>(jobs.size(), 1))));
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (std::thread& thread : pool) thread.join();
  progress.end();
  if (fatal) std::rethrow_exception(fatal);
  outcome.interrupted = outcome.kept + outcome.graded < outcome.submissions;
  return outcome;
}

}  // namespace labgrade::batch
