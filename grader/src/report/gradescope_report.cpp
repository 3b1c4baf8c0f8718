#include "report/gradescope_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "report/report_common.hpp"

namespace labgrade {
namespace {

constexpr ReportView kStudentView{false};

// The summary above the tests: the score, why, and what the student can act on.
std::string overview(const GradeResult& report) {
  std::string text = fmt::format("{} — {}\nScore: {} / {} ({})\n", report.lab, report.title,
                                 format_points(report.points_earned), format_points(report.points_possible),
                                 report.status_detail);
  text += submission_overview(report);
  if (const std::string kernels = kernel_resources_text(report); !kernels.empty()) text += "\n" + kernels;
  return text;
}

std::string test_output(const ScoredTest& test) {
  std::string text = fmt::format("{}: {} / {} points", to_string(test.outcome.status),
                                 format_points(test.points_earned), format_points(test.points_possible));
  const std::string detail = visible_detail(test, kStudentView);
  if (!detail.empty()) {
    text += "\n" + detail;
  } else if (!details_visible(test, kStudentView) && test.outcome.status != TestStatus::Passed) {
    text += "\n(details of hidden tests are not shown)";
  }
  if (const std::string sanitizer = sanitizer_detail(test, kStudentView); !sanitizer.empty()) text += "\n" + sanitizer;
  return text;
}

}  // namespace

nlohmann::json gradescope_results(const GradeResult& report, const GradescopeOptions& options) {
  nlohmann::json tests = nlohmann::json::array();
  nlohmann::json leaderboard = nlohmann::json::array();
  for (const auto& test : report.tests) {
    const bool hidden = test.visibility == cudalabs::config::Visibility::Hidden;
    const bool full = test.outcome.status == TestStatus::Passed && !below_full_credit(test);
    tests.push_back({{"name", test.name},
                     {"score", test.points_earned},
                     {"max_score", test.points_possible},
                     {"status", full ? "passed" : "failed"},
                     {"output", test_output(test)},
                     {"visibility", hidden ? options.hidden_test_visibility : "visible"}});
    if (test.performance) {
      leaderboard.push_back({{"name", test.name + " median ms"},
                             {"value", test.performance->measurement.student_ms.median},
                             {"order", "asc"}});
    }
  }
  nlohmann::json results{{"score", report.points_earned},
                         {"max_score", report.points_possible},
                         // The specification's example gives whole seconds.
                         {"execution_time", static_cast<long>(std::ceil(report.total_seconds))},
                         {"output", overview(report)},
                         {"visibility", "visible"},
                         // The autograder's stdout is labgrade's full text report: instructors only.
                         {"stdout_visibility", "hidden"},
                         {"tests", tests}};
  if (!leaderboard.empty()) results["leaderboard"] = leaderboard;
  return results;
}

void write_gradescope_report(const std::filesystem::path& file, const GradeResult& report,
                             const GradescopeOptions& options) {
  // Compiler and student output may hold invalid UTF-8: replace it rather than fail the report.
  const std::string text =
      gradescope_results(report, options).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  write_report_file(file, text, "Gradescope");
}

}  // namespace labgrade
