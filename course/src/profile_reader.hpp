// Reads a lab's optional `profile:` section (internal to the config library).
#pragma once

#include "cudalabs/course/profile_spec.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `profile: {on_grade, on_check, metrics: [{name, label, hint, hint_when_ratio_above, ...}]}`;
// absent means off unless asked for on the command line, with the default metrics. Problems go
// to `diagnostics`.
ProfileSpec read_profile_spec(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
