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
  EXPECT_EQ(json["schema_version"], 2);
  EXPECT_EQ(json["status"], "graded");
  EXPECT_EQ(json["exit_code"], 0);
  EXPECT_EQ(json["points_earned"], 4);
  EXPECT_EQ(json["points_possible"], 12);
  ASSERT_EQ(json["tests"].size(), 2u);
  EXPECT_EQ(json["tests"][1]["status"], "crashed");
  EXPECT_EQ(json["tests"][1]["visibility"], "hidden");
  EXPECT_EQ(json["timing"]["build_seconds"], 12.5);
  EXPECT_EQ(json["timing"]["test_seconds"], 1.5);
  EXPECT_EQ(json["timing"]["gpu_wait_seconds"], 0.0);
  EXPECT_EQ(json["timing"]["gpu_sharing"], "");
}

TEST(JsonReport, SaysHowTheGpuWasShared) {
  GradeResult report = sample_report();
  report.gpu_sharing = "shared correctness, exclusive timing";
  EXPECT_EQ(report_to_json(report)["timing"]["gpu_sharing"], "shared correctness, exclusive timing");
}

TEST(JsonReport, WritesValidJsonEvenFromInvalidUtf8Output) {
  const auto file = std::filesystem::path(::testing::TempDir()) / "report_test.json";
  write_json_report(file, sample_report());
  std::ifstream in(file);
  const auto json = nlohmann::json::parse(in);
  EXPECT_EQ(json["lab"], "01_vector_add");
  EXPECT_FALSE(std::filesystem::exists(file.string() + ".partial"));
}

TEST(JsonReport, ListsConstructsForReviewAndUnenforcedProtections) {
  GradeResult report = sample_report();
  EXPECT_TRUE(report_to_json(report)["review"].empty());
  report.review = {{"raw system call (syscall)", "vector_add.cu:12", "bypasses the C library"}};
  report.unenforced_protections = {"no TCP bind or connect (Landlock): needs Landlock ABI 4, this kernel has 3"};
  const nlohmann::json json = report_to_json(report);
  ASSERT_EQ(json["review"].size(), 1u);
  EXPECT_EQ(json["review"][0]["construct"], "raw system call (syscall)");
  EXPECT_EQ(json["review"][0]["where"], "vector_add.cu:12");
  EXPECT_EQ(json["unenforced_protections"][0], report.unenforced_protections[0]);
}

TEST(TextReport, ListsConstructsForTheInstructorOnly) {
  GradeResult report = sample_report();
  report.review = {{"inline assembly", "vector_add.cu:3", "can do anything"}};
  std::ostringstream instructor, student;
  write_text_report(instructor, report, TextStyle{});
  TextStyle student_view;
  student_view.show_hidden_details = false;
  write_text_report(student, report, student_view);
  EXPECT_NE(instructor.str().find("For the instructor to review (not scored):"), std::string::npos) << instructor.str();
  EXPECT_NE(instructor.str().find("vector_add.cu:3: inline assembly"), std::string::npos) << instructor.str();
  EXPECT_EQ(student.str().find("For the instructor to review"), std::string::npos) << student.str();
  std::ostringstream clean;
  write_text_report(clean, sample_report(), TextStyle{});
  EXPECT_EQ(clean.str().find("For the instructor to review"), std::string::npos);
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

TEST(TextReport, SaysHowLongItWaitedForTheGpuApartFromTestTime) {
  GradeResult report = sample_report();
  std::ostringstream idle;
  write_text_report(idle, report, TextStyle{});
  EXPECT_NE(idle.str().find("Time: 14.2 s in all: staging 0.00 s, build 12.5 s, tests 1.5 s\n"), std::string::npos)
      << idle.str();
  report.gpu_wait_seconds = 3.14;
  std::ostringstream waited;
  write_text_report(waited, report, TextStyle{});
  EXPECT_NE(waited.str().find("tests 1.5 s, waited 3.1 s for the GPU\n"), std::string::npos) << waited.str();
}

}  // namespace
}  // namespace labgrade
