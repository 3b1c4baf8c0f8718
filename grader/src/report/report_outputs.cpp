#include "report/report_outputs.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "report/gradescope_report.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/report_common.hpp"
#include "report/text_report.hpp"
#include "session/grading_session.hpp"

namespace labgrade {
namespace {

struct Destination {
  std::string format;
  std::filesystem::path file;
};

// The name error messages use.
std::string display_name(const std::string& format) {
  if (format == "json") return "JSON";
  if (format == "junit") return "JUnit";
  if (format == "gradescope") return "Gradescope";
  if (format == "html") return "HTML";
  return "text";
}

std::string stdout_format(const ReportOutputs& outputs) {
  return outputs.output_dir.empty() && !outputs.formats.empty() ? outputs.formats.front() : "text";
}

std::vector<Destination> destinations(const ReportOutputs& outputs) {
  std::vector<Destination> out;
  if (!outputs.output_dir.empty()) {
    for (const auto& format : outputs.formats.empty() ? kReportFormats : outputs.formats) {
      out.push_back({format, outputs.output_dir / default_file_name(format)});
    }
  }
  const std::pair<const char*, const std::filesystem::path*> files[] = {
      {"json", &outputs.json}, {"junit", &outputs.junit}, {"gradescope", &outputs.gradescope}, {"html", &outputs.html}};
  for (const auto& [format, file] : files) {
    if (!file->empty()) out.push_back({format, *file});
  }
  return out;
}

// `format` rendered in full; text without colour.
std::string render(const std::string& format, const GradeResult& report, const ReportView& view) {
  if (format == "json") {
    // Compiler and student output may hold invalid UTF-8: replace it rather than fail the report.
    return report_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (format == "junit") return junit_report(report, view);
  if (format == "gradescope") {
    return gradescope_results(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  if (format == "html") return html_report(report, view);
  std::ostringstream text;
  write_text_report(text, report, TextStyle{false, view.show_hidden_details});
  return text.str();
}

}  // namespace

std::string default_file_name(const std::string& format) {
  if (format == "text") return "report.txt";
  if (format == "json") return "report.json";
  if (format == "junit") return "report.junit.xml";
  if (format == "gradescope") return "results.json";
  return "report.html";
}

void prepare_report_outputs(const ReportOutputs& outputs) {
  for (const auto& format : outputs.formats) {
    if (std::find(kReportFormats.begin(), kReportFormats.end(), format) == kReportFormats.end()) {
      throw UsageError(fmt::format("unknown report format '{}' (text, json, junit, gradescope or html)", format));
    }
  }
  if (outputs.output_dir.empty() && outputs.formats.size() > 1) {
    throw UsageError("stdout takes one --format; give --output-dir DIR to write several");
  }
  if (!outputs.output_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(outputs.output_dir, error);
    if (error || !std::filesystem::is_directory(outputs.output_dir)) {
      throw UsageError(fmt::format("cannot use {} as the output directory: {}", outputs.output_dir.string(),
                                   error ? error.message() : "it is not a directory"));
    }
  }
  for (const auto& destination : destinations(outputs)) {
    try {
      check_report_path(destination.file, display_name(destination.format));
    } catch (const std::runtime_error& error) {
      throw UsageError(error.what());
    }
  }
}

void emit_reports(const GradeResult& report, const ReportOutputs& outputs, std::ostream& out, bool out_is_tty,
                  std::ostream& notes) {
  const ReportView view{!outputs.student_view};
  const std::string on_stdout = stdout_format(outputs);
  if (on_stdout == "text") {
    TextStyle style = text_style_for_terminal(out_is_tty);
    style.show_hidden_details = view.show_hidden_details;
    write_text_report(out, report, style);
  } else {
    out << render(on_stdout, report, view);
  }
  out.flush();
  std::ostream& where = on_stdout == "text" ? out : notes;
  for (const auto& destination : destinations(outputs)) {
    const std::string name = display_name(destination.format);
    write_report_file(destination.file, render(destination.format, report, view), name);
    where << "  " << name << " report: " << destination.file.string() << "\n";
  }
}

}  // namespace labgrade
