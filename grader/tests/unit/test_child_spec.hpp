#pragma once
// A ProcessSpec that runs test_child.cpp (the stand-in for untrusted code) with `args`.
#include <string>
#include <vector>

#include "sandbox/child_process.hpp"

namespace labgrade {

inline ProcessSpec child(std::vector<std::string> args, double timeout = 10) {
  ProcessSpec spec;
  spec.argv = {LABGRADE_TEST_CHILD};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout_seconds = timeout;
  return spec;
}

}  // namespace labgrade
