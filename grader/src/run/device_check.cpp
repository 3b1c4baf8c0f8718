#include "run/device_check.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include "cudalabs/confine_process.hpp"
#include "cudalabs/device_probe.hpp"
#include "cudalabs/result_stream.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {
namespace {

constexpr double kCheckTimeoutSeconds = 60;  // CUDA's initialisation takes well under a second
constexpr const char* kUsable = "usable\t";
constexpr const char* kUnusable = "unusable\t";

// Sets `rest` to the last output line that starts with `prefix`, without it; false when none does.
bool last_line_after(const std::string& output, const std::string& prefix, std::string& rest) {
  bool found = false;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    if (output.compare(start, prefix.size(), prefix) == 0) {
      rest = output.substr(start + prefix.size(), end - start - prefix.size());
      found = true;
    }
    start = end + 1;
  }
  return found;
}

}  // namespace

DeviceCheck check_device_without_submission(const HarnessInvocation& invocation) {
  DeviceCheck check;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    check.reason = "labgrade could not find its own program to check the device (/proc/self/exe: " +
                   error.message() + ")";
    return check;
  }
  ProcessSpec spec;
  spec.argv = {self.string(), kDeviceCheckCommand};
  spec.working_dir = invocation.working_dir;
  spec.extra_env = invocation.env;
  // Confined like the test program (not when a sanitizer launches it: neither is the harness).
  if (invocation.launcher.empty()) spec.extra_env.emplace_back(cudalabs::kConfineVariable, "1");
  spec.timeout_seconds = kCheckTimeoutSeconds;
  spec.limits = invocation.limits;
  spec.end_strays = true;  // the student's library is loaded here too
  const ProcessResult process = run_process(spec);
  std::string rest;
  if (last_line_after(process.output, kUsable, rest) && process.succeeded()) {
    check.usable = true;
    check.device = rest;
  } else if (last_line_after(process.output, kUnusable, rest)) {
    check.reason = rest;
  } else {
    check.reason = "labgrade's device check " + process.describe_end(kCheckTimeoutSeconds);
  }
  return check;
}

int run_device_check_command() {
  const char* confine = std::getenv(cudalabs::kConfineVariable);
  if (confine && std::strcmp(confine, "1") == 0) {
    if (const char* refused = cudalabs::confine_test_process()) {
      std::cout << kUnusable << "could not confine the check like a test process: " << refused << std::endl;
      return 1;
    }
  }
  const cudalabs::DeviceProbe probe = cudalabs::probe_cuda_device();
  if (probe.available) {
    std::cout << kUsable << probe.device << std::endl;
    return 0;
  }
  std::cout << kUnusable << probe.reason << std::endl;
  return 1;
}

}  // namespace labgrade
