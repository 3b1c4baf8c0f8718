// config/course.yaml: course-wide defaults every lab starts from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "cudalabs/course/forbid_rules.hpp"
#include "cudalabs/course/resource_limits.hpp"

namespace cudalabs::config {

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

// A lab's `timing:` (lab_config.hpp): any of the same keys, each replacing the course's value for
// that lab alone (e.g. fewer rounds where each round's window is long).
struct TimingOverrides {
  std::optional<int> warmup;
  std::optional<int> min_samples;
  std::optional<int> max_samples;
  std::optional<double> target_relative_ci;
  std::optional<double> confidence;
  std::optional<double> time_budget_seconds;
  std::optional<int> remeasure_attempts;
};
TimingSettings with_overrides(TimingSettings settings, const TimingOverrides& overrides);

struct CourseConfig {
  std::string source_path;
  std::string course;                   // `course`: the course's name
  double test_timeout_seconds = 0;      // defaults.test_timeout_seconds, > 0
  double build_timeout_seconds = 0;     // defaults.build_timeout_seconds, > 0
  std::uint64_t max_source_bytes = 0;   // defaults.max_source_bytes, integer > 0
  std::uint64_t max_output_bytes = 0;   // defaults.max_output_bytes, integer > 0 (cap on captured child output)
  TimingSettings timing;                // timing:
  // defaults.cpu_seconds, max_open_files, max_file_bytes (optional, both get them) and
  // max_compiler_memory_bytes (the compiler's address space) / host_memory_gib (a test process's
  // data, which a lab may override: LabConfig::test_limits).
  ResourceLimits compiler_limits;
  ResourceLimits test_limits;
  ForbidRules forbid;                   // forbid: what no lab's student code may include or call
};

// Throws ConfigError listing every problem in the file.
CourseConfig load_course_config(const std::filesystem::path& file);

}  // namespace cudalabs::config
