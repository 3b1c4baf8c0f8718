#pragma once
// How long a thread has waited for a CPU, from the kernel's own accounting: the second figure of
// /proc/<pid>/task/<tid>/schedstat (time on a CPU, time runnable but waiting on a run queue,
// time slices; nanoseconds since the thread started). The timing engine reads it around every
// timed window: a window in which the judge or a runner waited for a CPU (another process's
// work on its core) timed the machine's load, not the code.
#include <sys/types.h>

#include <cstdint>

namespace cudalabs::remote {

// An open schedstat file of thread `tid` of process `pid` (tid 0: the calling thread), or -1.
int open_schedstat(pid_t pid, pid_t tid) noexcept;

// The wait so far read from an open schedstat file, or -1 when it cannot be read or parsed.
std::int64_t read_run_queue_wait_ns(int fd) noexcept;

// The same figure out of a schedstat file's text, or -1 when it is not "<n> <n> <n>".
std::int64_t parse_run_queue_wait_ns(const char* text) noexcept;

}  // namespace cudalabs::remote
