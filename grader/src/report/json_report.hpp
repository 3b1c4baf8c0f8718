#pragma once
// The machine-readable report (`labgrade ... --json PATH`). Schema: grader/REPORT_SCHEMA.md.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "model/grade_result.hpp"

namespace labgrade {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::json report_to_json(const GradeResult& report);

// Writes atomically (temporary file, then rename), so a reader never sees half a report.
void write_json_report(const std::filesystem::path& file, const GradeResult& report);

}  // namespace labgrade
