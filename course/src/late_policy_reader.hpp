// Reads a lab's optional `late:` section (internal to the config library).
#pragma once

#include <optional>

#include "cudalabs/course/lab_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `late: {due, grace_minutes, penalty_percent_per_day, max_penalty_percent}`; absent: no policy.
// Problems go to `diagnostics`.
std::optional<LatePolicy> read_late_policy(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
