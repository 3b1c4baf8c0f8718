// config/course.yaml: course-wide defaults every lab starts from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "cudalabs/course/forbid_rules.hpp"

namespace cudalabs::config {

// Kernel-enforced limits on every process labgrade starts (defaults.cpu_seconds, ...; optional,
// these values when absent). Per process; see grader/src/sandbox/resource_limits.hpp.
struct ProcessLimits {
  std::uint64_t cpu_seconds = 600;                          // a backstop: CUDA may spin a core while it waits
  std::uint64_t max_open_files = 1024;
  std::uint64_t max_file_bytes = 64ull << 20;               // largest file a test or the compiler may write
  std::uint64_t max_compiler_memory_bytes = 8ull << 30;     // address space of the compiler, never of tests
};

// How performance cases are measured (course.yaml `timing:`); see common/include/cudalabs/timing/.
struct TimingSettings {
  int warmup = 0;                    // launches of each implementation before any sample is kept
  int min_samples = 0;               // samples (rounds) before the stopping rule may stop
  int max_samples = 0;               // the most rounds one measurement may take
  double target_relative_ci = 0;     // stop once the 95% CI of the median ratio is this narrow (0.01 = 1%)
  double confidence = 0;             // of the intervals reported and used by the stopping rule
  double time_budget_seconds = 0;    // per measurement, even when the target is not met
  int remeasure_attempts = 0;        // extra measurements for a result too close to its threshold
};

struct CourseConfig {
  std::string source_path;
  std::string course;                   // `course`: the course's name
  double test_timeout_seconds = 0;      // defaults.test_timeout_seconds, > 0
  double build_timeout_seconds = 0;     // defaults.build_timeout_seconds, > 0
  std::uint64_t max_source_bytes = 0;   // defaults.max_source_bytes, integer > 0
  std::uint64_t max_output_bytes = 0;   // defaults.max_output_bytes, integer > 0 (cap on captured child output)
  TimingSettings timing;                // timing:
  ProcessLimits limits;                 // defaults.cpu_seconds, max_open_files, max_file_bytes, max_compiler_memory_bytes
  ForbidRules forbid;                   // forbid: what no lab's student code may include or call
};

// Throws ConfigError listing every problem in the file.
CourseConfig load_course_config(const std::filesystem::path& file);

}  // namespace cudalabs::config
