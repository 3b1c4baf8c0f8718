#include "json_report.hpp"

#include <fstream>
#include <stdexcept>

namespace labgrade {
namespace {

const char* status_name(RunStatus status) {
  switch (status) {
    case RunStatus::Graded: return "graded";
    case RunStatus::TestsFailed: return "tests_failed";
    case RunStatus::ConfigurationError: return "configuration_error";
    case RunStatus::SubmissionRejected: return "submission_rejected";
    case RunStatus::NoCudaDevice: return "no_cuda_device";
    case RunStatus::BuildFailed: return "build_failed";
  }
  return "unknown";
}

}  // namespace

nlohmann::json report_to_json(const GradeReport& report) {
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& test : report.tests) {
    tests.push_back({{"name", test.name},
                     {"visibility", std::string(cudalabs::config::to_string(test.visibility))},
                     {"status", std::string(to_string(test.outcome.status))},
                     {"points_earned", test.points_earned},
                     {"points_possible", test.points_possible},
                     {"seconds", test.outcome.seconds},
                     {"message", test.outcome.message}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"mode", report.mode},
          {"lab", report.lab},
          {"title", report.title},
          {"submission", report.submission},
          {"device", report.device},
          {"status", status_name(report.status)},
          {"exit_code", static_cast<int>(report.status)},
          {"status_detail", report.status_detail},
          {"points_earned", report.points_earned},
          {"points_possible", report.points_possible},
          {"files", {{"used", report.staged_files}, {"ignored", report.ignored_files},
                     {"ignored_not_listed", report.ignored_not_listed}}},
          {"build", {{"attempted", report.build.attempted}, {"succeeded", report.build.succeeded},
                     {"command", report.build.command}, {"output", report.build.output},
                     {"seconds", report.build.seconds}}},
          {"timing", {{"stage_seconds", report.stage_seconds}, {"build_seconds", report.build.seconds},
                      {"test_seconds", report.test_seconds}, {"total_seconds", report.total_seconds}}},
          {"tests", tests}};
}

void write_json_report(const std::filesystem::path& file, const GradeReport& report) {
  const std::filesystem::path temporary = file.string() + ".partial";
  {
    std::ofstream out(temporary);
    if (!out) throw std::runtime_error("cannot write the JSON report to " + file.string());
    // Compiler and student output may hold invalid UTF-8: replace it rather than fail the report.
    out << report_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) throw std::runtime_error("cannot write the JSON report to " + file.string());
  }
  std::filesystem::rename(temporary, file);
}

}  // namespace labgrade
