// config/course.yaml: course-wide defaults every lab starts from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace cudalabs::config {

struct CourseConfig {
  std::string source_path;
  std::string course;                   // `course`: the course's name
  double test_timeout_seconds = 0;      // defaults.test_timeout_seconds, > 0
  double build_timeout_seconds = 0;     // defaults.build_timeout_seconds, > 0
  std::uint64_t max_source_bytes = 0;   // defaults.max_source_bytes, integer > 0
  std::uint64_t max_output_bytes = 0;   // defaults.max_output_bytes, integer > 0 (cap on captured child output)
};

// Throws ConfigError listing every problem in the file.
CourseConfig load_course_config(const std::filesystem::path& file);

}  // namespace cudalabs::config
