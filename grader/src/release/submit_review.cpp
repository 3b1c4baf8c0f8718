#include "release/submit_review.hpp"

#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "build/build_recipe.hpp"
#include "build/submission_builder.hpp"
#include "release/todo_scan.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace {

// The compiler's first error line, shortened to the file's own name.
std::string first_error(const std::string& output, const fs::path& staged_dir) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("error") == std::string::npos) continue;
    const std::string prefix = staged_dir.string() + "/";
    for (auto at = line.find(prefix); at != std::string::npos; at = line.find(prefix)) line.erase(at, prefix.size());
    return line;
  }
  return "";
}

}  // namespace

std::vector<std::string> review_packed_files(const CoursePaths& paths, const std::string& lab,
                                             const cudalabs::config::CourseConfig& course,
                                             const std::vector<fs::path>& staged, const fs::path& scratch) {
  std::vector<std::string> warnings;
  if (const auto todos = functions_marked_todo_in(staged); !todos.empty()) {
    warnings.push_back(fmt::format("your code still marks {} TODO(student): {} (is this the version you mean to "
                                   "hand in? `labgrade check {}` runs the public tests)",
                                   todos.size() == 1 ? "this function" : "these functions", fmt::join(todos, ", "),
                                   lab));
  }
  const fs::path recipe_file = paths.build_recipe(lab);
  if (!fs::exists(recipe_file)) return warnings;
  const BuildRecipe recipe = load_build_recipe(recipe_file);
  if (!fs::exists(recipe.nvcc)) {
    warnings.push_back(fmt::format("could not check that your code compiles: no nvcc at {} on this machine",
                                   recipe.nvcc));
    return warnings;
  }
  fs::create_directories(scratch);
  const BuildSummary build = build_student_library(
      BuildRequest{recipe, staged, scratch, course.build_timeout_seconds, course.max_output_bytes,
                   course.compiler_limits});
  if (!build.succeeded) {
    const std::string error = staged.empty() ? "" : first_error(build.output, staged.front().parent_path());
    warnings.push_back(fmt::format("your code does not compile, so a grade of it is 0{} (`labgrade check {}` shows "
                                   "the compiler's messages)",
                                   error.empty() ? "" : ": " + error, lab));
  }
  return warnings;
}

}  // namespace labgrade
