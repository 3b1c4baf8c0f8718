#pragma once
// A lab's YAML as the student release carries it: the public tests and performance cases only,
// and `withheld_points` (the hidden entries' points) so that the points still add up to
// total_points (see cudalabs/course/lab_config.hpp). Comments are not carried over: the
// instructor's may talk about the hidden cases; neither are `reference_targets` (the reference's
// calibration for the benchmarks, which may name hidden cases).
#include <filesystem>
#include <string>

namespace labgrade {

// Throws cudalabs::config::ConfigError when the instructor's file is invalid.
std::string public_lab_yaml(const std::filesystem::path& instructor_lab_yaml);

}  // namespace labgrade
