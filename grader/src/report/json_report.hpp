#pragma once
// The machine-readable report (`labgrade ... --json PATH`). Schema: grader/REPORT_SCHEMA.md.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "model/grade_result.hpp"

namespace labgrade {

// 2: points_earned (the run's and each test's) is null when the run has no score (has_score);
// build.kernels added (fields are only added within a version).
inline constexpr int kReportSchemaVersion = 2;

nlohmann::json report_to_json(const GradeResult& report);

// Writes atomically (temporary file, then rename), so a reader never sees half a report.
void write_json_report(const std::filesystem::path& file, const GradeResult& report);

}  // namespace labgrade
