#pragma once
// canvas.csv: the batch's grades as a Canvas gradebook import (`labgrade batch --canvas-roster
// ROSTER`), one row per student of the instructor's roster, matched to the submissions by SIS
// User ID. Nothing is dropped: roster students without a submission keep an empty cell, and
// submissions whose id is on no roster row are listed (canvas_unmatched.csv, the summary page,
// the command's output).
//
// Canvas's gradebook import (Grades > Import) reads the columns of its own export: Student, ID,
// SIS User ID, SIS Login ID, Section, then one column per assignment; a "Points Possible" row may
// follow the header (PrairieLearn's Canvas export, apps/prairielearn/src/lib/canvas-csv.ts, writes
// the same five fixed columns and that row; Ohio State's CarmenCanvas guide "Import a CSV file to
// Carmen Grades" lists Student/ID/SIS User ID, SIS Login ID, Section and the assignment name as
// the required parts). A column named like no assignment of the course creates one; "Name (123)"
// names assignment 123.
//
// The roster (README.md, "Canvas gradebook"): UTF-8 CSV (RFC 4180), a header row naming at least
// `Student` and `SIS User ID`, and optionally `ID`, `SIS Login ID` and `Section` (copied into
// canvas.csv); other columns are ignored, so Canvas's own gradebook export is a roster as it is
// (its "Points Possible" row is skipped).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "results_store.hpp"

namespace labgrade::batch {

// A malformed roster: the message names the file, the line and what was expected there.
class RosterError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RosterStudent {
  std::string name;          // Student
  std::string canvas_id;     // ID
  std::string sis_user_id;   // SIS User ID: what the submissions are matched by
  std::string sis_login_id;  // SIS Login ID
  std::string section;       // Section
  std::size_t line = 0;      // where it is in the roster
};

// Throws RosterError ("roster.csv:4: ...") for a roster that cannot be read as described above:
// no header, a required column missing, a row with another number of fields than the header, an
// unclosed quote, a student without an SIS User ID, the same SIS User ID twice, no student at all.
std::vector<RosterStudent> parse_canvas_roster(std::string_view text, const std::string& file_name);
std::vector<RosterStudent> read_canvas_roster(const std::filesystem::path& file);

// A submission (or, of a group submission "a+b", one member) that no roster row names.
struct UnmatchedSubmission {
  std::string sis_user_id;  // the id that matched nothing
  std::string student_id;   // the submission's id (the group's, for a member)
  std::string name;
  std::string status;
  std::optional<double> total;
};

struct CanvasGradebook {
  std::string csv;            // canvas.csv
  std::string unmatched_csv;  // canvas_unmatched.csv: every unmatched roster student and submission
  std::size_t roster_students = 0;
  std::size_t matched = 0;  // roster students with a submission
  std::vector<RosterStudent> without_submission;
  std::vector<UnmatchedSubmission> not_on_roster;
};

// The assignment's cell is the submission's total (after the late penalty; rows.total), empty
// when there is no grade (no submission, no CUDA device, labgrade's own failure). A group
// submission's ids ("a+b", from Gradescope) each get the group's grade.
CanvasGradebook canvas_gradebook(const std::vector<RosterStudent>& roster, const std::vector<SubmissionRow>& rows,
                                 const std::string& assignment, double points_possible);

// "canvas.csv: 3 of 4 roster students have a grade; no submission from: s4 (Dan Brown); not on
// the roster: zed (graded, 0)": one paragraph for the command's output.
std::string canvas_summary_line(const CanvasGradebook& gradebook);

}  // namespace labgrade::batch
