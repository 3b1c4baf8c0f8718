#pragma once
// Which reports a labgrade run writes, and where: the options of `grade` and `check`.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "model/grade_result.hpp"

namespace labgrade {

inline const std::vector<std::string> kReportFormats{"text", "json", "junit", "gradescope", "html"};

struct ReportOutputs {
  // --format: without an output directory, the one format printed on stdout (default text);
  // with one, the formats written into it (default all), while stdout gets the text report.
  std::vector<std::string> formats;
  std::filesystem::path output_dir;
  // A file per format, on top of the above.
  std::filesystem::path json, junit, gradescope, html;
  bool student_view = false;  // hide hidden tests' details in text, JUnit and HTML (Gradescope always does)
};

// The file name of `format` inside --output-dir: report.txt, report.json, report.junit.xml,
// results.json (Gradescope's name), report.html.
std::string default_file_name(const std::string& format);

// Refuses a request that cannot be carried out, before minutes are spent on a grade: throws
// UsageError for an unknown format, several formats for stdout, or a path that cannot be written.
// Creates the output directory.
void prepare_report_outputs(const ReportOutputs& outputs);

// Prints the stdout report on `out` and writes every requested file, each atomically; notes
// where each file went (on `out` when it carries text, else on `notes`). Throws
// std::runtime_error when a file cannot be written.
void emit_reports(const GradeResult& report, const ReportOutputs& outputs, std::ostream& out, bool out_is_tty,
                  std::ostream& notes);

}  // namespace labgrade
