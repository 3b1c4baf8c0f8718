#include "run/tool_run.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "cudalabs/result_stream.hpp"

namespace labgrade {

HarnessInvocation with_tool_time(const HarnessInvocation& normal, double factor, double min_seconds,
                                 double max_seconds) {
  HarnessInvocation invocation = normal;
  invocation.test_timeout_seconds = std::clamp(normal.test_timeout_seconds * factor, min_seconds,
                                               std::max(max_seconds, normal.test_timeout_seconds));
  const auto cpu_needed = static_cast<std::uint64_t>(std::ceil(invocation.test_timeout_seconds)) * 2;
  if (invocation.limits.cpu_seconds) invocation.limits.cpu_seconds = std::max(invocation.limits.cpu_seconds, cpu_needed);
  return invocation;
}

std::vector<std::filesystem::path> tool_logs_of_test(const std::filesystem::path& dir, const std::string& test,
                                                     const std::string& extension) {
  const std::string name = cudalabs::tool_log_name(test);
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() != extension) continue;
    if (file == name + extension || file.rfind(name + "~", 0) == 0) files.push_back(entry.path());
  }
  // "<name>.log" sorts before "<name>~2.log" ('.' < '~'), and ~2 ... ~9 in order.
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace labgrade
