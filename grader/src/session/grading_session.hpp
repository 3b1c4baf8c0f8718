#pragma once
// One labgrade run from start to report: load the YAML, stage, build, run, score.
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/grade_result.hpp"
#include "session/counting_slots.hpp"

namespace labgrade {

struct CoursePaths {
  std::filesystem::path root;       // the course tree: config/, labs/, ...
  std::filesystem::path build_dir;  // the CMake build tree holding the harnesses and recipes

  std::filesystem::path course_config() const { return root / "config" / "course.yaml"; }
  std::filesystem::path lab_config(const std::string& lab) const { return root / "config" / "labs" / (lab + ".yaml"); }
  std::filesystem::path lab_dir(const std::string& lab) const { return root / "labs" / lab; }
  std::filesystem::path build_recipe(const std::string& lab) const {
    return build_dir / "cudalabs" / "labs" / (lab + ".json");
  }
  std::vector<std::string> lab_ids() const;  // sorted ids of config/labs/*.yaml
};

struct RunRequest {
  std::string lab;
  std::filesystem::path submission;  // grade: the submission; check: defaults to labs/<lab>
  std::filesystem::path work_dir;    // empty: a fresh directory under the system temp dir
  bool keep_work_dir = false;
  bool sanitize = false;  // also run the correctness tests under compute-sanitizer (see sanitizer_pass.hpp)
  bool profile = false;   // also run the timed cases under Nsight Compute (see profile_pass.hpp)
  // A batch's limits (counting_slots.hpp) on grades running correctness tests at once, and on
  // grades compiling (or reading their compiled code) at once; null: none.
  CountingSlots* gpu_slots = nullptr;
  CountingSlots* compile_slots = nullptr;
};

// Both throw cudalabs::config::ConfigError for invalid YAML, UsageError for a bad request and
// std::runtime_error when the build tree is incomplete; everything about the submission itself
// ends up in the report.
GradeResult grade_submission(const CoursePaths& paths, const RunRequest& request);
GradeResult self_check(const CoursePaths& paths, const RunRequest& request);

// A grade in two parts, for `labgrade batch`. begin_grade stages, checks and builds the
// submission and runs its correctness tests, sharing the GPU with other grades' correctness
// tests; finish_grade runs, with the GPU to itself, the timed cases and every correctness test
// that failed while sharing, then scores. grade_submission is the two back to back. A batch runs
// every grade's first part (in parallel) before any second part, so a submission that hangs in
// its correctness tests holds up only its own grade, never another grade's timed cases. The
// work directory lives until finish_grade. Both throw as grade_submission does.
class GradeInProgress {
 public:
  GradeInProgress();
  GradeInProgress(GradeInProgress&&) noexcept;
  GradeInProgress& operator=(GradeInProgress&&) noexcept;
  ~GradeInProgress();
  // False when the first part already ended the run (it did not compile, broke a rule...).
  bool needs_gpu_alone() const;
  // Tests the first part left for later: its harness went quiet beside other grades' tests and
  // was ended (a likely hang). run_deferred_tests runs them, the GPU shared, their time-out
  // stretched by `timeout_stretch` (counting_slots.hpp, deferred_timeout_stretch); a batch does so
  // for every such grade at once, after every first part. finish_grade runs any still left first.
  bool has_deferred_tests() const;
  void run_deferred_tests(double timeout_stretch);

  struct Parts;  // the session and its work directory (grading_session.cpp)

 private:
  // The first part of a grade (graded) or of a self-check.
  static GradeInProgress begin(const CoursePaths& paths, const RunRequest& request, bool graded);
  friend GradeInProgress begin_grade(const CoursePaths& paths, const RunRequest& request);
  friend GradeResult finish_grade(GradeInProgress&& grade);
  friend GradeResult grade_submission(const CoursePaths& paths, const RunRequest& request);
  friend GradeResult self_check(const CoursePaths& paths, const RunRequest& request);
  std::unique_ptr<Parts> parts_;
};
GradeInProgress begin_grade(const CoursePaths& paths, const RunRequest& request);
GradeResult finish_grade(GradeInProgress&& grade);

}  // namespace labgrade
