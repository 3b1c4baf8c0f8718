#pragma once
// `labgrade release --out DIR`: the student distribution, generated from the instructor tree.
// What it holds and what it keeps back is listed in release_contents.cpp and README.md.
#include <filesystem>
#include <string>
#include <vector>

#include "session/grading_session.hpp"

namespace labgrade {

struct ReleaseRequest {
  std::filesystem::path out;      // must not exist or be an empty directory
  std::vector<std::string> labs;  // empty: every lab
};

// The files written, relative to `out`, sorted. Throws UsageError for a non-empty `out` or an
// unknown lab, cudalabs::config::ConfigError for an invalid YAML file.
std::vector<std::filesystem::path> write_release(const CoursePaths& paths, const ReleaseRequest& request);

}  // namespace labgrade
