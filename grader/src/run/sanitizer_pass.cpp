#include "run/sanitizer_pass.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalabs/result_stream.hpp"

namespace labgrade {
namespace {

constexpr double kTimeoutFactor = 20;
constexpr double kMaxTimeoutSeconds = 600;

}  // namespace

std::map<std::string, std::vector<SanitizerFinding>> run_sanitizer_pass(const HarnessInvocation& normal,
                                                                          const std::filesystem::path& sanitizer,
                                                                          const std::vector<std::string>& tests) {
  struct Run {
    std::size_t tool;
    const std::string* test;
    SanitizerFinding finding;
  };
  std::vector<Run> runs;
  for (std::size_t tool = 0; tool < kSanitizerTools.size(); ++tool) {
    for (const std::string& test : tests) runs.push_back({tool, &test, {}});
  }
  const auto run_one = [&](Run& run) {
    HarnessInvocation invocation = normal;
    invocation.env.emplace_back(cudalabs::kStudentRunnerLauncherVariable,
                                fmt::format("{}", fmt::join(sanitizer_launcher(sanitizer, kSanitizerTools[run.tool]), "\x1f")));
    invocation.test_timeout_seconds = std::min(normal.test_timeout_seconds * kTimeoutFactor,
                                               std::max(normal.test_timeout_seconds, kMaxTimeoutSeconds));
    // The CPU limit counts per process; keep it above the longer wall-clock limit.
    const auto cpu_needed = static_cast<std::uint64_t>(std::ceil(invocation.test_timeout_seconds)) * 2;
    if (invocation.limits.cpu_seconds) invocation.limits.cpu_seconds = std::max(invocation.limits.cpu_seconds, cpu_needed);
    const SuiteRun suite = run_tests(invocation, {*run.test});  // alone: its findings are its own
    run.finding = parse_sanitizer_output(kSanitizerTools[run.tool], suite.output);
    if (!run.finding.completed && !suite.outcomes.empty()) {
      run.finding.excerpt = fmt::format("the sanitizer run did not finish ({}): {}\n{}", to_string(suite.outcomes[0].status),
                                        suite.outcomes[0].message, run.finding.excerpt);
    }
  };
  // A few workers take the runs in turn; each run is its own processes, so they share nothing.
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < runs.size(); i = next++) {
      try {
        run_one(runs[i]);
      } catch (const std::exception& error) {  // never past a thread: the run is reported unfinished
        runs[i].finding.tool = kSanitizerTools[runs[i].tool];
        runs[i].finding.excerpt = fmt::format("the sanitizer run could not start: {}", error.what());
      }
    }
  };
  std::vector<std::thread> workers;
  const unsigned count = std::min<unsigned>(kSanitizerRunsAtOnce, static_cast<unsigned>(runs.size()));
  for (unsigned i = 1; i < count; ++i) workers.emplace_back(worker);
  worker();
  for (std::thread& thread : workers) thread.join();
  // In the order of the tools, as the reports list them.
  std::map<std::string, std::vector<SanitizerFinding>> findings;
  for (Run& run : runs) findings[*run.test].push_back(std::move(run.finding));
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
