#pragma once
// Kernel-enforced limits (setrlimit) for a child process: a backstop behind the wall-clock
// supervision, so untrusted code cannot burn CPU forever, fill the disk or leave core dumps.
#include <cstdint>
#include <string>

namespace labgrade {

// Zero means "leave this limit as inherited". Each one applies per process (children inherit a
// fresh copy), and a process that exceeds one is stopped by a signal described by limit_hint().
struct ResourceLimits {
  std::uint64_t cpu_seconds = 0;     // RLIMIT_CPU: SIGXCPU at the limit, SIGKILL one second later
  std::uint64_t max_open_files = 0;  // RLIMIT_NOFILE
  std::uint64_t max_file_bytes = 0;  // RLIMIT_FSIZE: a larger write fails with SIGXFSZ (pipes are exempt)
  // RLIMIT_AS. Never set it for a program that initialises CUDA: the driver reserves a virtual
  // address range far larger than physical memory (unified addressing) and fails with "out of
  // memory" under any realistic cap. Fine for the compiler (nvcc, cicc, ptxas).
  std::uint64_t max_address_space_bytes = 0;
  bool core_dumps = false;  // RLIMIT_CORE 0: a crashing submission must not write a core file
};

// Applies the limits to the calling process (the child, between fork and exec). Only lowers:
// a limit above the inherited hard limit is capped at it. Returns nullptr, or the name of the
// limit that could not be set. Async-signal-safe (only setrlimit/getrlimit).
const char* apply_resource_limits(const ResourceLimits& limits) noexcept;

// Why a signal probably came from one of these limits, in words for a student; "" otherwise.
std::string limit_hint(int signal);

}  // namespace labgrade
