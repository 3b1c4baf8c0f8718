// A timing preview from the harness's measurement event to the reports, host-only: lab 01's real
// YAML (two previews, `preview: true`), a fake event of the kind cudalabs/performance_preview.hpp
// sends, labgrade's scoring and the text and JSON reports.
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cudalabs/course/lab_config.hpp"
#include "model/performance_result.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/text_report.hpp"
#include "score/scoring.hpp"

namespace labgrade {
namespace {

namespace config = cudalabs::config;

const config::LabConfig& lab01() {
  static const config::LabConfig lab =
      config::load_lab_config(std::filesystem::path(CUDALABS_SOURCE_DIR) / "config" / "labs" / "01_vector_add.yaml");
  return lab;
}

// What the harness sends for a preview: the student's time alone, nothing compared with it.
PerformanceMeasurement preview_measurement(double student_ms, double peak_gbs) {
  const double bytes = 3.0 * 4 * (1 << 26);
  const double gbs = bytes / (student_ms * 1e-3) / 1e9;
  nlohmann::json event = {{"event", "measurement"},
                          {"test", "Preview.vector_add"},
                          {"device", "NVIDIA H100 80GB HBM3"},
                          {"threshold_kind", "min_fraction_of_peak_bandwidth"},
                          {"figure", {{"median", gbs / peak_gbs}, {"low", gbs / peak_gbs}, {"high", gbs / peak_gbs}}},
                          {"student_ms", {{"median", student_ms}, {"low", student_ms}, {"high", student_ms}, {"samples", 12}}},
                          {"solution_ms", {{"median", 0}, {"low", 0}, {"high", 0}, {"samples", 0}}},
                          {"ratio", {{"median", 0}, {"low", 0}, {"high", 0}, {"samples", 0}}},
                          {"target_met", true},
                          {"rounds", 12},
                          {"remeasured", 0},
                          {"seconds", 1.4},
                          {"bytes", bytes},
                          {"flops", 0},
                          {"achieved_gbs", gbs},
                          {"achieved_gflops", 0},
                          {"peak_bandwidth_gbs", peak_gbs},
                          {"peak_gflops", 0},
                          {"clocks", {{"sm_mhz_measured", 1980}, {"sm_mhz_max", 1980}, {"memory_mhz", 2619}, {"note", ""}}},
                          {"implausible", false},
                          {"implausible_reason", ""},
                          {"bandwidth_limit_gbs", 3600},
                          {"flops_limit_gflops", 0},
                          {"verified_samples", 4},
                          {"timing_seed", "0x00000000000004d2"},
                          {"case_seed", "0x1234567890abcdef"},
                          {"compared_with", "nothing"},
                          {"stages", nlohmann::json::array()}};
  const std::optional<PerformanceMeasurement> parsed = parse_measurement(event);
  EXPECT_TRUE(parsed);
  return parsed.value_or(PerformanceMeasurement{});
}

// A self-check of lab 01 whose public tests passed and whose vector_add preview measured
// `student_ms` on a GPU with a 3000 GB/s copy bandwidth; the saxpy preview did not run.
GradeResult self_check_with_preview(double student_ms) {
  GradeResult report;
  report.mode = "check";
  report.lab = "01_vector_add";
  report.title = lab01().title;
  report.submission = "labs/01_vector_add";
  report.device = "NVIDIA H100 80GB HBM3";
  report.status_detail = "every public test passed";
  std::vector<TestOutcome> outcomes;
  for (const std::string& name : lab01().test_names(true)) outcomes.push_back({name, TestStatus::Passed, "", 0.01});
  outcomes.push_back({"Preview.vector_add", TestStatus::Passed, "", 1.5});
  outcomes.push_back({"Preview.saxpy", TestStatus::Skipped, "not timed: the code it times returned "
                                                            "cudaErrorNotYetImplemented (a TODO(student) left)", 0});
  report.tests = score_tests(lab01(), outcomes, true);
  for (ScoredTest& timed :
       score_performance(lab01(), outcomes, {{"Preview.vector_add", preview_measurement(student_ms, 3000)}}, true)) {
    report.tests.push_back(std::move(timed));
  }
  total_points(report);
  return report;
}

const ScoredTest& find(const GradeResult& report, const std::string& name) {
  for (const ScoredTest& test : report.tests) {
    if (test.name == name) return test;
  }
  throw std::runtime_error("no test " + name);
}

std::string text_of(const GradeResult& report) {
  std::ostringstream out;
  TextStyle style;
  style.show_hidden_details = false;  // what a student sees
  write_text_report(out, report, style);
  return out.str();
}

TEST(PreviewConfig, Lab01PreviewsRunInTheSelfCheckOnly) {
  const std::vector<std::string> self_check = lab01().performance_test_names(true);
  EXPECT_EQ(self_check, (std::vector<std::string>{"Preview.vector_add", "Preview.saxpy"}));
  for (const std::string& name : lab01().performance_test_names(false)) {
    EXPECT_EQ(name.rfind("Preview.", 0), std::string::npos) << "a grade runs " << name;
  }
  EXPECT_DOUBLE_EQ(lab01().points_possible(true), 20);  // previews are worth nothing
  for (const ScoredTest& test : unscored_tests(lab01(), TestStatus::NotRun, "did not compile", false)) {
    EXPECT_FALSE(test.preview) << test.name;
  }
}

TEST(PreviewScoring, BelowTheThresholdIsNoFailureAndEarnsNothing) {
  // 805 MB in 0.5 ms = 1610 GB/s = 54% of 3000 GB/s: below the 85% preview.
  const GradeResult report = self_check_with_preview(0.5);
  const ScoredTest& preview = find(report, "Preview.vector_add");
  EXPECT_TRUE(preview.preview);
  EXPECT_EQ(preview.outcome.status, TestStatus::Passed);
  EXPECT_EQ(preview.points_possible, 0);
  EXPECT_EQ(preview.points_earned, 0);
  ASSERT_TRUE(preview.performance);
  EXPECT_LT(preview.performance->verdict.credit, 1.0);
  EXPECT_NE(preview.outcome.message.find("not met"), std::string::npos) << preview.outcome.message;
  EXPECT_DOUBLE_EQ(report.points_earned, 20);
  EXPECT_DOUBLE_EQ(report.points_possible, 20);
}

TEST(PreviewReport, TextShowsThePreviewApartFromThePoints) {
  const std::string text = text_of(self_check_with_preview(0.5));
  const std::size_t section = text.find("Timing preview (your code on this GPU; a preview, not a grade: no points):");
  ASSERT_NE(section, std::string::npos) << text;
  // Not in the table of points, which ends with the score ...
  const std::size_t score = text.find("Score: 20 / 20");
  ASSERT_NE(score, std::string::npos) << text;
  EXPECT_EQ(text.substr(0, score).find("Preview."), std::string::npos) << text;
  // ... but below it, with its figures and the verdict.
  for (const char* expected :
       {"Preview.vector_add  below the preview threshold", "your code alone 0.5 ms (median of 12 samples",
        "1611 GB/s = 53.7% of the device's 3000 GB/s copy bandwidth",
        "preview threshold at least 85%: not met (a preview of the graded case, not a grade)",
        "Preview.saxpy  not measured",
        "preview skipped: not timed: the code it times returned cudaErrorNotYetImplemented"}) {
    EXPECT_NE(text.find(expected, section), std::string::npos) << "missing '" << expected << "' in:\n" << text;
  }
  EXPECT_EQ(text.find("Performance (median of interleaved rounds"), std::string::npos) << text;
}

TEST(PreviewReport, TextSaysWhenThePreviewIsMet) {
  // 805 MB in 0.29 ms = 2777 GB/s = 93% of 3000 GB/s.
  const std::string text = text_of(self_check_with_preview(0.29));
  EXPECT_NE(text.find("Preview.vector_add  meets the preview threshold"), std::string::npos) << text;
  EXPECT_NE(text.find("preview threshold at least 85%: met"), std::string::npos) << text;
}

TEST(PreviewReport, TextSaysWhyThePreviewWasSkippedWithoutAGpu) {
  GradeResult report = self_check_with_preview(0.5);
  report.status = RunStatus::NoCudaDevice;
  for (ScoredTest& test : report.tests) {
    test.outcome = {test.name, TestStatus::Skipped, "no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice", 0};
    test.performance.reset();
  }
  const std::string text = text_of(report);
  EXPECT_NE(text.find("Preview.vector_add  not measured\n      preview skipped: no CUDA device is usable here"),
            std::string::npos)
      << text;
}

TEST(PreviewReport, HtmlShowsThePreviewWithoutPointsOrAComparisonBar) {
  const std::string html = html_report(self_check_with_preview(0.5), ReportView{false});
  EXPECT_NE(html.find("Preview.vector_add</span>"), std::string::npos);
  EXPECT_NE(html.find("timing preview, not a grade (no points)"), std::string::npos) << html;
  EXPECT_EQ(html.find("nothing (timed alone)"), std::string::npos) << "a preview has no second bar";
}

TEST(PreviewReport, JsonMarksThePreviewAndWhetherItWasMet) {
  const nlohmann::json json = report_to_json(self_check_with_preview(0.5));
  bool seen_measured = false;
  bool seen_skipped = false;
  for (const nlohmann::json& test : json["tests"]) {
    if (test["name"].get<std::string>().rfind("Preview.", 0) != 0) {
      EXPECT_FALSE(test.contains("preview")) << test.dump();
      continue;
    }
    EXPECT_EQ(test["points_possible"], 0);
    EXPECT_EQ(test["preview"]["not_a_grade"], true);
    if (test["name"] == "Preview.vector_add") {
      seen_measured = true;
      EXPECT_EQ(test["preview"]["threshold_met"], false);
      EXPECT_EQ(test["performance"]["compared_with"], "nothing");
      EXPECT_NEAR(test["performance"]["verdict"]["limit"].get<double>(), 0.85, 1e-12);
    } else {
      seen_skipped = true;
      EXPECT_TRUE(test["preview"]["threshold_met"].is_null());
      EXPECT_EQ(test["status"], "skipped");
    }
  }
  EXPECT_TRUE(seen_measured && seen_skipped) << json.dump(2);
  EXPECT_EQ(json["points_possible"], 20);
}

}  // namespace
}  // namespace labgrade
