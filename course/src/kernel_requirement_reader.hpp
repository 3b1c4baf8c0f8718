// Reads a lab's optional `kernels:` section (internal to the config library).
#pragma once

#include <vector>

#include "cudalabs/course/lab_config.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

// `kernels: [{kernel: NAME, uses: shared_memory|no_spills, why: TEXT}]`; absent means none.
std::vector<KernelRequirement> read_kernel_requirements(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
