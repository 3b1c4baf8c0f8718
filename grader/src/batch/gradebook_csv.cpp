#include "gradebook_csv.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "cudalabs/course/timestamp.hpp"

namespace labgrade::batch {

std::string csv_field(const std::string& text) {
  std::string value = text;
  if (!value.empty() && std::string("=+-@\t\r").find(value.front()) != std::string::npos) value.insert(0, "'");
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (const char c : value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_points(const std::optional<double>& points) {
  if (!points) return "";
  const double rounded = std::round(*points * 100) / 100;
  return fmt::format("{:g}", rounded == 0 ? 0.0 : rounded);  // never "-0"
}

void write_gradebook(std::ostream& out, const cudalabs::config::LabConfig& lab, const std::vector<SubmissionRow>& rows) {
  std::vector<std::string> columns{"student_id", "name", "total", "points_possible", "status",
                                   "points_before_late_penalty", "late_days", "late_penalty_percent",
                                   "late_penalty_points", "submitted_at"};
  std::vector<std::string> tests;
  for (const auto& spec : lab.tests) tests.push_back(spec.name);
  for (const auto& spec : lab.performance) {
    if (!spec.preview) tests.push_back(spec.test_name());  // a timing preview is never graded
  }
  for (const auto& name : tests) columns.push_back(name);
  columns.emplace_back("detail");
  std::string line;
  for (const auto& column : columns) line += (line.empty() ? "" : ",") + csv_field(column);
  out << line << "\r\n";

  for (const SubmissionRow& row : rows) {
    std::map<std::string, double> earned;
    for (const TestRow& test : row.tests) earned[test.name] = test.points_earned;
    const bool graded = row.total.has_value();
    std::vector<std::string> cells{
        csv_field(row.student_id),
        csv_field(row.name),
        csv_points(row.total),
        csv_points(row.points_possible),
        csv_field(row.status),
        csv_points(row.raw_points),
        row.late_days ? std::to_string(*row.late_days) : "",
        row.late_days ? csv_points(row.late_penalty_percent) : "",
        row.late_days ? csv_points(row.late_penalty_points) : "",
        row.submitted_at ? cudalabs::config::format_timestamp_utc(*row.submitted_at) : ""};
    for (const auto& name : tests) {
      const auto found = earned.find(name);
      cells.push_back(graded ? csv_points(found == earned.end() ? 0.0 : found->second) : "");
    }
    cells.push_back(csv_field(row.detail.substr(0, row.detail.find('\n'))));  // the reports have the rest
    line.clear();
    for (std::size_t i = 0; i < cells.size(); ++i) line += (i ? "," : "") + cells[i];
    out << line << "\r\n";
  }
}

}  // namespace labgrade::batch
