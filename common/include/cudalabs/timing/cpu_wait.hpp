#pragma once
// When a timed window measured the machine's CPU load rather than the calls (host-only, so it is
// unit-tested). The judge reads, around every window, how long the threads on the timed path
// waited for a CPU (remote::timed_threads_run_queue_waits). A wait of the trusted threads (the
// judge's, the reference's runner's) can only come from other processes: the student's code
// cannot run on their cores. A wait of the student's runner's main thread can also be the
// student's own doing (a thread it starts inherits that thread's CPU), so it disturbs a window only
// once a trusted thread's wait has shown, in the same measurement, that other processes take CPUs.
// Otherwise a slow submission could make its own windows "disturbed" and turn its grade into none.
namespace cudalabs::timing {

// Undisturbed, the threads on the timed path spin and wait for nothing; on the H100 a CPU-bound
// neighbour on a timed thread's core costs whole scheduler slices (3.99, 8.00, 12.0 ms ...).
constexpr double kDisturbingCpuWaitUs = 20;

// Microseconds waited during one window; negative: unknown (in process, or no schedstat).
struct WindowCpuWait {
  double trusted_us = -1;
  double student_us = -1;
};

// A trusted thread waited: other processes are taking CPUs from the grader.
inline bool proves_outside_load(const WindowCpuWait& wait) { return wait.trusted_us > kDisturbingCpuWaitUs; }

// The window timed the machine's load and is to be measured again.
inline bool window_disturbed(const WindowCpuWait& wait, bool outside_load_seen) {
  return proves_outside_load(wait) || (outside_load_seen && wait.student_us > kDisturbingCpuWaitUs);
}

}  // namespace cudalabs::timing
