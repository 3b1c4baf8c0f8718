#include "release/release_contents.hpp"

namespace labgrade {

std::vector<std::filesystem::path> released_paths(const std::vector<std::string>& labs) {
  std::vector<std::filesystem::path> paths{
      "cmake",
      "course/CMakeLists.txt", "course/include", "course/src",
      "common/CMakeLists.txt", "common/include", "common/src",
      "grader/CMakeLists.txt", "grader/src", "grader/REPORT_SCHEMA.md",
      "config/course.yaml",
  };
  for (const std::string& lab : labs) paths.push_back(std::filesystem::path("labs") / lab);
  return paths;
}

std::vector<std::filesystem::path> withheld_paths() {
  return {"grader/src/batch", "grader/src/similarity", "grader/src/serve", "cmake/CudalabsFindSQLite3.cmake"};
}

}  // namespace labgrade
