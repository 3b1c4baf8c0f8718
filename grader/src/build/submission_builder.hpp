#pragma once
// Compiles staged student files into the shared library the lab harnesses load.
#include <filesystem>
#include <vector>

#include "build/build_recipe.hpp"
#include "model/grade_result.hpp"
#include "sandbox/resource_limits.hpp"

namespace labgrade {

struct BuildRequest {
  BuildRecipe recipe;
  std::vector<std::filesystem::path> staged_files;
  std::filesystem::path output_dir;  // the library is written here, next to the harness copies
  double timeout_seconds = 300;
  std::uint64_t max_output_bytes = 1 << 20;
  ResourceLimits limits;  // for the compiler (see sandbox/containment_rules.hpp)
};

BuildSummary build_student_library(const BuildRequest& request);

// Copies a harness next to the student library, so its $ORIGIN run path finds that library.
std::filesystem::path place_harness(const std::filesystem::path& harness, const std::filesystem::path& output_dir);

}  // namespace labgrade
