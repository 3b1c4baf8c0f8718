#include "report/report_outputs.hpp"

#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "report/report_common.hpp"
#include "report/report_formats.hpp"
#include "report/text_report.hpp"

namespace labgrade {
namespace {

struct Destination {
  const ReportFormat* format;
  std::filesystem::path file;
};

const ReportFormat& format_named(const std::string& name) {
  const ReportFormat* format = find_report_format(name);
  if (!format) {
    throw UsageError(fmt::format("unknown report format '{}' ({})", name, report_format_names(" or ")));
  }
  return *format;
}

// Why is_a_grade is false, in a few words.
std::string not_a_grade_reason(const GradeResult& report) {
  if (report.mode != "grade") return "a self-check";
  switch (report.status) {
    case RunStatus::NoCudaDevice: return "no CUDA device: the tests did not run";
    case RunStatus::ConfigurationError: return "a configuration error";
    case RunStatus::MachineBusy: return "the machine was too busy to time it fairly: grade again";
    default: return fmt::format("status {}", run_status_name(report.status));
  }
}

std::string stdout_format(const ReportOutputs& outputs) {
  return outputs.output_dir.empty() && !outputs.formats.empty() ? outputs.formats.front() : "text";
}

// Into --output-dir first (the formats asked for, or all), then the files named one by one.
std::vector<Destination> destinations(const ReportOutputs& outputs) {
  std::vector<Destination> out;
  if (!outputs.output_dir.empty()) {
    if (outputs.formats.empty()) {
      for (const ReportFormat& format : report_formats()) {
        out.push_back({&format, outputs.output_dir / format.default_file});
      }
    }
    for (const auto& name : outputs.formats) {
      const ReportFormat& format = format_named(name);
      out.push_back({&format, outputs.output_dir / format.default_file});
    }
  }
  for (const ReportFormat& format : report_formats()) {
    const auto file = outputs.files.find(std::string(format.name));
    if (file != outputs.files.end() && !file->second.empty()) out.push_back({&format, file->second});
  }
  return out;
}

}  // namespace

bool is_a_grade(const GradeResult& report) {
  if (report.mode != "grade") return false;
  switch (report.status) {
    case RunStatus::Graded:
    case RunStatus::SubmissionRejected:
    case RunStatus::RuleViolation:
      return true;
    default:
      return false;
  }
}

void prepare_report_outputs(const ReportOutputs& outputs) {
  for (const auto& name : outputs.formats) format_named(name);
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
      check_report_path(destination.file, destination.format->display_name);
    } catch (const std::runtime_error& error) {
      throw UsageError(error.what());
    }
  }
}

void emit_reports(const GradeResult& report, const ReportOutputs& outputs, std::ostream& out, bool out_is_tty,
                  std::ostream& notes) {
  const ReportView view{!outputs.student_view};
  const bool graded = is_a_grade(report);
  // A score format only for a grade; otherwise nothing, so that a results.json made from stdout stays empty.
  const auto withheld = [&](const ReportFormat& format, const std::string& where) {
    if (!format.read_as_a_score || graded) return false;
    notes << fmt::format("labgrade: no {} report written to {}: this run is not a grade ({}), and a {} report "
                         "would be read as a score of 0\n",
                         format.display_name, where, not_a_grade_reason(report), format.display_name);
    return true;
  };
  const std::string on_stdout = stdout_format(outputs);
  if (on_stdout == "text") {
    TextStyle style = text_style_for_terminal(out_is_tty);
    style.show_hidden_details = view.show_hidden_details;
    write_text_report(out, report, style);
  } else if (const ReportFormat& format = format_named(on_stdout); !withheld(format, "stdout")) {
    out << format.render(report, view);
  }
  out.flush();
  std::ostream& where = on_stdout == "text" ? out : notes;
  for (const auto& destination : destinations(outputs)) {
    const std::string name(destination.format->display_name);
    const bool existed = std::filesystem::exists(destination.file);
    if (withheld(*destination.format, destination.file.string())) {
      if (existed) notes << "  (the file already there is left as it was)\n";
      continue;
    }
    write_report_file(destination.file, destination.format->render(report, view), name);
    where << "  " << name << " report: " << destination.file.string() << "\n";
  }
}

}  // namespace labgrade
