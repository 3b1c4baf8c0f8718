#pragma once
// What a grading session takes from course.yaml and the lab's YAML to contain student code: the
// `forbid:` rules and the kernel limits for the compiler and for test processes.
#include <filesystem>

#include "cudalabs/course/lab_config.hpp"
#include "sandbox/resource_limits.hpp"

namespace labgrade {

// The course's rules then the lab's, each naming its YAML file relative to `course_root`.
cudalabs::config::ForbidRules forbid_rules_for(const cudalabs::config::CourseConfig& course,
                                               const cudalabs::config::LabConfig& lab,
                                               const std::filesystem::path& course_root);

// The compiler may have its address space capped; it never initialises CUDA.
ResourceLimits compiler_limits(const cudalabs::config::ProcessLimits& limits);
// Test processes get no address-space cap: CUDA's virtual reservations would fail under one.
ResourceLimits test_process_limits(const cudalabs::config::ProcessLimits& limits);

}  // namespace labgrade
