#pragma once
// The lab's `kernels:` requirements (a named kernel must use shared memory, or must not spill)
// checked on what the compiler reported for the student's kernels (build/kernel_resources.hpp).
// Not scored: the report says which are missed, and why the lab asks.
#include <string>
#include <vector>

#include "cudalabs/course/lab_config.hpp"
#include "model/grade_result.hpp"

namespace labgrade {

// One sentence per requirement not met, in the YAML's order. A kernel matches by its name
// without template arguments; every instantiation of a template must meet it.
std::vector<std::string> unmet_kernel_requirements(const std::vector<cudalabs::config::KernelRequirement>& required,
                                                   const std::vector<KernelResources>& compiled);

}  // namespace labgrade
