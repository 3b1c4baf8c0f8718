#pragma once
// What a grading session takes from course.yaml and the lab's YAML to contain student code: the
// `forbid:` rules. (The kernel limits are CourseConfig::compiler_limits and
// LabConfig::test_limits.)
#include <filesystem>

#include "cudalabs/course/lab_config.hpp"

namespace labgrade {

// The course's rules then the lab's, each naming its YAML file relative to `course_root`.
cudalabs::config::ForbidRules forbid_rules_for(const cudalabs::config::CourseConfig& course,
                                               const cudalabs::config::LabConfig& lab,
                                               const std::filesystem::path& course_root);

}  // namespace labgrade
