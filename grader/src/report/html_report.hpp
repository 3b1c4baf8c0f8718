#pragma once
// One self-contained HTML page: inline CSS and SVG charts, no script, nothing fetched.
#include <filesystem>
#include <string>

#include "model/grade_result.hpp"
#include "report/report_common.hpp"

namespace labgrade {

std::string html_report(const GradeResult& report, const ReportView& view);

void write_html_report(const std::filesystem::path& file, const GradeResult& report, const ReportView& view);

}  // namespace labgrade
