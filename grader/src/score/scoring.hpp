#pragma once
// Turns test outcomes into points, using the lab's YAML.
#include <map>
#include <string>
#include <vector>

#include "cudalabs/course/lab_config.hpp"
#include "model/grade_result.hpp"

namespace labgrade {

// One ScoredTest per YAML test (those with public visibility only, when `only_public`), in YAML
// order. A test without an outcome, or with any status but Passed, earns nothing.
std::vector<ScoredTest> score_tests(const cudalabs::config::LabConfig& lab, const std::vector<TestOutcome>& outcomes,
                                    bool only_public);

// One ScoredTest per performance case (public ones only, when `only_public`), in YAML order. A
// case earns its points times the verdict's credit when its test reported a measurement; a case
// whose test failed before measuring (a wrong result, a crash) earns nothing.
std::vector<ScoredTest> score_performance(const cudalabs::config::LabConfig& lab,
                                          const std::vector<TestOutcome>& outcomes,
                                          const std::map<std::string, PerformanceMeasurement>& measurements,
                                          bool only_public);

// The timed cases whose measurement the machine's load spoiled (PerformanceMeasurement::
// machine_busy), in report order: a grade with any is no grade (RunStatus::MachineBusy).
std::vector<std::string> cases_timed_on_a_busy_machine(const std::vector<ScoredTest>& tests);

// Every YAML test and performance case (or every public one) with zero points and the same reason, for a submission
// that never reached its tests (rejected, or did not compile).
std::vector<ScoredTest> unscored_tests(const cudalabs::config::LabConfig& lab, TestStatus status,
                                       const std::string& reason, bool only_public);

void total_points(GradeResult& report);

}  // namespace labgrade
