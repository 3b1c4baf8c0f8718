#include "scoring.hpp"

#include <algorithm>

namespace labgrade {

std::string_view to_string(TestStatus status) {
  switch (status) {
    case TestStatus::Passed: return "passed";
    case TestStatus::Failed: return "failed";
    case TestStatus::Skipped: return "skipped";
    case TestStatus::Crashed: return "crashed";
    case TestStatus::TimedOut: return "timed out";
    case TestStatus::NotRun: return "not run";
  }
  return "unknown";
}

namespace {

bool counted(const cudalabs::config::TestSpec& spec, bool only_public) {
  return !only_public || spec.visibility == cudalabs::config::Visibility::Public;
}

ScoredTest scored(const cudalabs::config::TestSpec& spec, TestOutcome outcome) {
  ScoredTest test;
  test.name = spec.name;
  test.visibility = spec.visibility;
  test.points_possible = spec.points;
  test.points_earned = outcome.status == TestStatus::Passed ? spec.points : 0;
  test.outcome = std::move(outcome);
  return test;
}

}  // namespace

std::vector<ScoredTest> score_tests(const cudalabs::config::LabConfig& lab, const std::vector<TestOutcome>& outcomes,
                                    bool only_public) {
  std::vector<ScoredTest> tests;
  for (const auto& spec : lab.tests) {
    if (!counted(spec, only_public)) continue;
    const auto found = std::find_if(outcomes.begin(), outcomes.end(),
                                    [&](const TestOutcome& outcome) { return outcome.name == spec.name; });
    TestOutcome outcome = found != outcomes.end()
                              ? *found
                              : TestOutcome{spec.name, TestStatus::NotRun, "the suite did not report this test", 0};
    tests.push_back(scored(spec, std::move(outcome)));
  }
  return tests;
}

std::vector<ScoredTest> unscored_tests(const cudalabs::config::LabConfig& lab, TestStatus status,
                                       const std::string& reason, bool only_public) {
  std::vector<ScoredTest> tests;
  for (const auto& spec : lab.tests) {
    if (counted(spec, only_public)) tests.push_back(scored(spec, TestOutcome{spec.name, status, reason, 0}));
  }
  return tests;
}

void total_points(GradeReport& report) {
  report.points_earned = 0;
  report.points_possible = 0;
  for (const auto& test : report.tests) {
    report.points_earned += test.points_earned;
    report.points_possible += test.points_possible;
  }
}

}  // namespace labgrade
