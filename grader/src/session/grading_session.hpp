#pragma once
// One labgrade run from start to report: load the YAML, stage, build, run, score.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/grade_result.hpp"

namespace labgrade {

struct CoursePaths {
  std::filesystem::path root;       // the course tree: config/, labs/, ...
  std::filesystem::path build_dir;  // the CMake build tree holding the harnesses and recipes

  std::filesystem::path course_config() const { return root / "config" / "course.yaml"; }
  std::filesystem::path lab_config(const std::string& lab) const { return root / "config" / "labs" / (lab + ".yaml"); }
  std::filesystem::path lab_dir(const std::string& lab) const { return root / "labs" / lab; }
  std::filesystem::path build_recipe(const std::string& lab) const {
    return build_dir / "cudalabs" / "labs" / (lab + ".json");
  }
  std::vector<std::string> lab_ids() const;  // sorted ids of config/labs/*.yaml
};

struct RunRequest {
  std::string lab;
  std::filesystem::path submission;  // grade: the submission; check: defaults to labs/<lab>
  std::filesystem::path work_dir;    // empty: a fresh directory under the system temp dir
  bool keep_work_dir = false;
  bool sanitize = false;  // also run the correctness tests under compute-sanitizer (see sanitizer_pass.hpp)
};

// Both throw cudalabs::config::ConfigError for invalid YAML, UsageError for a bad request and
// std::runtime_error when the build tree is incomplete; everything about the submission itself
// ends up in the report.
GradeResult grade_submission(const CoursePaths& paths, const RunRequest& request);
GradeResult self_check(const CoursePaths& paths, const RunRequest& request);

}  // namespace labgrade
