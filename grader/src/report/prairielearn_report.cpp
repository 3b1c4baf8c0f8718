#include "report/prairielearn_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "report/report_outputs.hpp"
#include "text/utf8.hpp"

namespace labgrade {
namespace {

constexpr ReportView kStudentView{false};

std::string dump(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// At most `max_bytes` bytes of `text` (made valid UTF-8), cut at a character boundary, with a
// line saying how much was left out.
std::string cut(const std::string& raw, std::size_t max_bytes) {
  const std::string text = valid_utf8(raw);
  if (text.size() <= max_bytes) return text;
  if (max_bytes == 0) return "";
  std::size_t end = 0;
  while (end < text.size()) {
    char32_t code = 0;
    const std::size_t length = std::max<std::size_t>(1, utf8_sequence(text, end, code));
    if (end + length > max_bytes) break;
    end += length;
  }
  return text.substr(0, end) +
         fmt::format("\n[... {} more bytes cut: PrairieLearn takes at most 1 MB of results]\n", text.size() - end);
}

// Why a run is not a grade, for the student (format_errors) and the instructor.
std::string not_gradable_reason(const GradeResult& report) {
  if (report.mode != "grade") return "a self-check is not a grade";
  switch (report.status) {
    case RunStatus::NoCudaDevice:
      return "the grader had no usable CUDA device, so your code's tests could not run: this was not a grade "
             "and costs you no attempt; submit again";
    case RunStatus::MachineBusy:
      return "the grading machine was too busy to time your code fairly (other work kept the grader waiting for "
             "a CPU), so this was not a grade and costs you no attempt; submit again";
    case RunStatus::ConfigurationError:
      return "the lab's grading configuration is broken (not your code's fault): this was not a grade and costs "
             "you no attempt; tell your instructor";
    default:
      return fmt::format("the grader could not grade this submission ({}): this was not a grade",
                         run_status_name(report.status));
  }
}

// Files used and ignored, broken rules, the compiler's messages.
std::string overview(const GradeResult& report) {
  std::string text = fmt::format("{} — {}\n", report.lab, report.title);
  return text + submission_overview(report);
}

std::string test_output(const ScoredTest& test) {
  std::string text = visible_detail(test, kStudentView);
  if (text.empty() && !details_visible(test, kStudentView) && test.outcome.status != TestStatus::Passed) {
    text = "(details of hidden tests are not shown)";
  }
  if (const std::string sanitizer = sanitizer_detail(test, kStudentView); !sanitizer.empty()) {
    text += (text.empty() ? "" : "\n") + sanitizer;
  }
  return text;
}

std::string test_message(const ScoredTest& test) {
  const bool full = test.outcome.status == TestStatus::Passed && !below_full_credit(test);
  if (full) return "passed";
  if (test.outcome.status == TestStatus::Passed) return "passed, below full credit";
  return std::string(to_string(test.outcome.status));
}

nlohmann::json build(const GradeResult& report, std::size_t test_output_bytes, std::size_t output_bytes) {
  nlohmann::json results;
  if (!is_a_grade(report)) {
    const std::string reason = not_gradable_reason(report);
    results["gradable"] = false;
    results["format_errors"] = nlohmann::json::array({reason});
    results["message"] = cut(reason, output_bytes);
    results["output"] = cut(overview(report), output_bytes);
    return results;
  }
  const double score = report.points_possible > 0 ? report.points_earned / report.points_possible : 0.0;
  results["gradable"] = true;
  results["score"] = std::clamp(score, 0.0, 1.0);
  results["message"] = cut(fmt::format("Score: {} / {} ({})", format_points(report.points_earned),
                                       format_points(report.points_possible), report.status_detail),
                           output_bytes);
  results["output"] = cut(overview(report), output_bytes);
  nlohmann::json tests = nlohmann::json::array();
  for (const ScoredTest& test : report.tests) {
    if (test.preview) continue;  // a self-check's timing preview: worth nothing, never in a grade
    const bool hidden = test.visibility == cudalabs::config::Visibility::Hidden;
    tests.push_back({{"name", test.name},
                     {"description", std::string(test.performance || test.name.rfind("Performance.", 0) == 0
                                                     ? "timed case"
                                                     : "correctness test") +
                                         (hidden ? " (hidden)" : " (public)")},
                     {"points", test.points_earned},
                     {"max_points", test.points_possible},
                     {"message", test_message(test)},
                     {"output", cut(test_output(test), test_output_bytes)}});
  }
  results["tests"] = tests;
  return results;
}

}  // namespace

nlohmann::json prairielearn_results(const GradeResult& report, std::size_t size_limit) {
  // Generous first; halved until the file fits (messages are what grows: compiler output,
  // failure details of many tests, control characters escaped six bytes each).
  std::size_t test_output_bytes = 16 * 1024;
  std::size_t output_bytes = 256 * 1024;
  for (;;) {
    nlohmann::json results = build(report, test_output_bytes, output_bytes);
    if (dump(results).size() <= size_limit || (test_output_bytes == 0 && output_bytes == 0)) return results;
    test_output_bytes /= 2;
    output_bytes /= 2;
  }
}

std::string prairielearn_report(const GradeResult& report, const ReportView&) {
  return dump(prairielearn_results(report));
}

}  // namespace labgrade
