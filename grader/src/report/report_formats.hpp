#pragma once
// The report formats labgrade writes: one entry each. `--format`'s choices, the `--json`-style
// options, the file names inside --output-dir, the help text and the validation all come from
// this table, so a new format is one entry here plus its renderer.
#include <string>
#include <string_view>
#include <vector>

#include "model/grade_result.hpp"
#include "report/report_common.hpp"

namespace labgrade {

struct ReportFormat {
  std::string_view name;          // --format value: "json"
  std::string_view display_name;  // in messages: "JSON"
  std::string_view option;        // a file of its own: "--json"; "" for none (text goes to stdout)
  std::string_view option_help;   // that option's help
  std::string_view default_file;  // its name inside --output-dir: "report.json"
  // A learning-management system reads this format as the student's score: written only for a
  // run that is a grade (is_a_grade), never for a self-check or a run that could not grade.
  bool read_as_a_score;
  // The whole report in this format (text without colour).
  std::string (*render)(const GradeResult& report, const ReportView& view);
};

// In the order reports are written and listed.
const std::vector<ReportFormat>& report_formats();

// nullptr for a name that is not a format.
const ReportFormat* find_report_format(std::string_view name);

// "text, json, junit, gradescope, html", with `last_separator` before the last one.
std::string report_format_names(std::string_view last_separator = ", ");

}  // namespace labgrade
