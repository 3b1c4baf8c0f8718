// Reads a `forbid:` section into ForbidRules (internal to the config library).
#pragma once

#include "cudalabs/course/forbid_rules.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `forbid:` (or, with `key`, a lab's `allow:`) is optional; when present it is a map with
// optional `includes` and `symbols`, each a list of patterns or of {pattern, why} maps.
// Problems are reported into `diagnostics`.
ForbidRules read_forbid_rules(const MapReader& top, FileDiagnostics& diagnostics, const char* key = "forbid");

}  // namespace cudalabs::config::detail
