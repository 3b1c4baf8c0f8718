// gradebook.csv: the documented columns in order, one row per student, numbers rounded, no
// grade left blank rather than zero, text quoted and defused for spreadsheets.
#include <sstream>

#include <gtest/gtest.h>

#include "batch/gradebook_csv.hpp"

namespace {

using namespace labgrade::batch;

cudalabs::config::LabConfig two_tests_one_case() {
  cudalabs::config::LabConfig lab;
  lab.id = "demo";
  lab.tests = {{"Add.Small", 30, cudalabs::config::Visibility::Public, 0},
               {"Add.Large", 50, cudalabs::config::Visibility::Hidden, 0}};
  cudalabs::config::PerformanceSpec timed;
  timed.name = "add_2to26";
  timed.points = 20;
  lab.performance = {timed};
  return lab;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.back() != '\r') {
      ADD_FAILURE() << "RFC 4180 lines end in CRLF: '" << line << "'";
      continue;
    }
    line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

TEST(GradebookCsv, ColumnsRowsAndBlanks) {
  SubmissionRow late;
  late.student_id = "alice";
  late.name = "Alice Liddell";
  late.status = status::kGraded;
  late.raw_points = 92.5;
  late.points_possible = 100;
  late.late_days = 2;
  late.late_penalty_percent = 20;
  late.late_penalty_points = 18.5;
  late.total = 74;
  late.submitted_at = 1790924340 + 2 * 86400 - 5;
  late.detail = "graded";
  late.tests = {{"Add.Small", false, "passed", 30, 30, {}, {}},
                {"Add.Large", false, "passed", 50, 50, {}, {}},
                {"Performance.add_2to26", true, "passed", 12.5, 20, 1.25, 1.0}};
  SubmissionRow no_gpu;
  no_gpu.student_id = "bob";
  no_gpu.status = status::kNoCudaDevice;
  no_gpu.points_possible = 100;
  no_gpu.detail = "not a grade: no CUDA device, \"skipped\"";
  no_gpu.tests = {{"Add.Small", false, "skipped", 0, 30, {}, {}}};

  std::ostringstream out;
  write_gradebook(out, two_tests_one_case(), {late, no_gpu});
  const std::vector<std::string> lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "student_id,name,total,points_possible,status,points_before_late_penalty,late_days,late_penalty_percent,"
            "late_penalty_points,submitted_at,Add.Small,Add.Large,Performance.add_2to26,detail");
  EXPECT_EQ(lines[1], "alice,Alice Liddell,74,100,graded,92.5,2,20,18.5,2026-10-04T06:58:55Z,30,50,12.5,graded");
  EXPECT_EQ(lines[2], "bob,,,100,no_cuda_device,,,,,,,,,\"not a grade: no CUDA device, \"\"skipped\"\"\"");
}

TEST(GradebookCsv, TimingPreviewsHaveNoColumn) {
  auto lab = two_tests_one_case();
  cudalabs::config::PerformanceSpec preview;
  preview.name = "add_2to26";
  preview.preview = true;
  preview.visibility = cudalabs::config::Visibility::Public;
  lab.performance.push_back(preview);
  std::ostringstream csv;
  write_gradebook(csv, lab, {});
  EXPECT_EQ(csv.str(),
            "student_id,name,total,points_possible,status,points_before_late_penalty,late_days,late_penalty_percent,"
            "late_penalty_points,submitted_at,Add.Small,Add.Large,Performance.add_2to26,detail\r\n");
}

TEST(GradebookCsv, FieldsAreQuotedAndFormulasDefused) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  EXPECT_EQ(csv_field("+1"), "'+1");
  EXPECT_EQ(csv_field("@sum"), "'@sum");
  EXPECT_EQ(csv_points(8.3333), "8.33");
  EXPECT_EQ(csv_points(-0.001), "0");
  EXPECT_EQ(csv_points(std::nullopt), "");
}

}  // namespace
