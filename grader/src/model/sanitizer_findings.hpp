#pragma once
// What compute-sanitizer (memcheck, racecheck) found while one test ran alone under it.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade {

struct SanitizerFinding {
  std::string tool;        // "memcheck" or "racecheck"
  bool completed = false;  // the sanitizer printed its summary (not killed, timed out or failed to start)
  bool clean = false;      // completed with no error
  int errors = 0;          // from "ERROR SUMMARY: N errors" or racecheck's "(N errors, M warnings)"
  std::string excerpt;     // the first lines of the sanitizer's report, plus its summary line
  double seconds = 0;      // how long the test took under the tool (what the pass costs, test by test)
  // Why the tool did not run although its verdict is known (it cannot find anything in this
  // code: racecheck on kernels without shared memory); empty when it ran. Completed and clean.
  std::string not_needed;
};

// A tool's clean verdict without a run, and why none was needed.
SanitizerFinding not_needed_finding(const std::string& tool, const std::string& why);

// Exit code the sanitizer returns when it found errors: distinct from the harness's 86 (context lost).
inline constexpr int kSanitizerErrorExitCode = 99;

// Reads the "========= "-prefixed lines of compute-sanitizer's output (stdout and stderr mixed
// with the harness's own); host backtrace frames are left out of the excerpt.
SanitizerFinding parse_sanitizer_output(const std::string& tool, const std::string& output);

// "memcheck: 3 errors" / "racecheck: clean" / "memcheck: did not finish", for tables and reasons.
std::string summarize(const SanitizerFinding& finding);

// compute-sanitizer next to the recipe's nvcc (bin/, or the toolkit's compute-sanitizer/ folder),
// else on PATH; empty when none is found.
std::filesystem::path find_compute_sanitizer(const std::string& nvcc);

// The command prefix that runs a harness under `tool`.
std::vector<std::string> sanitizer_launcher(const std::filesystem::path& sanitizer, const std::string& tool);

}  // namespace labgrade
