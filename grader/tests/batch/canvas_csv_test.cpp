// canvas.csv: a Canvas gradebook import from the instructor's roster, students matched by SIS User
// ID, the late penalty applied, nobody dropped (unmatched students and submissions listed); a
// malformed roster is refused with its file, line and what was expected.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "batch/batch_outputs.hpp"
#include "batch/canvas_csv.hpp"
#include "batch/late_penalty.hpp"
#include "batch/summary_page.hpp"

namespace {

using namespace labgrade::batch;
namespace fs = std::filesystem;

// A Canvas gradebook export used as the roster, as it comes: a BOM, CRLF, the "Points Possible"
// row, an assignment column of its own, a quoted name with a comma.
const std::string kRoster =
    "\xEF\xBB\xBFStudent,ID,SIS User ID,SIS Login ID,Section,Lab 0 (101)\r\n"
    "    Points Possible,,,,,10\r\n"
    "\"Lovelace, Ada\",5001,ada,ada@uni.edu,CS 101 A,10\r\n"
    "Grace Hopper,5002,grace,grace@uni.edu,CS 101 A,9\r\n"
    "Alan Turing,5003,alan,alan@uni.edu,CS 101 B,\r\n"
    "Edsger Dijkstra,5004,edsger,edsger@uni.edu,CS 101 B,7\r\n";

SubmissionRow row(const std::string& id, const std::string& status, std::optional<double> raw,
                  std::optional<std::int64_t> submitted_at = std::nullopt) {
  SubmissionRow r;
  r.student_id = id;
  r.status = status;
  r.points_possible = 100;
  r.raw_points = raw;
  r.total = raw;
  r.submitted_at = submitted_at;
  return r;
}

TEST(CanvasCsv, RosterStudentsMatchedBySisIdWithTheLatePenaltyApplied) {
  const std::vector<RosterStudent> roster = parse_canvas_roster(kRoster, "roster.csv");
  ASSERT_EQ(roster.size(), 4u) << "the Points Possible row is not a student";
  EXPECT_EQ(roster[0].name, "Lovelace, Ada");
  EXPECT_EQ(roster[0].line, 3u);

  // grace submitted two days late: the lab's policy takes 10% a day of her 80 points.
  cudalabs::config::LatePolicy policy;
  policy.due = 1'700'000'000;
  policy.penalty_percent_per_day = 10;
  policy.max_penalty_percent = 50;
  SubmissionRow grace = row("grace", status::kGraded, 80, policy.due + 86400 + 60);
  const auto penalty = late_penalty(policy, grace.submitted_at, *grace.raw_points);
  ASSERT_TRUE(penalty);
  grace.late_days = penalty->days_late;
  grace.late_penalty_points = penalty->points;
  grace.total = *grace.raw_points - penalty->points;

  const std::vector<SubmissionRow> rows{
      row("ada", status::kGraded, 92.5), grace,
      row("edsger", status::kNoCudaDevice, std::nullopt),  // compiled, not graded: no cell value
      row("mallory", status::kCompileError, 0)};            // not on the roster
  const CanvasGradebook canvas = canvas_gradebook(roster, rows, "Lab 1: vector add", 100);
  EXPECT_EQ(canvas.csv,
            "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1: vector add\r\n"
            "Points Possible,,,,,100\r\n"
            "\"Lovelace, Ada\",5001,ada,ada@uni.edu,CS 101 A,92.5\r\n"
            "Grace Hopper,5002,grace,grace@uni.edu,CS 101 A,64\r\n"
            "Alan Turing,5003,alan,alan@uni.edu,CS 101 B,\r\n"
            "Edsger Dijkstra,5004,edsger,edsger@uni.edu,CS 101 B,\r\n");
  EXPECT_EQ(canvas.roster_students, 4u);
  EXPECT_EQ(canvas.matched, 3u);
  ASSERT_EQ(canvas.without_submission.size(), 1u);
  EXPECT_EQ(canvas.without_submission[0].sis_user_id, "alan");
  ASSERT_EQ(canvas.not_on_roster.size(), 1u);
  EXPECT_EQ(canvas.not_on_roster[0].sis_user_id, "mallory");
  EXPECT_EQ(canvas.unmatched_csv,
            "kind,sis_user_id,submission,name,section,status,total\r\n"
            "roster student without a submission,alan,,Alan Turing,CS 101 B,,\r\n"
            "submission not on the roster,mallory,mallory,,,compile_error,0\r\n");
  EXPECT_EQ(canvas_summary_line(canvas),
            "canvas.csv: 3 of 4 roster students matched a submission by SIS User ID; no submission from: alan "
            "(Alan Turing); not on the roster (not in canvas.csv): mallory (compile_error, 0); all listed in "
            "canvas_unmatched.csv");

  // The summary page lists them too.
  cudalabs::config::LabConfig lab;
  lab.id = "01_vector_add";
  SummaryInput input{&lab, &rows, std::nullopt, nullptr};
  input.canvas = &canvas;
  const std::string html = summary_page(input);
  EXPECT_NE(html.find("<h2>Canvas import</h2>"), std::string::npos);
  EXPECT_NE(html.find("3 of 4 roster students"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"name\">alan</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"name\">mallory</td>"), std::string::npos) << html;
}

TEST(CanvasCsv, AGroupSubmissionGradesEachMember) {
  const std::vector<RosterStudent> roster = parse_canvas_roster(kRoster, "roster.csv");
  const CanvasGradebook canvas =
      canvas_gradebook(roster, {row("ada+alan+zoe", status::kGraded, 70)}, "01_vector_add", 100);
  EXPECT_NE(canvas.csv.find("\"Lovelace, Ada\",5001,ada,ada@uni.edu,CS 101 A,70\r\n"), std::string::npos);
  EXPECT_NE(canvas.csv.find("Alan Turing,5003,alan,alan@uni.edu,CS 101 B,70\r\n"), std::string::npos);
  EXPECT_EQ(canvas.matched, 2u);
  ASSERT_EQ(canvas.not_on_roster.size(), 1u);
  EXPECT_EQ(canvas.not_on_roster[0].sis_user_id, "zoe");
  EXPECT_EQ(canvas.not_on_roster[0].student_id, "ada+alan+zoe");
}

// The error's text, or "" when the roster parses.
std::string roster_error(const std::string& text) {
  try {
    parse_canvas_roster(text, "roster.csv");
    return "";
  } catch (const RosterError& error) {
    return error.what();
  }
}

TEST(CanvasCsv, AMalformedRosterNamesFileLineAndWhatWasExpected) {
  EXPECT_EQ(roster_error("Name,SIS User ID\nAda,ada\n"),
            "roster.csv:1: the header has no 'Student' column; expected a header row naming at least the columns "
            "Student and SIS User ID (optionally ID, SIS Login ID, Section), then one row per student; Canvas's "
            "gradebook export has this form");
  EXPECT_EQ(roster_error("Student,SIS User ID,Section\nAda,ada,A\nLovelace, Ada,ada2,A\n"),
            "roster.csv:3: 4 fields where the header has 3; expected one field per column (a field holding a comma "
            "must be quoted)");
  EXPECT_EQ(roster_error("Student,SIS User ID\nAda,ada\n\"Grace,grace\nAlan,alan\n"),
            "roster.csv:3: a quoted field is never closed; expected a closing '\"' before the end of the file");
  EXPECT_EQ(roster_error("Student,SIS User ID\nAda,ada\nGrace,\n"),
            "roster.csv:3: student 'Grace' has no SIS User ID; expected the id the submissions are named by (a "
            "folder or archive name, or Gradescope's :sid)");
  EXPECT_EQ(roster_error("Student,SIS User ID\nAda,ada\nAda Again,ada\n"),
            "roster.csv:3: SIS User ID 'ada' again (first on line 2); expected each student once");
  EXPECT_NE(roster_error("").find("roster.csv:1: the file is empty"), std::string::npos);
  EXPECT_NE(roster_error("Student,SIS User ID\r\n").find("roster.csv:1: no student after the header"),
            std::string::npos);
  EXPECT_EQ(roster_error("Student,SIS User ID\nA\"da,ada\n").rfind("roster.csv:2: a '\"' inside an unquoted field", 0),
            0u);
  // A quoted field may hold a line break: later lines keep their numbers.
  EXPECT_EQ(roster_error("Student,SIS User ID\n\"Ada\nLovelace\",ada\nGrace,\n"),
            "roster.csv:4: student 'Grace' has no SIS User ID; expected the id the submissions are named by (a "
            "folder or archive name, or Gradescope's :sid)");
}

TEST(CanvasCsv, WrittenBesideTheGradebook) {
  const fs::path out = fs::path(::testing::TempDir()) / "canvas_csv_outputs";
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out / "roster.csv") << kRoster;
  cudalabs::config::LabConfig lab;
  lab.id = "01_vector_add";
  lab.total_points = 100;
  const CanvasGradebook canvas = write_canvas_outputs(lab, {row("ada", status::kGraded, 50)}, out,
                                                      read_canvas_roster(out / "roster.csv"), "");
  std::ifstream in(out / "canvas.csv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), canvas.csv);
  EXPECT_EQ(text.str().substr(0, text.str().find('\r')), "Student,ID,SIS User ID,SIS Login ID,Section,01_vector_add")
      << "the lab's id names the column by default";
  EXPECT_TRUE(fs::exists(out / "canvas_unmatched.csv"));
  try {
    read_canvas_roster(out / "missing.csv");
    ADD_FAILURE() << "read a missing roster";
  } catch (const RosterError& error) {
    EXPECT_NE(std::string(error.what()).find("missing.csv: cannot read the roster"), std::string::npos);
  }
}

}  // namespace
