#include "batch_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
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
#include "model/sanitizer_findings.hpp"
#include "report/report_outputs.hpp"
#include "results_store.hpp"
#include "stage/work_directories.hpp"

namespace labgrade::batch {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

namespace {

// Grades under way at once, per compile slot. A grade waiting for the GPU, or in its sanitizer
// pass (whose tool runs have their own machine-wide limit), holds no compile slot, so the next
// submissions compile meanwhile and reach the GPU sooner. With one grade per compile slot (as
// before), a sanitized batch of 20 on the H100's 16 cores started its last four only as the first
// passes ended: one of them hung for its test's 20 s from 57 s on, while the other grades' first
// parts were long done (2026-11-27).
constexpr unsigned kGradesUnderWayPerCompileSlot = 4;

}  // namespace

unsigned grades_under_way(unsigned compile_jobs, std::size_t submissions) {
  const std::size_t most = std::size_t{std::max(compile_jobs, 1u)} * kGradesUnderWayPerCompileSlot;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(most, submissions)));
}

fs::path database_path(const BatchRequest& request) {
  return request.database.empty() ? request.out / "results.sqlite" : request.database;
}

fs::path reports_folder(const fs::path& out, const std::string& student_id) {
  return out / "reports" / file_name_for(student_id);
}

namespace {

// Grades running correctness tests at once, whatever --jobs says: see session/counting_slots.hpp
// for the H100 figures behind it.
constexpr std::size_t kGradesTestingAtOnce = 4;
// Grades running their deferred tests at once (most likely hangs, which only spin): all of a
// usual class's, while a class of hangs cannot start more CUDA contexts than the GPU has memory for.
constexpr std::size_t kGradesRunningDeferredTestsAtOnce = 16;

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
    case RunStatus::MachineBusy: return status::kMachineBusy;
    case RunStatus::Graded: return report.build.succeeded ? status::kGraded : status::kCompileError;
    default: return status::kError;  // check-only statuses: not reachable from a grade
  }
}

// Adds the lab's late policy to the report (its points become those after the penalty) and
// returns the penalty; nullopt when none applies.
std::optional<LatePenalty> apply_late_policy(const config::LabConfig& lab, const BatchSubmission& submission,
                                             GradeResult& report) {
  if (!has_score(report)) return std::nullopt;
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
  row.detail = gradebook_detail(report, submission.student_id);
  row.points_possible = report.points_possible;
  if (has_score(report)) {
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

std::string gradebook_detail(const GradeResult& report, const std::string& student_id) {
  // The report's sentence points below itself, at the compiler's messages: the gradebook and the
  // summary have nothing below, so they say where the messages are.
  if (status_of(report) == status::kCompileError) {
    return fmt::format("the code did not compile; the compiler's messages are in reports/{}/report.txt",
                       file_name_for(student_id));
  }
  return report.status_detail;
}

std::string lab_config_hash(const CoursePaths& paths, const std::string& lab) {
  require_known_lab(paths, lab);
  const BuildRecipe recipe = load_build_recipe(paths.build_recipe(lab));
  std::vector<fs::path> files{paths.course_config(), paths.lab_config(lab), paths.build_recipe(lab)};
  for (const std::string& program : {recipe.grade_harness, recipe.student_runner, recipe.reference_runner}) {
    if (!program.empty()) files.emplace_back(program);
  }
  return hash_files(files);
}

std::string batch_config_hash(const CoursePaths& paths, const BatchRequest& request) {
  // A grade with the sanitizer pass is another grade than one without: not kept across the two.
  return lab_config_hash(paths, request.lab) + (request.sanitize ? "+sanitize" : "");
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
  if (request.sanitize && find_compute_sanitizer(load_build_recipe(paths.build_recipe(request.lab)).nvcc).empty()) {
    // Before any grade: otherwise every submission would fail alike.
    throw UsageError("--sanitize needs compute-sanitizer, found neither next to the build's nvcc nor on PATH");
  }
  const std::string config_hash = batch_config_hash(paths, request);
  std::error_code error;
  fs::create_directories(request.out, error);
  if (error) throw UsageError(fmt::format("cannot create the output folder {}: {}", request.out.string(), error.message()));
  ResultsStore store(database_path(request), request.lab);
  remove_stale_work_dirs();
  BatchOutcome outcome;
  const std::vector<PendingSubmission> jobs = pending_submissions(request, config_hash, store, progress, outcome.kept);
  outcome.submissions = jobs.size() + outcome.kept;

  // Each grade in two parts (session/grading_session.hpp). First, in parallel: staging, the rule
  // checks and compilation on the CPU cores, and the correctness tests of several grades at once
  // on the GPU (the per-GPU lock held shared). Then, one grade at a time with the GPU to itself:
  // the timed cases and the correctness tests that failed while sharing. Every first part comes
  // before any second part, so a submission that hangs in its correctness tests keeps no other
  // grade's timed cases waiting: it only runs beside other correctness tests (and, once it has
  // gone quiet, beside other hangs only: the deferred tests below).
  progress.start(jobs.size(), outcome.kept);
  std::mutex outcome_mutex;
  std::exception_ptr fatal;
  std::atomic<bool> abort{false};
  const auto fail_batch = [&] {
    std::lock_guard lock(outcome_mutex);
    if (!fatal) fatal = std::current_exception();
    abort = true;
  };
  // Saves one finished grade (or the error that ended it). False when the batch must stop.
  const auto record = [&](const PendingSubmission& job, const GradeResult* report, const std::string& error,
                          double seconds) {
    const BatchSubmission& submission = job.submission;
    SubmissionRow row;
    try {
      if (report) {
        GradeResult late = *report;
        const auto penalty = apply_late_policy(lab, submission, late);
        write_reports(reports_folder(request.out, submission.student_id), late);
        row = row_for(lab, submission, late, penalty);
      } else {
        row = error_row(lab, submission, error, seconds);
      }
      row.files_hash = job.files_hash;
      row.config_hash = config_hash;
      store.save(row);
    } catch (const std::exception&) {
      fail_batch();
      return false;
    }
    {
      std::lock_guard lock(outcome_mutex);
      ++outcome.graded;
      if (!status::is_final(row.status)) ++outcome.not_final;
    }
    progress.finished(row);
    return true;
  };
  // Runs `part` for `job`; a ConfigError or UsageError stops the batch (it would fail every
  // grade), any other exception is that submission's error row.
  const auto guarded = [&](const PendingSubmission& job, std::chrono::steady_clock::time_point started,
                           const auto& part) {
    try {
      part();
    } catch (const config::ConfigError&) {
      fail_batch();
    } catch (const UsageError&) {
      fail_batch();
    } catch (const std::exception& failure) {
      record(job, nullptr, failure.what(),
             std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    }
  };

  struct Waiting {
    std::size_t index;
    std::chrono::steady_clock::time_point started;
    GradeInProgress grade;
    bool failed = false;  // its deferred tests threw: recorded as an error already
  };
  std::vector<Waiting> waiting;
  CountingSlots gpu_slots(kGradesTestingAtOnce);
  const unsigned compile_jobs = request.jobs ? request.jobs : std::max(1u, std::thread::hardware_concurrency());
  CountingSlots compile_slots(compile_jobs);
  std::atomic<std::size_t> next{0};
  const auto first_parts = [&] {
    for (;;) {
      if (stop || abort) return;
      const std::size_t index = next++;
      if (index >= jobs.size()) return;
      const PendingSubmission& job = jobs[index];
      const auto started = std::chrono::steady_clock::now();
      guarded(job, started, [&] {
        RunRequest run;
        run.lab = request.lab;
        run.submission = job.submission.path;
        run.work_dir = make_work_dir(request.lab);
        run.sanitize = request.sanitize;
        run.gpu_slots = &gpu_slots;
        run.compile_slots = &compile_slots;
        GradeInProgress grade = [&] {
          try {
            return begin_grade(paths, run);
          } catch (...) {
            std::error_code ignored;
            fs::remove_all(run.work_dir, ignored);  // the grade never took it over
            throw;
          }
        }();
        if (grade.needs_gpu_alone()) {
          std::lock_guard lock(outcome_mutex);
          waiting.push_back({index, started, std::move(grade)});
        } else {
          const GradeResult report = finish_grade(std::move(grade));  // ended already: nothing runs
          record(job, &report, "", 0);
        }
      });
    }
  };
  const unsigned threads = grades_under_way(compile_jobs, jobs.size());
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(first_parts);
  for (std::thread& thread : pool) thread.join();

  // The tests first parts left for later (a harness gone quiet beside the others, most likely a
  // hang: session/stages.cpp), every such grade at once: their hangs spin out their time-outs
  // beside each other, no longer beside the other grades' correctness tests, and still before
  // any timed case.
  // Each run's time-out is stretched so that a slow test that would pass keeps the GPU share its
  // first part gave it, however many hangs spin beside it (deferred_timeout_stretch).
  const auto deferring = static_cast<std::size_t>(
      std::count_if(waiting.begin(), waiting.end(), [](const Waiting& grade) { return grade.grade.has_deferred_tests(); }));
  const double timeout_stretch =
      deferred_timeout_stretch(std::min(deferring, kGradesRunningDeferredTestsAtOnce), kGradesTestingAtOnce);
  std::vector<std::thread> deferred;
  CountingSlots deferred_slots(kGradesRunningDeferredTestsAtOnce);
  for (Waiting& grade : waiting) {
    if (stop || abort || !grade.grade.has_deferred_tests()) continue;
    deferred.emplace_back([&guarded, &jobs, &grade, &deferred_slots, timeout_stretch] {
      const CountingSlots::Slot slot(deferred_slots);
      bool done = false;
      guarded(jobs[grade.index], grade.started, [&] {
        grade.grade.run_deferred_tests(timeout_stretch);
        done = true;
      });
      grade.failed = !done;
    });
  }
  for (std::thread& thread : deferred) thread.join();

  // The second parts, in the order the submissions were listed.
  std::sort(waiting.begin(), waiting.end(), [](const Waiting& a, const Waiting& b) { return a.index < b.index; });
  for (Waiting& grade : waiting) {
    if (stop || abort) break;
    if (grade.failed) continue;
    const PendingSubmission& job = jobs[grade.index];
    guarded(job, grade.started, [&] {
      const GradeResult report = finish_grade(std::move(grade.grade));
      record(job, &report, "", 0);
    });
  }
  progress.end();
  if (fatal) std::rethrow_exception(fatal);
  outcome.interrupted = outcome.kept + outcome.graded < outcome.submissions;
  return outcome;
}

}  // namespace labgrade::batch
