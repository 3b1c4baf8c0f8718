// Reads a `forbid:` section into ForbidRules (internal to the config library).
#pragma once

#include "cudalabs/config/forbid_rules.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `forbid:` is optional; when present it is a map with optional `includes` and `symbols`, each a
// list of patterns or of {pattern, why} maps. Problems are reported into `diagnostics`.
ForbidRules read_forbid_rules(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
