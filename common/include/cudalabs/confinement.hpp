#pragma once
// What confines a test process on this machine, protection by protection, and whether this
// kernel enforces each one: for `labgrade --version` and the reports, so that a protection the
// kernel lacks is stated rather than silently missing. See README.md, "Threat model".
#include <string>
#include <vector>

namespace cudalabs {

struct Protection {
  std::string what;      // "no new processes or programs"
  std::string how;       // "seccomp filter"
  bool enforced = false;
  std::string detail;    // why not, or which kernel feature version
};

// Probed without changing this process.
std::vector<Protection> test_process_protections();

}  // namespace cudalabs
