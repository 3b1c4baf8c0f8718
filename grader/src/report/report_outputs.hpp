#pragma once
// Which reports a labgrade run writes, and where: the options of `grade` and `check`. The formats
// themselves are listed in report_formats.hpp.
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "model/grade_result.hpp"

namespace labgrade {

struct ReportOutputs {
  // --format: without an output directory, the one format printed on stdout (default text);
  // with one, the formats written into it (default all), while stdout gets the text report.
  std::vector<std::string> formats;
  std::filesystem::path output_dir;
  // A file per format (--json FILE, --html FILE, ...), on top of the above; keyed by format name.
  std::map<std::string, std::filesystem::path> files;
  bool student_view = false;  // hide hidden tests' details in text, JUnit and HTML (Gradescope always does)
};

// Refuses a request that cannot be carried out, before minutes are spent on a grade: throws
// UsageError for an unknown format, several formats for stdout, or a path that cannot be written.
// Creates the output directory.
void prepare_report_outputs(const ReportOutputs& outputs);

// Whether a run produced a grade: `grade` with its status Graded (a compile error included: 0),
// SubmissionRejected or RuleViolation (0). Not a grade: a self-check, a run without a GPU, a
// configuration error; labgrade's own failures end before any report.
bool is_a_grade(const GradeResult& report);

// Prints the stdout report on `out` and writes every requested file, each atomically; notes
// where each file went (on `out` when it carries text, else on `notes`). A format read as a score
// (Gradescope) is left unwritten, and an existing file untouched, when the run is not a grade:
// `notes` says so. Throws std::runtime_error when a file cannot be written.
void emit_reports(const GradeResult& report, const ReportOutputs& outputs, std::ostream& out, bool out_is_tty,
                  std::ostream& notes);

}  // namespace labgrade
