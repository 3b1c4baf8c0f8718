#pragma once
// What the passes that run tests under a tool (the sanitizer pass, the profile pass) share: the
// longer limits a test gets under the tool, and the log files the tool leaves for each test (the
// judge names them after the test, cudalabs::tool_log_name; <name>~N for runners started again
// in the same test after a crash).
#include <filesystem>
#include <string>
#include <vector>

#include "run/suite_runner.hpp"
#include "text/whole_file.hpp"  // read_whole_file, for the tools' logs

namespace labgrade {

// `normal` with its per-test timeout multiplied by `factor` and kept within [min_seconds,
// max(max_seconds, the normal timeout)], and a CPU limit (which counts per process) above it.
HarnessInvocation with_tool_time(const HarnessInvocation& normal, double factor, double min_seconds,
                                 double max_seconds);

// The logs of `test` in `dir` whose names end in `extension` (".log", ".csv"), in the order the
// runners started; empty when none was written (no runner started in that test).
std::vector<std::filesystem::path> tool_logs_of_test(const std::filesystem::path& dir, const std::string& test,
                                                     const std::string& extension);

}  // namespace labgrade
