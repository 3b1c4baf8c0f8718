#pragma once
// Whether a CUDA device is usable in a test process that holds none of the submission's code.
//
// A test program's first event says whether it found a device. That program runs the student's
// code, which can hide the GPU from it (change CUDA_VISIBLE_DEVICES in a constructor, break
// CUDA's initialisation) so that a grade becomes "no device, not a grade". labgrade therefore
// checks the claim: it runs itself as `labgrade device-check` (hidden), with the test program's
// environment, working directory, limits and confinement, and only a device missing there too
// means the machine has none.
#include <string>

#include "run/suite_runner.hpp"

namespace labgrade {

struct DeviceCheck {
  bool usable = false;
  std::string device;  // its name, when usable
  std::string reason;  // why not, when not usable
};

// Runs the check in a child process (this program, `device-check`), as `invocation`'s harness runs.
DeviceCheck check_device_without_submission(const HarnessInvocation& invocation);

// The hidden command's body, in that child: confines this process like a test process when the
// environment asks for it, probes the device, prints one line (`usable<TAB>NAME` or
// `unusable<TAB>REASON`) and returns the exit code (0 when usable, 1 when not).
int run_device_check_command();

inline constexpr const char* kDeviceCheckCommand = "device-check";

}  // namespace labgrade
