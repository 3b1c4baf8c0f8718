#pragma once
// Per-lab settings that suites read from the lab's YAML (config/labs/<lab>.yaml), so that an
// instructor changes a tolerance in one place and the grader reports the value it used.
#include <string_view>

#include "cudalabs/compare.hpp"

namespace cudalabs {

// The tolerance named `name` under `tolerances:` in the lab's YAML. The file is the one in the
// environment variable CUDALABS_LAB_CONFIG (labgrade sets it), else `default_config`.
// Throws std::runtime_error naming the file when the config is invalid or lacks the name.
Tolerance lab_tolerance_in(const char* default_config, std::string_view name);

#ifdef CUDALABS_LAB_CONFIG_DEFAULT
// Each lab harness is compiled with its own config path (see cmake/CudalabsLab.cmake).
inline Tolerance lab_tolerance(std::string_view name) {
  return lab_tolerance_in(CUDALABS_LAB_CONFIG_DEFAULT, name);
}
#endif

}  // namespace cudalabs
