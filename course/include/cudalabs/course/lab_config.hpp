// config/labs/<id>.yaml: what a lab grades (its tests and their points) and what a student submits.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/performance.hpp"
#include "cudalabs/course/profile_spec.hpp"

namespace cudalabs::config {

enum class Visibility { Public, Hidden };
std::string_view to_string(Visibility visibility);  // "public" / "hidden", as written in the YAML

// The one visibility filter: a grade covers every test, a self-check (`only_public`) only the
// public ones; hidden tests stay out of what students run.
inline bool covered(Visibility visibility, bool only_public) {
  return !only_public || visibility == Visibility::Public;
}

// Whether a run times a performance case: covered, and a timing preview only in a self-check (a
// grade times the hidden case it previews, and a preview is worth nothing).
inline bool covered(const PerformanceSpec& spec, bool only_public) {
  return covered(spec.visibility, only_public) && (!spec.preview || only_public);
}

struct Tolerance {
  double abs = 0;
  double rel = 0;
};

struct TestSpec {
  std::string name;  // GoogleTest "Suite.Test"
  double points = 0;
  Visibility visibility = Visibility::Public;
  int line = 0;  // 1-based line of the entry, for diagnostics
};

// `sanitizer:`: whether compute-sanitizer findings (memcheck, racecheck) cost a test its points.
struct SanitizerPolicy {
  bool required = false;  // a grade always runs the sanitizer pass; a finding scores the test 0
  // `skip:` tests the pass leaves out: those at the timed size, whose kernels the smaller tests
  // already run under the tool (racecheck takes 80 s over a 4096^3 tiled matmul). Each names a
  // test of `tests:`.
  std::vector<std::string> skip;
  int skip_line = 0;  // 1-based line of `skip:`, for diagnostics
};

// `kernels:`: what a named kernel of the student's code must use, checked on what the compiler
// reports (registers, shared memory, spills); a kernel that misses it is named in the report
// with `why`, for the student and the instructor (not scored).
inline const std::vector<std::string> kKernelUses = {"shared_memory", "no_spills"};
struct KernelRequirement {
  std::string kernel;  // the name as written, without template arguments: "transpose_coalesced_kernel"
  std::string uses;    // one of kKernelUses
  std::string why;     // e.g. "stage the tile in shared memory (handout, step 2)"
};

// `reference_targets:`: what the reference solution must reach on the course's GPU, measured by
// bench/labs/<lab>_bench.cu against a baseline in the same run. Handouts and benches cite these;
// they are the course's bar for the solution, not a threshold for students.
struct ReferenceTarget {
  std::string name;      // `case`: the kernel or case measured, e.g. "sobel"
  std::string baseline;  // one of kReferenceBaselines
  double at_least = 0;   // the reference's throughput as a fraction of the baseline's
};
// copy_bandwidth: a device-to-device cudaMemcpy of the same bytes (read + written); cub, cublas:
// the library's routine for the same problem; slowest_stage: the slowest stage of a pipeline, run
// alone over the same data (a throughput of 1 / its time); naive_kernel: the lab's naive fixture
// (one thread per candidate or output, no technique), where no library solves the problem.
inline const std::vector<std::string> kReferenceBaselines{"copy_bandwidth", "cub", "cublas", "slowest_stage",
                                                          "naive_kernel"};
// `late:`: how a submission after the deadline is marked down (applied by `labgrade batch`, which
// knows when each submission was made). Late days are counted in whole days started after `due`;
// a submission within the grace period after `due` is on time.
struct LatePolicy {
  std::int64_t due = 0;  // Unix seconds
  double grace_minutes = 0;
  double penalty_percent_per_day = 0;  // of the points earned
  double max_penalty_percent = 100;    // the cap on the total penalty
  int line = 0;                        // 1-based line of `due`, for diagnostics
};

// `service:`: how `labgrade serve` takes this lab's submissions, per student. A self-check runs
// the public tests (and the timing preview); a graded run is a grade, counted against
// graded_runs_max. Runs that end without a grade (no GPU, labgrade's own failure) do not count.
struct ServicePolicy {
  bool self_checks = true;
  std::optional<std::uint64_t> self_checks_per_hour;  // nullopt: only the service's own rate limit
  bool graded_runs = true;
  std::optional<std::uint64_t> graded_runs_max;       // nullopt: unlimited
};

struct LabConfig {
  std::string source_path;
  std::string id;  // `lab`: equals the file's stem
  std::string title;
  double total_points = 0;
  std::vector<std::string> student_files;  // plain file names (.cu, .cuh, .h, .hpp, .cpp)
  std::optional<double> test_timeout_seconds;  // overrides the course default when set
  std::optional<double> host_memory_gib;       // overrides course.yaml defaults.host_memory_gib when set
  TimingOverrides timing;                      // `timing:`; optional, each key overrides course.yaml's
  int timing_line = 0;                         // 1-based line of the `timing:` key; 0 when absent
  std::map<std::string, Tolerance> tolerances;
  std::vector<TestSpec> tests;
  int tests_line = 0;  // 1-based line of the `tests:` key, for diagnostics about the list as a whole
  std::vector<PerformanceSpec> performance;  // timed cases; their points count towards total_points
  int performance_line = 0;  // 1-based line of the `performance:` key; 0 when absent
  ForbidRules forbid;        // `forbid:`, added to the course's (see forbid_rules.hpp)
  ForbidRules allow;         // `allow:`, course-wide rules this lab lifts (exact patterns)
  SanitizerPolicy sanitizer;  // `sanitizer:`; optional
  std::vector<KernelRequirement> kernels;  // `kernels:`; optional
  ProfileSpec profile;                     // `profile:`; optional (profile_spec.hpp)
  std::vector<ReferenceTarget> reference_targets;  // `reference_targets:`; optional
  std::optional<LatePolicy> late;  // `late:`; optional
  ServicePolicy service;           // `service:`; optional (everything allowed)
  // `withheld_points`: only in a student release's copy (`labgrade release`), which keeps the
  // public entries alone; the points of the hidden ones, so that the public points plus these
  // still add up to total_points. A file that has it may list no hidden entry.
  std::optional<double> withheld_points;

  const TestSpec* find_test(std::string_view name) const;  // nullptr when absent
  // The performance case whose suite test is `test_name` ("Performance.<name>"); nullptr when none.
  const PerformanceSpec* find_performance_test(std::string_view test_name) const;
  double timeout_for_tests(const CourseConfig& course) const;

  // What a run covers (see covered()): the correctness tests' names, the performance cases'
  // test names, both in YAML order, and the points they are worth together.
  std::vector<std::string> test_names(bool only_public) const;
  std::vector<std::string> performance_test_names(bool only_public) const;
  double points_possible(bool only_public) const;
  // How this lab's cases are timed: course.yaml's `timing:` with this lab's keys in place of the
  // course's. Throws ConfigError (naming this file's `timing:`) when the two together make no
  // sense: a maximum of rounds below the minimum.
  TimingSettings timing_settings(const CourseConfig& course) const;
  // The course's limits for test processes, with this lab's host memory when it sets one.
  ResourceLimits test_limits(const CourseConfig& course) const;
};

// Throws ConfigError listing every problem in the file.
LabConfig load_lab_config(const std::filesystem::path& file);

// Compares the lab's tests and performance cases with the names a GoogleTest binary reports (--gtest_list_tests).
// Returns one diagnostic per mismatch; empty means consistent. With `only_public`, the suite is
// the public self-check one: only the lab's public tests are compared with it.
std::vector<Diagnostic> check_against_suite(const LabConfig& lab,
                                            const std::vector<std::string>& suite_tests,
                                            bool only_public);

}  // namespace cudalabs::config
