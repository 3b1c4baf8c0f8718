#pragma once
// JUnit XML, the test-report dialect CI systems read (Jenkins, GitLab, GitHub Actions reporters).
#include <filesystem>
#include <string>

#include "model/grade_result.hpp"
#include "report/report_common.hpp"

namespace labgrade {

// One <testsuite> for the lab: a <testcase> per test and per performance case, plus one per
// run-level problem (the build, a rejected submission, broken rules, no GPU) so that a CI job
// shows why nothing ran.
std::string junit_report(const GradeResult& report, const ReportView& view);

void write_junit_report(const std::filesystem::path& file, const GradeResult& report, const ReportView& view);

}  // namespace labgrade
