#pragma once
// What each of the student's kernels uses, as the compiler reports it (nvcc --resource-usage:
// ptxas's "Used 32 registers, used 1 barriers, 16640 bytes smem" and "0 bytes stack frame, 0
// bytes spill stores, 0 bytes spill loads"): registers, shared memory and spills to local memory
// are what a slow kernel is most often short of.
#include <string>
#include <vector>

#include "model/grade_result.hpp"

namespace labgrade {

// Reads ptxas's resource lines out of `output` (a compile command's messages) and returns the
// kernels they describe, in the compiler's order; `output` keeps every other line.
std::vector<KernelResources> take_resource_usage(std::string& output);

// "void student::(anonymous namespace)::tiled_kernel<64u, 8u>(float const*, float*)" ->
// "tiled_kernel<64u, 8u>": the kernel as its author wrote it (a name that does not demangle
// stays as it is).
std::string kernel_display_name(const std::string& mangled);

}  // namespace labgrade
