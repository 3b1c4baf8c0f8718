#pragma once
// labgrade's exit codes: the one table that `labgrade --help`, the reports' status names and the
// code main() returns are all drawn from (README.md repeats it for readers).
#include <stdexcept>
#include <string>
#include <string_view>

namespace labgrade {

// Why the grade is what it is, beyond the individual tests. Each value is the run's exit code.
enum class RunStatus {
  Graded = 0,              // tests ran; the score stands
  TestsFailed = 1,         // (check only) some public test did not pass
  ConfigurationError = 3,  // the lab's YAML is invalid or disagrees with the suite
  SubmissionRejected = 4,  // a student file is missing, ambiguous or too large: score 0
  NoCudaDevice = 5,        // the code built but no GPU is visible: tests skipped, no grade
  BuildFailed = 6,         // (check only; a grade of code that does not compile is Graded with 0)
  RuleViolation = 8,       // the code includes or calls something the lab's `forbid:` rules name: score 0
};

// A mistake in how labgrade was called (unknown lab, bad directory, unwritable report path).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ends that are not a run's status: labgrade stopped before or outside grading.
inline constexpr int kUsageExitCode = 2;  // UsageError
inline constexpr int kConfigExitCode = static_cast<int>(RunStatus::ConfigurationError);
inline constexpr int kInternalExitCode = 7;

struct ExitCodeEntry {
  int code;
  std::string_view name;     // the status as reports name it ("" for ends that produce no report)
  std::string_view meaning;  // one line of `labgrade --help`
};

inline constexpr ExitCodeEntry kExitCodeTable[] = {
    {0, "graded", "grade: the submission was graded (whatever the score); check: every public test passed"},
    {1, "tests_failed", "check: some public test failed"},
    {kUsageExitCode, "", "bad arguments or unknown lab"},
    {3, "configuration_error", "configuration error: a YAML file is invalid or disagrees with the test suite"},
    {4, "submission_rejected",
     "the submission was rejected (a student file missing, ambiguous, too large or not text; an unsafe archive): "
     "score 0"},
    {5, "no_cuda_device", "no CUDA device visible: the code compiled but its tests could not run, so there is no grade"},
    {6, "build_failed",
     "check: the code did not compile (a grade of code that does not compile is a 0 with exit code 0)"},
    {kInternalExitCode, "", "labgrade itself failed (build tree incomplete, I/O error)"},
    {8, "rule_violation",
     "the code includes or calls something the lab forbids (its YAML's or the course's forbid:): score 0"},
};

// "graded", "tests_failed", ...: the status in the JSON, JUnit and HTML reports.
std::string_view run_status_name(RunStatus status);

// The "Exit codes:" block of `labgrade --help`.
std::string exit_codes_help();

}  // namespace labgrade
