#include "report/json_report.hpp"

#include <cmath>

#include "report/report_common.hpp"

namespace labgrade {

namespace {

nlohmann::json late_to_json(const GradeResult& report) {
  const LatePenaltyNote& late = *report.late;
  return {{"submitted_at", late.submitted_at}, {"due", late.due}, {"days_late", late.days_late},
          {"penalty_percent", late.penalty_percent}, {"penalty_points", late.penalty_points},
          {"points_before_penalty", late.points_before}};
}

nlohmann::json optional_figure(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json kernels_to_json(const std::vector<ProfiledKernel>& kernels) {
  nlohmann::json list = nlohmann::json::array();
  for (const ProfiledKernel& kernel : kernels) list.push_back({{"name", kernel.name}, {"launches", kernel.launches}});
  return list;
}

nlohmann::json profile_to_json(const ProfileReport& profile) {
  nlohmann::json cases = nlohmann::json::array();
  for (const ProfiledCase& profiled : profile.cases) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const ProfiledMetric& metric : profiled.metrics) {
      metrics.push_back({{"name", metric.name}, {"label", metric.label}, {"unit", metric.unit},
                         {"student", optional_figure(metric.student)},
                         {"reference", optional_figure(metric.reference)}, {"missing", metric.missing},
                         {"hint", metric.hint}, {"hint_because", metric.hint_because}});
    }
    cases.push_back({{"test", profiled.test}, {"hidden", profiled.hidden},
                     {"student_kernels", kernels_to_json(profiled.student_kernels)},
                     {"reference_kernels", kernels_to_json(profiled.reference_kernels)},
                     {"problem", profiled.problem}, {"metrics", metrics}});
  }
  return {{"ran", profile.ran}, {"unavailable", profile.unavailable}, {"ncu", profile.ncu},
          {"with_reference", profile.with_reference}, {"seconds", profile.seconds}, {"cases", cases}};
}

}  // namespace

nlohmann::json report_to_json(const GradeResult& report) {
  const bool scored = has_score(report);  // null points where the run has no score
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelResources& kernel : report.build.kernels) {
    kernels.push_back({{"name", kernel.name}, {"symbol", kernel.mangled}, {"arch", kernel.arch},
                       {"registers", kernel.registers}, {"barriers", kernel.barriers},
                       {"shared_bytes", kernel.shared_bytes}, {"stack_bytes", kernel.stack_bytes},
                       {"spill_store_bytes", kernel.spill_store_bytes}, {"spill_load_bytes", kernel.spill_load_bytes}});
  }
  nlohmann::json tests = nlohmann::json::array();
  for (const auto& test : report.tests) {
    nlohmann::json entry{{"name", test.name},
                         {"visibility", std::string(cudalabs::config::to_string(test.visibility))},
                         {"status", std::string(to_string(test.outcome.status))},
                         {"points_earned", scored ? nlohmann::json(test.points_earned) : nlohmann::json(nullptr)},
                         {"points_possible", test.points_possible},
                         {"seconds", test.outcome.seconds},
                         {"message", test.outcome.message}};
    if (test.performance) entry["performance"] = to_json(*test.performance);
    if (test.preview) {
      // A timing preview (self-check only): never points; null when it was not measured.
      const bool measured = test.performance.has_value();
      entry["preview"] = {{"not_a_grade", true},
                          {"threshold_met", measured ? nlohmann::json(test.performance->verdict.credit >= 1.0 &&
                                                                      !test.performance->measurement.implausible &&
                                                                      test.performance->measurement.machine_busy.empty())
                                                     : nlohmann::json(nullptr)}};
    }
    if (!test.sanitizer.empty()) {
      nlohmann::json findings = nlohmann::json::array();
      for (const auto& finding : test.sanitizer) {
        nlohmann::json item{{"tool", finding.tool}, {"completed", finding.completed}, {"clean", finding.clean},
                            {"errors", finding.errors}, {"excerpt", finding.excerpt}, {"seconds", finding.seconds}};
        if (!finding.not_needed.empty()) item["not_needed"] = finding.not_needed;
        findings.push_back(std::move(item));
      }
      entry["sanitizer"] = std::move(findings);
    }
    tests.push_back(std::move(entry));
  }
  nlohmann::json stage_times = nlohmann::json::array();
  for (const GradeResult::StageTime& stage : report.stage_times) {
    stage_times.push_back({{"stage", stage.stage}, {"started_at", stage.started_at}, {"seconds", stage.seconds}});
  }
  nlohmann::json review = nlohmann::json::array();
  for (const ReviewNote& note : report.review) {
    review.push_back({{"construct", note.construct}, {"where", note.where}, {"why", note.why}});
  }
  nlohmann::json json{{"schema_version", kReportSchemaVersion},
          {"mode", report.mode},
          {"lab", report.lab},
          {"title", report.title},
          {"submission", report.submission},
          {"device", report.device},
          {"status", std::string(run_status_name(report.status))},
          {"exit_code", static_cast<int>(report.status)},
          {"status_detail", report.status_detail},
          {"points_earned", scored ? nlohmann::json(report.points_earned) : nlohmann::json(nullptr)},
          {"points_possible", report.points_possible},
          {"rule_violations", report.rule_violations},
          {"review", review},
          {"unenforced_protections", report.unenforced_protections},
          {"files", {{"used", report.staged_files}, {"ignored", report.ignored_files},
                     {"ignored_not_listed", report.ignored_not_listed}}},
          {"build", {{"attempted", report.build.attempted}, {"succeeded", report.build.succeeded},
                     {"command", report.build.command}, {"output", report.build.output},
                     {"seconds", report.build.seconds}, {"kernels", kernels},
                     {"unmet_kernel_requirements", report.build.unmet_requirements}}},
          {"timing", {{"stage_seconds", report.stage_seconds}, {"build_seconds", report.build.seconds},
                      {"test_seconds", report.test_seconds},
                      {"gpu_wait_seconds", report.gpu_wait_seconds}, {"total_seconds", report.total_seconds},
                      {"tests_rerun_alone", report.tests_rerun_alone},
                      {"gpu_sharing", report.gpu_sharing}, {"stages", stage_times}}},
          {"tests", tests}};
  if (report.late) json["late"] = late_to_json(report);  // batch grades of a lab with a late policy
  if (report.profile) json["profile"] = profile_to_json(*report.profile);  // --profile, or the lab's YAML
  return json;
}

void write_json_report(const std::filesystem::path& file, const GradeResult& report) {
  // Compiler and student output may hold invalid UTF-8: replace it rather than fail the report.
  write_report_file(file, report_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                    "JSON");
}

}  // namespace labgrade
