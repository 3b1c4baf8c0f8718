#pragma once
// Everything one labgrade run found out, in the form the report writers print.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cudalabs/course/lab_config.hpp"
#include "model/exit_codes.hpp"
#include "model/performance_result.hpp"
#include "model/profile_result.hpp"
#include "model/sanitizer_findings.hpp"

namespace labgrade {

enum class TestStatus { Passed, Failed, Skipped, Crashed, TimedOut, NotRun };
std::string_view to_string(TestStatus status);

struct TestOutcome {
  std::string name;
  TestStatus status = TestStatus::NotRun;
  std::string message;  // failure details, crash reason, skip reason
  double seconds = 0;
  // Another process on the same GPU or host could explain this outcome (memory it held: out of
  // device memory, a leak seen in the device's free memory, the kernel's OOM killer; or the test
  // never ran), so a grade that shared the GPU runs the test again alone. Not wrong values or a
  // broken context: processes do not share memory or contexts.
  bool neighbour_may_have_caused = false;
};

struct ScoredTest {
  std::string name;
  cudalabs::config::Visibility visibility = cudalabs::config::Visibility::Hidden;
  double points_possible = 0;
  double points_earned = 0;
  TestOutcome outcome;
  std::optional<PerformanceResult> performance;  // a performance case that was measured
  std::vector<SanitizerFinding> sanitizer;       // one per tool when the sanitizer pass ran this test
  bool preview = false;  // a timing preview (self-check only): worth nothing, reported apart from the points
};

// A construct in student code that only in-process memory-patching tricks need; listed for the
// instructor to review, never scored (review_scan.hpp).
struct ReviewNote {
  std::string construct;  // "raw system call (syscall)"
  std::string where;      // "vector_add.cu:12"
  std::string why;        // why it deserves a look
};

// One kernel of the student's code as the compiler built it (build/kernel_resources.hpp).
struct KernelResources {
  std::string name;     // as written: "tiled_kernel<64u, 8u>"
  std::string mangled;  // the symbol
  std::string arch;     // "sm_90"
  int registers = 0;    // per thread
  int barriers = 0;
  long shared_bytes = 0;       // static shared memory per block (dynamic shared memory is the launch's)
  long stack_bytes = 0;        // per thread
  long spill_store_bytes = 0;  // registers spilled to local memory
  long spill_load_bytes = 0;
};

struct BuildSummary {
  bool attempted = false;
  bool succeeded = false;
  std::string command;
  std::string output;  // compiler messages
  double seconds = 0;
  std::vector<std::string> object_files;  // the student's compiled objects (what their code calls)
  std::vector<KernelResources> kernels;   // each kernel's registers, shared memory and spills
  std::vector<std::string> unmet_requirements;  // the lab's `kernels:` not met (not scored)
  // Whether the student's kernels may touch shared memory, from the PTX of each .cu
  // (build/shared_memory_use.hpp): a sanitizer pass leaves racecheck out when they cannot.
  // The evidence: where they do, or why it is not known; empty when they cannot.
  bool may_use_shared_memory = true;
  std::string shared_memory_evidence;
};

// A late submission's penalty, from the lab's `late:` policy (batch grades only: they know when
// each submission was made). The result's points_earned are those after the penalty.
struct LatePenaltyNote {
  std::string submitted_at;  // ISO 8601, UTC
  std::string due;
  std::int64_t days_late = 0;  // 0: on time
  double penalty_percent = 0;
  double penalty_points = 0;
  double points_before = 0;
};

struct GradeResult {
  std::string mode;  // "grade" or "check"
  std::string lab;
  std::string title;
  std::string submission;
  std::string device;  // GPU name the harness reported, if any
  RunStatus status = RunStatus::Graded;
  std::string status_detail;  // one sentence for the reader: why the score is what it is
  std::vector<std::string> staged_files;
  std::vector<std::string> ignored_files;
  std::size_t ignored_not_listed = 0;
  std::vector<std::string> rule_violations;  // one line per broken `forbid:` rule (RuleViolation)
  std::vector<ReviewNote> review;            // for the instructor to review, not scored
  // Protections of the test process this kernel does not enforce ("what (how): why"); empty when all are.
  std::vector<std::string> unenforced_protections;
  BuildSummary build;
  std::vector<ScoredTest> tests;
  double points_earned = 0;
  double points_possible = 0;
  double stage_seconds = 0;
  double test_seconds = 0;      // the test phase, not counting gpu_wait_seconds
  double gpu_wait_seconds = 0;  // waiting for another grade to give the GPU back
  // Correctness tests that failed while the GPU was shared and ran again alone (their second
  // outcome is the one reported; see session/stages.cpp).
  int tests_rerun_alone = 0;
  // How the correctness tests shared the GPU and what the leak check counted then (set by
  // session/stages.cpp; "" when no test ran), e.g. "shared correctness, exclusive timing".
  std::string gpu_sharing;
  double total_seconds = 0;
  // Each pipeline stage that ran, in order: when it started (Unix time, so a batch's grades line
  // up) and its seconds, a wait for a batch's compile or GPU slot included.
  struct StageTime {
    std::string stage;  // "build", "correctness tests", ...
    double started_at = 0;
    double seconds = 0;
  };
  std::vector<StageTime> stage_times;
  std::optional<LatePenaltyNote> late;  // set by `labgrade batch` when the lab has a late policy
  // Set when the profile pass was asked for (--profile, or the lab's `profile:`), whether or not
  // it could run (ProfileReport::unavailable says why not).
  std::optional<ProfileReport> profile;
};

// Whether the run has a score at all: not when no test could run for a reason that is not the
// submission's (no CUDA device, a broken course configuration), nor when a timed case's figures
// were the machine's load rather than the code's (machine_busy: grade again). Reports show no points then,
// rather than a 0 the student did not earn. A compile error or a broken rule is a score (0).
inline bool has_score(const GradeResult& report) {
  return report.status != RunStatus::NoCudaDevice && report.status != RunStatus::ConfigurationError &&
         report.status != RunStatus::MachineBusy;
}

}  // namespace labgrade
