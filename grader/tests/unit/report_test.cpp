#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "report/json_report.hpp"
#include "report/text_report.hpp"

namespace labgrade {
namespace {

GradeResult sample_report() {
  GradeResult report;
  report.mode = "grade";
  report.lab = "01_vector_add";
  report.title = "Vector addition and SAXPY";
  report.submission = "alice/";
  report.device = "NVIDIA H100 80GB HBM3";
  report.build = {true, true, "nvcc ...", "", 12.5, {}};
  ScoredTest passed{"VectorAdd.SingleElement", cudalabs::config::Visibility::Hidden, 4, 4,
                    {"VectorAdd.SingleElement", TestStatus::Passed, "", 0.01}, {}, {}};
  ScoredTest crashed{"VectorAdd.Full2To26", cudalabs::config::Visibility::Hidden, 8, 0,
                     {"VectorAdd.Full2To26", TestStatus::Crashed, "killed by SIGSEGV \xff", 0.2}, {}, {}};
  report.tests = {passed, crashed};
  report.points_earned = 4;
  report.points_possible = 12;
  report.test_seconds = 1.5;
  report.total_seconds = 14.2;
  return report;
}

TEST(JsonReport, CarriesScoreStatusTestsAndTiming) {
  const nlohmann::json json = report_to_json(sample_report());
  EXPECT_EQ(json["schema_version"], 1);
  EXPECT_EQ(json["status"], "graded");
  EXPECT_EQ(json["exit_code"], 0);
  EXPECT_EQ(json["points_earned"], 4);
  EXPECT_EQ(json["points_possible"], 12);
  ASSERT_EQ(json["tests"].size(), 2u);
  EXPECT_EQ(json["tests"][1]["status"], "crashed");
  EXPECT_EQ(json["tests"][1]["visibility"], "hidden");
  EXPECT_EQ(json["timing"]["build_seconds"], 12.5);
  EXPECT_EQ(json["timing"]["test_seconds"], 1.5);
}

TEST(JsonReport, WritesValidJsonEvenFromInvalidUtf8Output) {
  const auto file = std::filesystem::path(::testing::TempDir()) / "report_test.json";
  write_json_report(file, sample_report());
  std::ifstream in(file);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["lab"], "01_vector_add");
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".partial"));
}

TEST(TextReport, ShowsEachTestItsPointsAndTheTotal) {
  std::ostringstream out;
  write_text_report(out, sample_report(), TextStyle{});
  const std::string text = out.str();
  for (const char* expected : {"01_vector_add", "VectorAdd.SingleElement", "VectorAdd.Full2To26", "crashed",
                               "killed by SIGSEGV", "Score: 4 / 12"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing '" << expected << "' in:\n" << text;
  }
  EXPECT_EQ(text.find("\x1b["), std::string::npos) << "no colour codes without a terminal";
}

}  // namespace
}  // namespace labgrade
