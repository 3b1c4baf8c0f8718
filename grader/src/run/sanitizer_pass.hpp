#pragma once
// The sanitizer pass of `labgrade grade|check --sanitize` (or of a lab whose YAML says
// `sanitizer: {required: true}`): each correctness test runs alone under compute-sanitizer, once
// per tool, so every finding belongs to exactly one test.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/grade_result.hpp"
#include "run/suite_runner.hpp"

namespace labgrade {

inline const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck"};

// Findings by test, one per tool. `normal` is the invocation of the normal run: its timeout is
// multiplied (sanitizers run 10-100x slower) and the harness is started by `sanitizer`.
std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests);

// Attaches the findings to `tests`. With `required`, a test with a sanitizer error earns 0 and
// fails with the finding as its reason; otherwise the findings are only reported. A run that did
// not finish (timed out under the sanitizer) is reported but never costs points.
void apply_sanitizer_findings(std::vector<ScoredTest>& tests,
                              const std::map<std::string, std::vector<SanitizerFinding>>& findings, bool required);

}  // namespace labgrade
