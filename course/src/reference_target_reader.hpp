// Reads a lab's optional `reference_targets:` list (internal to the course library).
#pragma once

#include "cudalabs/course/lab_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `reference_targets: [{case, baseline, at_least}, ...]`; absent means none. Problems go to
// `diagnostics`.
std::vector<ReferenceTarget> read_reference_targets(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
