#pragma once
// The `timing:` map, in course.yaml (every key required) and in a lab's YAML (any of them, each
// replacing the course's value for that lab).
#include "cudalabs/course/course_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

enum class TimingKeys { Required, Optional };

// Reports unknown keys, missing required ones and values that make no sense (a minimum below the
// 6 samples a 95% interval of a median needs, a maximum below the minimum, a confidence or target
// of 1 or more), each at its key.
TimingOverrides read_timing_settings(const MapReader& timing, FileDiagnostics& diagnostics, TimingKeys keys);

}  // namespace cudalabs::config::detail
