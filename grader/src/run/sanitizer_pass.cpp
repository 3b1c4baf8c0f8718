#include "run/sanitizer_pass.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace labgrade {
namespace {

constexpr double kTimeoutFactor = 20;
constexpr double kMaxTimeoutSeconds = 600;

}  // namespace

std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests) {
  std::map<std::string, std::vector<SanitizerFinding>> findings;
  for (const std::string& tool : kSanitizerTools) {
    HarnessInvocation invocation = normal;
    invocation.launcher = sanitizer_launcher(sanitizer, tool);
    invocation.test_timeout_seconds = std::min(normal.test_timeout_seconds * kTimeoutFactor,
                                               std::max(normal.test_timeout_seconds, kMaxTimeoutSeconds));
    // The CPU limit counts per process; keep it above the longer wall-clock limit.
    const auto cpu_needed = static_cast<std::uint64_t>(std::ceil(invocation.test_timeout_seconds)) * 2;
    if (invocation.limits.cpu_seconds) invocation.limits.cpu_seconds = std::max(invocation.limits.cpu_seconds, cpu_needed);
    for (const std::string& test : tests) {
      const SuiteRun run = run_tests(invocation, {test});  // alone: its findings are its own
      SanitizerFinding finding = parse_sanitizer_output(tool, run.output);
      if (!finding.completed && !run.outcomes.empty()) {
        finding.excerpt = fmt::format("the sanitizer run did not finish ({}): {}\n{}", to_string(run.outcomes[0].status),
                                      run.outcomes[0].message, finding.excerpt);
      }
      findings[test].push_back(std::move(finding));
    }
  }
  return findings;
}

void apply_sanitizer_findings(std::vector<ScoredTest>& tests,
                              const std::map<std::string, std::vector<SanitizerFinding>>& findings, bool required) {
  for (ScoredTest& test : tests) {
    const auto found = findings.find(test.name);
    if (found == findings.end()) continue;
    test.sanitizer = found->second;
    if (!required) continue;
    for (const SanitizerFinding& finding : test.sanitizer) {
      if (!finding.completed || finding.clean) continue;
      const std::string was = test.outcome.status == TestStatus::Passed ? "passed, but " : "";
      test.points_earned = 0;
      test.outcome.status = TestStatus::Failed;
      test.outcome.message = fmt::format("{}compute-sanitizer {} (this lab requires a clean run):\n{}{}", was,
                                         summarize(finding), finding.excerpt,
                                         test.outcome.message.empty() ? "" : "\n" + test.outcome.message);
    }
  }
}

}  // namespace labgrade
