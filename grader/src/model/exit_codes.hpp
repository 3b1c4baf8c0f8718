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
  MachineBusy = 10,        // (grade only) a timed case could not be measured fairly: no grade, grade again
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
  // The line in the student release's help, which has check and submit but no grade ("": none).
  std::string_view student_meaning = {};
};

inline constexpr ExitCodeEntry kExitCodeTable[] = {
    {0, "graded", "grade: the submission was graded (whatever the score); check: every public test passed",
     "check: every public test passed; submit: the archive was written"},
    {1, "tests_failed", "check: some public test failed", "check: some public test failed"},
    {kUsageExitCode, "", "bad arguments or unknown lab", "bad arguments or unknown lab"},
    {3, "configuration_error", "configuration error: a YAML file is invalid or disagrees with the test suite",
     "configuration error: a YAML file of the release is invalid (tell your instructor)"},
    {4, "submission_rejected",
     "the submission was rejected (a student file missing, ambiguous, too large or not text; an unsafe archive): "
     "score 0",
     "a student file is missing, ambiguous, too large or not text (a grade would refuse it too)"},
    {5, "no_cuda_device", "no CUDA device visible: the code compiled but its tests could not run, so there is no grade",
     "no CUDA device visible: the code compiled but its tests could not run"},
    {6, "build_failed",
     "check: the code did not compile (a grade of code that does not compile is a 0 with exit code 0)",
     "check: the code did not compile (a grade of it would be 0)"},
    {kInternalExitCode, "", "labgrade itself failed (build tree incomplete, I/O error)",
     "labgrade itself failed (build folder incomplete, I/O error)"},
    {8, "rule_violation",
     "the code includes or calls something the lab forbids (its YAML's or the course's forbid:): score 0",
     "the code includes or calls something the lab forbids (its handout says what): a grade of it would be 0"},
    {10, "machine_busy",
     "grade: a timed case could not be measured fairly (other work on the machine kept the grader's timed "
     "processes waiting for a CPU): no grade; grade again when the machine is quieter",
     "a grade's timed cases could not be measured fairly on a busy machine (your instructor grades again)"},
};

// "graded", "tests_failed", ...: the status in the JSON, JUnit and HTML reports.
std::string_view run_status_name(RunStatus status);

// The "Exit codes:" block of `labgrade --help`.
std::string exit_codes_help();

}  // namespace labgrade
