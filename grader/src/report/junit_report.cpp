#include "report/junit_report.hpp"

#include <vector>

#include <fmt/format.h>

#include "report/profile_text.hpp"

namespace labgrade {
namespace {

constexpr std::size_t kMessageChars = 200;  // a message attribute is a one-line summary
constexpr const char* kHiddenNote = "details of hidden tests are not shown";

struct Case {
  enum class Outcome { Passed, Failure, Error, Skipped };
  std::string classname;
  std::string name;
  double seconds = 0;
  Outcome outcome = Outcome::Passed;
  std::string type;     // failure/error type, e.g. "crashed"
  std::string message;  // one line
  std::string details;  // the element's text
  std::string system_out;
};

std::string suite_of(const std::string& test) { return test.substr(0, test.find('.')); }
std::string case_of(const std::string& test) {
  const auto dot = test.find('.');
  return dot == std::string::npos ? test : test.substr(dot + 1);
}

Case test_case(const GradeResult& report, const ScoredTest& test, const ReportView& view) {
  Case c;
  c.classname = report.lab + "." + suite_of(test.name);
  c.name = case_of(test.name);
  c.seconds = test.outcome.seconds;
  const std::string detail = visible_detail(test, view);
  const std::string shown = detail.empty() && !details_visible(test, view) ? kHiddenNote : detail;
  const std::string status(to_string(test.outcome.status));
  c.system_out = fmt::format("{}: {} / {} points ({})", status, format_points(test.points_earned),
                             format_points(test.points_possible), to_string(test.visibility));
  if (test.performance) c.system_out += "\n" + detail;
  if (const std::string sanitizer = sanitizer_detail(test, view); !sanitizer.empty()) c.system_out += "\n" + sanitizer;

  switch (test.outcome.status) {
    case TestStatus::Passed:
      if (below_full_credit(test)) {
        c.outcome = Case::Outcome::Failure;
        c.type = "below threshold";
        c.message = first_line(test.performance->verdict.explanation, kMessageChars);
        c.details = shown;
      }
      break;
    case TestStatus::Failed:
      c.outcome = Case::Outcome::Failure;
      c.type = status;
      c.message = first_line(shown.empty() ? status : shown, kMessageChars);
      c.details = shown;
      break;
    case TestStatus::Crashed:
    case TestStatus::TimedOut:
      c.outcome = Case::Outcome::Error;
      c.type = status;
      c.message = first_line(shown.empty() ? status : shown, kMessageChars);
      c.details = shown;
      break;
    case TestStatus::Skipped:
    case TestStatus::NotRun:
      c.outcome = Case::Outcome::Skipped;
      c.message = first_line(shown.empty() ? status : status + ": " + shown, kMessageChars);
      break;
  }
  return c;
}

// Why the run as a whole went the way it did, as testcases a CI job lists with the others.
std::vector<Case> run_cases(const GradeResult& report) {
  std::vector<Case> cases;
  const std::string classname = report.lab + ".labgrade";
  if (report.status == RunStatus::SubmissionRejected) {
    cases.push_back({classname, "submission", 0, Case::Outcome::Error, "submission_rejected",
                     first_line(report.status_detail, kMessageChars), report.status_detail, ""});
  }
  if (report.build.attempted) {
    Case build{classname, "build", report.build.seconds, Case::Outcome::Passed, "", "", "",
               "$ " + report.build.command};
    if (const std::string kernels = kernel_resources_text(report); !kernels.empty()) build.system_out += "\n" + kernels;
    if (!report.build.succeeded) {
      build.outcome = Case::Outcome::Error;
      build.type = "build_failed";
      build.message = "the code did not compile";
      build.details = "$ " + report.build.command + "\n" + report.build.output;
    }
    cases.push_back(std::move(build));
  }
  if (report.status == RunStatus::RuleViolation || !report.rule_violations.empty()) {
    std::string details;
    for (const auto& violation : report.rule_violations) details += violation + "\n";
    cases.push_back({classname, "forbidden rules", 0, Case::Outcome::Failure, "rule_violation",
                     first_line(report.status_detail, kMessageChars), details, ""});
  }
  if (report.status == RunStatus::NoCudaDevice) {
    cases.push_back({classname, "cuda device", 0, Case::Outcome::Error, "no_cuda_device",
                     first_line(report.status_detail, kMessageChars), report.status_detail, ""});
  }
  if (report.status == RunStatus::MachineBusy) {
    cases.push_back({classname, "timing fairness", 0, Case::Outcome::Error, "machine_busy",
                     first_line(report.status_detail, kMessageChars), report.status_detail, ""});
  }
  return cases;
}

std::string attr(std::string_view text) { return markup_escape(text, true); }
std::string seconds(double value) { return fmt::format("{:.3f}", value); }

void append_case(std::string& xml, const Case& c) {
  xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"", attr(c.classname), attr(c.name),
                     seconds(c.seconds));
  if (c.outcome == Case::Outcome::Passed && c.system_out.empty()) {
    xml += "/>\n";
    return;
  }
  xml += ">\n";
  switch (c.outcome) {
    case Case::Outcome::Passed: break;
    case Case::Outcome::Failure:
    case Case::Outcome::Error: {
      const char* element = c.outcome == Case::Outcome::Failure ? "failure" : "error";
      xml += fmt::format("      <{} message=\"{}\" type=\"{}\">{}</{}>\n", element, attr(c.message), attr(c.type),
                         markup_escape(c.details), element);
      break;
    }
    case Case::Outcome::Skipped:
      xml += fmt::format("      <skipped message=\"{}\"/>\n", attr(c.message));
      break;
  }
  if (!c.system_out.empty()) xml += fmt::format("      <system-out>{}</system-out>\n", markup_escape(c.system_out));
  xml += "    </testcase>\n";
}

}  // namespace

std::string junit_report(const GradeResult& report, const ReportView& view) {
  std::vector<Case> cases = run_cases(report);
  // The profile pass's figures (never scored: a passed case that carries them in its output).
  if (const std::string profile = profile_text(report, view); !profile.empty()) {
    cases.push_back({report.lab + ".labgrade", "profile", report.profile->seconds, Case::Outcome::Passed, "", "", "",
                     profile});
  }
  for (const auto& test : report.tests) cases.push_back(test_case(report, test, view));
  std::size_t failures = 0, errors = 0, skipped = 0;
  for (const auto& c : cases) {
    failures += c.outcome == Case::Outcome::Failure;
    errors += c.outcome == Case::Outcome::Error;
    skipped += c.outcome == Case::Outcome::Skipped;
  }
  const std::string counts = fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\"",
                                         cases.size(), failures, errors, skipped, seconds(report.total_seconds));

  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format("<testsuites name=\"labgrade {}\" {}>\n", attr(report.mode), counts);
  xml += fmt::format("  <testsuite name=\"{}\" {}>\n", attr(report.lab), counts);
  xml += "    <properties>\n";
  const std::pair<const char*, std::string> properties[] = {
      {"title", report.title},
      {"mode", report.mode},
      {"submission", report.submission},
      {"device", report.device},
      {"status", std::string(run_status_name(report.status))},
      {"status_detail", report.status_detail},
      {"points_earned", has_score(report) ? format_points(report.points_earned) : std::string()},
      {"points_possible", format_points(report.points_possible)},
      {"late", late_penalty_line(report)},
  };
  for (const auto& [name, value] : properties) {
    // Only batch grades have a late policy; a run without a score has no points earned.
    if (value.empty() && (std::string_view(name) == "late" || std::string_view(name) == "points_earned")) continue;
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, attr(value));
  }
  xml += "    </properties>\n";
  for (const auto& c : cases) append_case(xml, c);
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

void write_junit_report(const std::filesystem::path& file, const GradeResult& report, const ReportView& view) {
  write_report_file(file, junit_report(report, view), "JUnit");
}

}  // namespace labgrade
