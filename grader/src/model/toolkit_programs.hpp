#pragma once
// Finding a CUDA toolkit program (compute-sanitizer, ncu) the way an instructor would: next to
// the build's nvcc, then on PATH.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade {

// The first executable among: each of `beside_nvcc` (paths relative to the folder of the
// recipe's nvcc, and of nvcc with its links resolved: /usr/bin/nvcc may link into the toolkit),
// then `name` in each folder of PATH. Empty when none is.
std::filesystem::path find_toolkit_program(const std::string& nvcc, const std::string& name,
                                           const std::vector<std::string>& beside_nvcc);

}  // namespace labgrade
