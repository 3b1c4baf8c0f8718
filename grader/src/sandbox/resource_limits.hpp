#pragma once
// Kernel-enforced limits (setrlimit) for a child process: a backstop behind the wall-clock
// supervision, so untrusted code cannot burn CPU forever, fill the disk, take the machine's
// memory or leave core dumps. The limits themselves come from course.yaml (one struct for the
// configuration and for applying it: cudalabs/course/resource_limits.hpp).
#include <string>

#include "cudalabs/course/resource_limits.hpp"

namespace labgrade {

using cudalabs::config::ResourceLimits;

// Applies the limits to the calling process (the child, between fork and exec). Only lowers:
// a limit above the inherited hard limit is capped at it. Returns nullptr, or the name of the
// limit that could not be set. Async-signal-safe (only setrlimit/getrlimit).
const char* apply_resource_limits(const ResourceLimits& limits) noexcept;

// Why a signal probably came from one of these limits, in words for a student; "" otherwise.
std::string limit_hint(int signal);

}  // namespace labgrade
