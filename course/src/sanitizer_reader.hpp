// Reads a lab's optional `sanitizer:` section (internal to the config library).
#pragma once

#include "cudalabs/course/lab_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `sanitizer: {required: true|false, skip: [test names]}`; absent means not required, nothing
// skipped. Problems go to `diagnostics`.
SanitizerPolicy read_sanitizer_policy(const MapReader& top, FileDiagnostics& diagnostics);

// Every `skip:` entry must be a test of `tests:` (a typo would silently sanitize a slow test, or
// a renamed one): reported at its entry, with the nearest test name.
void check_sanitizer_skips(const MapReader& top, const LabConfig& lab, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
