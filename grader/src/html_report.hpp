#pragma once
// One self-contained HTML page: inline CSS and SVG charts, no script, nothing fetched.
#include <filesystem>
#include <string>

#include "grade_report.hpp"
#include "report_common.hpp"

namespace labgrade {

std::string html_report(const GradeReport& report, const ReportView& view);

void write_html_report(const std::filesystem::path& file, const GradeReport& report, const ReportView& view);

}  // namespace labgrade
