#pragma once
// What `labgrade submit` says about the files it packed before they are handed in: functions the
// code still marks TODO(student), and code that does not compile (when this build can compile
// it). The archive is written either way: these are warnings, not refusals.
#include <filesystem>
#include <string>
#include <vector>

#include "cudalabs/course/course_config.hpp"
#include "session/grading_session.hpp"

namespace labgrade {

// `staged`: the packed files, as staged for the archive; `scratch`: an empty folder to build in.
std::vector<std::string> review_packed_files(const CoursePaths& paths, const std::string& lab,
                                             const cudalabs::config::CourseConfig& course,
                                             const std::vector<std::filesystem::path>& staged,
                                             const std::filesystem::path& scratch);

}  // namespace labgrade
