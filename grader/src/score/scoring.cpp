#include "score/scoring.hpp"

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
    if (!cudalabs::config::covered(spec.visibility, only_public)) continue;
    const auto found = std::find_if(outcomes.begin(), outcomes.end(),
                                    [&](const TestOutcome& outcome) { return outcome.name == spec.name; });
    TestOutcome outcome = found != outcomes.end()
                              ? *found
                              : TestOutcome{spec.name, TestStatus::NotRun, "the suite did not report this test", 0};
    tests.push_back(scored(spec, std::move(outcome)));
  }
  return tests;
}

std::vector<ScoredTest> score_performance(const cudalabs::config::LabConfig& lab,
                                          const std::vector<TestOutcome>& outcomes,
                                          const std::map<std::string, PerformanceMeasurement>& measurements,
                                          bool only_public) {
  std::vector<ScoredTest> scored_cases;
  for (const auto& spec : lab.performance) {
    if (!cudalabs::config::covered(spec, only_public)) continue;
    const std::string name = spec.test_name();
    const auto outcome = std::find_if(outcomes.begin(), outcomes.end(),
                                      [&](const TestOutcome& candidate) { return candidate.name == name; });
    ScoredTest test;
    test.name = name;
    test.visibility = spec.visibility;
    test.points_possible = spec.points;
    test.preview = spec.preview;
    test.outcome = outcome != outcomes.end() ? *outcome
                                             : TestOutcome{name, TestStatus::NotRun, "the suite did not report this test", 0};
    const auto measured = measurements.find(name);
    const bool usable = measured != measurements.end() && (test.outcome.status == TestStatus::Passed ||
                                                            test.outcome.status == TestStatus::Failed);
    if (usable) {
      const PerformanceMeasurement& m = measured->second;
      PerformanceResult result{m, cudalabs::config::judge(spec, cudalabs::config::figure_for(spec.threshold.kind,
                                                                                              m.timings()),
                                                          m.device)};
      if (m.implausible) {
        // A figure this GPU cannot reach was not earned by the code: no points, whatever the verdict.
        result.verdict.credit = 0;
        result.verdict.explanation = "IMPLAUSIBLE, not scored (for the instructor to review): " +
                                     m.implausible_reason + "; the verdict it would have had: " +
                                     result.verdict.explanation;
      } else if (!m.machine_busy.empty()) {
        // Figures of the machine's load are not the code's: no points, and a grade to make again.
        result.verdict.credit = 0;
        result.verdict.explanation = "NOT SCORED, the machine was too busy to time this case fairly (grade again "
                                     "when it is quieter; for the instructor to review): " +
                                     m.machine_busy + "; the verdict it would have had: " +
                                     result.verdict.explanation;
      }
      test.points_earned = spec.points * result.verdict.credit;
      // The verdict is labgrade's, from the figures; the harness's own pass/fail is not needed.
      // A preview below its threshold is no failure: it is not a grade (its test fails only when
      // the code is wrong at the timed size or its timed calls could not be trusted).
      if (!spec.preview) test.outcome.status = result.verdict.credit >= 1.0 ? TestStatus::Passed : TestStatus::Failed;
      test.outcome.message = describe(result);
      test.performance = std::move(result);
    }
    scored_cases.push_back(std::move(test));
  }
  return scored_cases;
}

std::vector<std::string> cases_timed_on_a_busy_machine(const std::vector<ScoredTest>& tests) {
  std::vector<std::string> names;
  for (const ScoredTest& test : tests) {
    if (test.performance && !test.performance->measurement.machine_busy.empty()) names.push_back(test.name);
  }
  return names;
}

std::vector<ScoredTest> unscored_tests(const cudalabs::config::LabConfig& lab, TestStatus status,
                                       const std::string& reason, bool only_public) {
  std::vector<ScoredTest> tests;
  for (const auto& spec : lab.tests) {
    if (cudalabs::config::covered(spec.visibility, only_public)) tests.push_back(scored(spec, TestOutcome{spec.name, status, reason, 0}));
  }
  for (const auto& spec : lab.performance) {
    if (!cudalabs::config::covered(spec, only_public)) continue;
    ScoredTest test;
    test.name = spec.test_name();
    test.visibility = spec.visibility;
    test.points_possible = spec.points;
    test.preview = spec.preview;
    test.outcome = TestOutcome{test.name, status, reason, 0};
    tests.push_back(std::move(test));
  }
  return tests;
}

void total_points(GradeResult& report) {
  report.points_earned = 0;
  report.points_possible = 0;
  for (const auto& test : report.tests) {
    report.points_earned += test.points_earned;
    report.points_possible += test.points_possible;
  }
}

}  // namespace labgrade
