// Reads a lab's optional `service:` section (internal to the config library).
#pragma once

#include "cudalabs/course/lab_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `service: {self_checks, self_checks_per_hour, graded_runs, graded_runs_max}`; absent: every mode
// allowed, without a limit of the lab's own. Problems go to the reader's diagnostics.
ServicePolicy read_service_policy(const MapReader& top);

}  // namespace cudalabs::config::detail
