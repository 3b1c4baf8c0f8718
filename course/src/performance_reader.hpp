// Reads `performance:` of a lab file (see cudalabs/config/performance.hpp).
#pragma once

#include <vector>

#include "cudalabs/course/performance.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config::detail {

struct PerformanceRead {
  std::vector<PerformanceSpec> cases;
  double points = 0;
  bool present = false;         // the file has a `performance:` key
  bool all_points_read = true;  // false: some points were invalid, so their sum means nothing
};

// Absent `performance:` is fine (no cases).
PerformanceRead read_performance(const MapReader& top, FileDiagnostics& diagnostics);

}  // namespace cudalabs::config::detail
