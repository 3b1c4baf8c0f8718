#include "report/report_formats.hpp"

#include <sstream>

#include "cudalabs/course/name_list.hpp"
#include "report/gradescope_report.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/prairielearn_report.hpp"
#include "report/text_report.hpp"

namespace labgrade {
namespace {

// Compiler and student output may hold invalid UTF-8: replace it rather than fail the report.
std::string dump(const nlohmann::json& json) {
  return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_text(const GradeResult& report, const ReportView& view) {
  std::ostringstream text;
  write_text_report(text, report, TextStyle{false, view.show_hidden_details});
  return text.str();
}

std::string render_json(const GradeResult& report, const ReportView&) { return dump(report_to_json(report)); }

std::string render_gradescope(const GradeResult& report, const ReportView&) {
  return dump(gradescope_results(report));
}

}  // namespace

const std::vector<ReportFormat>& report_formats() {
  static const std::vector<ReportFormat> formats{
      {"text", "text", "", "", "report.txt", false, render_text},
      {"json", "JSON", "--json", "Also write the report as JSON to this file", "report.json", false, render_json},
      {"junit", "JUnit", "--junit", "Also write the report as JUnit XML to this file", "report.junit.xml", false,
       junit_report},
      {"gradescope", "Gradescope", "--gradescope",
       "Also write Gradescope's results.json to this file, only when the run is a grade (not without a GPU, "
       "not for check)",
       "results.json", true, render_gradescope},
      {"html", "HTML", "--html", "Also write the report as a self-contained HTML page to this file", "report.html",
       false, html_report},
      // Written for every run: one that is not a grade says so ("gradable": false) rather than score 0.
      {"prairielearn", "PrairieLearn", "--prairielearn",
       "Also write PrairieLearn's external-grader results.json to this file (\"gradable\": false when the run "
       "is not a grade)",
       "prairielearn_results.json", false, prairielearn_report},
  };
  return formats;
}

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& format : report_formats()) {
    if (format.name == name) return &format;
  }
  return nullptr;
}

std::string report_format_names(std::string_view last_separator) {
  std::vector<std::string_view> names;
  for (const ReportFormat& format : report_formats()) names.push_back(format.name);
  return cudalabs::config::name_list(names, last_separator);
}

}  // namespace labgrade
