#pragma once
// The sanitizer pass of `labgrade grade|check --sanitize` (or of a lab whose YAML says
// `sanitizer: {required: true}`): each correctness test runs alone, once per tool, its student
// runner (and nothing else: not the judge's generators and comparisons, not the reference) under
// compute-sanitizer, so every finding belongs to exactly one test and only student kernels are
// instrumented. Up to kSanitizerRunsAtOnce such runs go side by side.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/grade_result.hpp"
#include "run/suite_runner.hpp"

namespace labgrade {

inline const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck"};
// Runs at once: the tests are untimed and each holds four small CUDA contexts; more gains little
// once the host's cores are busy instrumenting.
inline constexpr unsigned kSanitizerRunsAtOnce = 4;

// Findings by test, one per tool. `normal` is the invocation of the normal run: its timeout is
// multiplied (sanitizers run 10-100x slower) and the judge starts its student runner through
// `sanitizer`.
std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests);

// Attaches the findings to `tests`. With `required`, a test with a sanitizer error earns 0 and
// fails with the finding as its reason; otherwise the findings are only reported. A run that did
// not finish (timed out under the sanitizer) is reported but never costs points.
void apply_sanitizer_findings(std::vector<ScoredTest>& tests,
                              const std::map<std::string, std::vector<SanitizerFinding>>& findings, bool required);

}  // namespace labgrade
