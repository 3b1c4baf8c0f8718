#pragma once
// Internal to common: the lab's and the course's YAML as a harness sees them. labgrade names the
// files in CUDALABS_LAB_CONFIG / CUDALABS_COURSE_CONFIG; a harness run by hand uses the paths it
// was compiled with. Loaded once per process; ConfigError when invalid.
#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"

namespace cudalabs {

const config::LabConfig& lab_config_from(const char* default_path);
const config::CourseConfig& course_config_from(const char* default_path);

}  // namespace cudalabs
