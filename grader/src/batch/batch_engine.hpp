#pragma once
// Grades every submission of a folder with one lab, in parallel, into the results database and a
// reports folder per student. A submission that cannot be graded (won't unpack, won't compile,
// crashes, hangs) is recorded with its status and never stops the batch; a problem of the
// course itself (invalid YAML, an incomplete build tree) does, because it would fail them all.
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "batch_progress.hpp"
#include "session/grading_session.hpp"
#include "results_store.hpp"
#include "submission_inventory.hpp"

namespace labgrade::batch {

struct BatchRequest {
  std::string lab;
  std::filesystem::path submissions;  // the folder of submissions
  std::filesystem::path out;          // reports/<student>/, and results.sqlite unless `database` is set
  std::filesystem::path database;     // empty: out/results.sqlite
  unsigned jobs = 0;                  // grades compiling at once; 0: one per CPU core
  bool regrade = false;               // grade even what the database already holds for the same files
  bool sanitize = false;              // every grade with its sanitizer pass (a grade made without it is not final)
  std::vector<std::string> only_students;  // grade only these ids (a Slurm task's chunk); empty: all
};

struct BatchOutcome {
  std::size_t submissions = 0;  // in the folder (or in only_students)
  std::size_t kept = 0;         // unchanged since a final grade: not graded again
  std::size_t graded = 0;       // graded by this run
  std::size_t not_final = 0;    // graded by this run without a final result (no GPU, labgrade error)
  bool interrupted = false;     // `stop` was raised before every submission was graded
};

// How many grades a batch has under way at once with `compile_jobs` compiling at once (a grade
// waiting for the GPU or in its sanitizer pass holds no compile slot): four per compile slot, at
// most one per submission, at least one.
unsigned grades_under_way(unsigned compile_jobs, std::size_t submissions);

std::filesystem::path database_path(const BatchRequest& request);
std::filesystem::path reports_folder(const std::filesystem::path& out, const std::string& student_id);

// A grade's one sentence for gradebook.csv's `detail` and the summary page: the report's, except
// that a compile error names the report that holds the compiler's messages.
std::string gradebook_detail(const GradeResult& report, const std::string& student_id);

// The fingerprint of how `lab` is graded: its YAML, the course's, its build recipe and its
// prebuilt hidden-suite harness. Throws UsageError for an unknown lab.
std::string lab_config_hash(const CoursePaths& paths, const std::string& lab);
// lab_config_hash, marked when the batch runs the sanitizer pass: what a kept grade must match.
std::string batch_config_hash(const CoursePaths& paths, const BatchRequest& request);

// What a submission is, for the results database: its files and its submission time (which
// decides the late penalty). "unreadable" when its files cannot be read (staging says why).
std::string submission_hash(const BatchSubmission& submission);

struct PendingSubmission {
  BatchSubmission submission;
  std::string files_hash;
};

// The submissions of the folder (only `request.only_students`, when given) that `store` holds no
// final result for with these hashes; all of them with `request.regrade`. `kept` gets how many
// were left out. Notes ignored entries on `progress`.
std::vector<PendingSubmission> pending_submissions(const BatchRequest& request, const std::string& config_hash,
                                                   const ResultsStore& store, BatchProgress& progress,
                                                   std::size_t& kept);

// Throws cudalabs::config::ConfigError, UsageError or std::runtime_error for problems of the
// course, the request or the output folder. `stop`, when raised (Ctrl-C), lets the grades under
// way finish and starts no more.
BatchOutcome run_batch(const CoursePaths& paths, const BatchRequest& request, BatchProgress& progress,
                       const std::atomic<bool>& stop);

}  // namespace labgrade::batch
