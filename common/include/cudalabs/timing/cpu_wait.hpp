#pragma once
// When a round of timed windows measured the machine's CPU load rather than the calls (host-only,
// so it is unit-tested). The judge reads, around every window, every device-idle check and every
// ping, how long the threads on the timed path waited for a CPU (remote::timed_threads_run_queue_waits).
// A wait of the trusted threads (the judge's, which spins through both sides' windows, and the
// reference's runner's) can only come from other processes: the student's code cannot run on
// their cores (cpu_partition.hpp, and the runner's filter refuses sched_setaffinity). A wait of the
// student's runner's main thread can also be its own doing (a thread it starts inherits that
// thread's CPU), so it never disturbs anything by itself: a round is measured again only when a
// trusted thread waited during that same round. Load that takes CPUs from the grader at all
// reaches the judge's spinning thread in the round it happens; a student's self-made waits in the
// other rounds are charged, as its slowness. (A measurement-wide proof let a slow submission turn
// every round "disturbed", and its grade into none, as soon as one ping somewhere had waited.)
#include <algorithm>

namespace cudalabs::timing {

// Undisturbed, the threads on the timed path spin and wait for nothing; on the H100 a CPU-bound
// neighbour on a timed thread's core costs whole scheduler slices (3.99, 8.00, 12.0 ms ...).
constexpr double kDisturbingCpuWaitUs = 20;
// A trusted thread's wait can lengthen the window it falls in by at most itself, so within a long
// window of the student's (a slow submission's call) a wait under this share of it cannot move the
// figure past the timing's noise: on the H100 under ctest -j4, neighbours' builds cost a slow
// fixture's 22 ms windows waits of up to 71 us in 5 of 9 rounds, and every attempt of its grade
// became "busy". Only the student's windows get the share: there outside load can cost the
// student up to it, never gain it (a longer reference window would raise the student's ratio, and
// other grades' builds in a batch run on any core).
constexpr double kDisturbingCpuWaitShare = 0.005;

// Microseconds waited during one window; negative: unknown (in process, or no schedstat).
struct WindowCpuWait {
  double trusted_us = -1;
  double student_us = -1;
  double window_us = 0;  // the length of a student's timed window (0: the reference's, a check)
};

// A trusted thread waited long enough to matter: other processes are taking CPUs from the grader.
inline bool proves_outside_load(const WindowCpuWait& wait) {
  return wait.trusted_us > std::max(kDisturbingCpuWaitUs, kDisturbingCpuWaitShare * wait.window_us);
}

// The waits of one round: both sides' windows and the device-idle checks around them.
class RoundCpuWait {
 public:
  void add(const WindowCpuWait& wait) {
    outside_load_ = outside_load_ || proves_outside_load(wait);
    longest_trusted_us_ = std::max(longest_trusted_us_, wait.trusted_us);
  }
  // Timed other processes' work: to be measured again.
  bool disturbed() const { return outside_load_; }
  // The longest wait of a trusted thread in the round (the report's "up to"), 0 when none was
  // known: the student's own waits are not the machine's to explain.
  double longest_trusted_us() const { return longest_trusted_us_; }

 private:
  bool outside_load_ = false;
  double longest_trusted_us_ = 0;
};

}  // namespace cudalabs::timing
