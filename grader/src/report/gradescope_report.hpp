#pragma once
// Gradescope's autograder results (results.json,
// https://gradescope-autograders.readthedocs.io/en/latest/specs/). Everything in it is meant for
// the student, so hidden tests show only their name, status and points.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "model/grade_result.hpp"

namespace labgrade {

struct GradescopeOptions {
  // Gradescope visibility of the YAML's hidden tests. "after_published": students see them once
  // the instructor publishes the grades (Gradescope's other choices: "hidden", "after_due_date",
  // "visible"). Public tests are always "visible".
  std::string hidden_test_visibility = "after_published";
};

nlohmann::json gradescope_results(const GradeResult& report, const GradescopeOptions& options = {});

void write_gradescope_report(const std::filesystem::path& file, const GradeResult& report,
                             const GradescopeOptions& options = {});

}  // namespace labgrade
