#pragma once
// The sanitizer pass of `labgrade grade|check --sanitize` (or of a lab whose YAML says
// `sanitizer: {required: true}`): the correctness tests run again, once per tool, with their
// student runner (and nothing else: not the judge's generators and comparisons, not the
// reference) under compute-sanitizer. The judge starts a fresh student runner for every test and
// the tool writes its report to a file named after the test, so every finding belongs to exactly
// one test; the tests of each tool are dealt into shards (one harness process each) that run
// side by side, sanitizer_runs_at_once() in all.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/grade_result.hpp"
#include "run/suite_runner.hpp"

namespace labgrade {

inline const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck"};
// How many sanitizer runs go side by side: CUDALABS_SANITIZER_JOBS (a positive integer; anything
// else is an error naming the variable), else one per four hardware threads, between 1 and
// kDefaultMaxSanitizerRuns. The runs are untimed; each costs mostly the tool's start-up and
// instrumentation on the host's cores (lab 05's solution on 16 threads, H200: 34 s at 4 runs,
// 36-38 s at 8, 52 s at 12), and holds three small CUDA contexts.
inline constexpr unsigned kDefaultMaxSanitizerRuns = 8;
unsigned sanitizer_runs_at_once();

// Where the student's code runs, so where the tool goes.
enum class StudentCode {
  in_runners,     // a grade: the judge starts its student runners through the tool
  in_the_harness  // a self-check: the student's code is linked into the harness, which runs under
                  // the tool, each test alone (its output is that test's report)
};

// Findings by test, one per tool. `normal` is the invocation of the normal run: its timeout is
// multiplied (sanitizers run 10-100x slower).
std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests,
                                                                          StudentCode where);

// Attaches the findings to `tests`. With `required`, a test with a sanitizer error earns 0 and
// fails with the finding as its reason; otherwise the findings are only reported. A run that did
// not finish (timed out under the sanitizer) is reported but never costs points.
void apply_sanitizer_findings(std::vector<ScoredTest>& tests,
                              const std::map<std::string, std::vector<SanitizerFinding>>& findings, bool required);

}  // namespace labgrade
