// Reads a lab's optional `sanitizer:` section (internal to the config library).
#pragma once

#include "cudalabs/course/lab_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `sanitizer: {required: true|false}`; absent means not required. Problems go to `diagnostics`.
SanitizerPolicy read_sanitizer_policy(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
