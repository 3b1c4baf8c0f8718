// Kernel-enforced limits (setrlimit) on one process labgrade starts: the compiler, nm, or a test
// process. course.yaml `defaults:` sets them (see CourseConfig), a lab's YAML may raise or lower
// the test processes' host memory; grader/src/sandbox/resource_limits.hpp applies them.
#pragma once

#include <cstdint>

namespace cudalabs::config {

// Zero means "leave this limit as inherited". Each applies per process (children inherit a fresh
// copy); a process that exceeds one is stopped by a signal or sees an allocation fail.
struct ResourceLimits {
  std::uint64_t cpu_seconds = 0;     // RLIMIT_CPU: SIGXCPU at the limit, SIGKILL one second later
  std::uint64_t max_open_files = 0;  // RLIMIT_NOFILE
  std::uint64_t max_file_bytes = 0;  // RLIMIT_FSIZE: a larger write fails with SIGXFSZ (pipes are exempt)
  // RLIMIT_AS, for the compiler (nvcc, cicc, ptxas). Never for a program that initialises CUDA:
  // the driver reserves a virtual address range far larger than physical memory (unified
  // addressing) and fails with "out of memory" under any realistic cap.
  std::uint64_t max_address_space_bytes = 0;
  // RLIMIT_DATA, for test processes: heap and private writable mappings, i.e. the host memory
  // student code can allocate (malloc, new, mmap), not the driver's reservations, so CUDA works
  // under it (checked on an H100 machine with 4 GiB). An allocation beyond it fails.
  std::uint64_t max_data_bytes = 0;
  bool core_dumps = false;  // RLIMIT_CORE 0: a crashing submission must not write a core file
};

// Host memory in YAML is in GiB (`host_memory_gib: 16`); fractions allowed.
inline std::uint64_t gib_to_bytes(double gib) { return static_cast<std::uint64_t>(gib * double(1ull << 30)); }

}  // namespace cudalabs::config
