#pragma once
// The release's README.md: release/README.md of the instructor tree with its @LABS@ line replaced
// by a table of the released labs, their points and each one's timing preview.
#include <string>
#include <vector>

#include "cudalabs/course/lab_config.hpp"

namespace labgrade {

// What the self-check's timing preview of `released` (a release's copy of the YAML) measures,
// in a phrase: its public performance cases, or why there is none.
std::string timing_preview(const cudalabs::config::LabConfig& released);

// Throws std::runtime_error when the template has no @LABS@ line.
std::string student_readme(const std::string& readme_template,
                           const std::vector<cudalabs::config::LabConfig>& released_labs);

}  // namespace labgrade
