#pragma once
// What `labgrade check` adds after its report: which functions are still TODOs (their tests say
// "<call> is still a TODO(student)") and where the handout goes on from there.
#include <filesystem>
#include <string>
#include <vector>

#include "model/grade_result.hpp"

namespace labgrade {

// The functions whose failing tests found them unimplemented, in the report's order, each once.
std::vector<std::string> unfinished_todos(const GradeResult& result);

// A few lines for the terminal; `handout` is the lab's README.md (its numbered "## Steps" list
// is searched for the first step that names the first unfinished function). `marked`: the
// functions the student's source still marks TODO(student) (todo_scan.hpp), listed even when no
// test could run.
std::string next_steps(const GradeResult& result, const std::filesystem::path& handout,
                       const std::vector<std::string>& marked = {});

}  // namespace labgrade
