#pragma once
// Processes a run leaves behind outside its process group. run_process ends a run with
// kill(-pgid), which misses a descendant that made a session of its own (setsid, then a fork: a
// daemon). labgrade is therefore its descendants' subreaper (PR_SET_CHILD_SUBREAPER): every orphan
// of a run becomes its child rather than init's, and after each run a child of labgrade that
// belongs to no live run's process group (nor to labgrade's own) is killed with all its
// descendants, and reaped. What the
// kernel's confinement allows a run (the sanitizer pass's processes are not confined) can then
// still outlive that run by milliseconds, not into the next one.
#include <sys/types.h>

#include <cstddef>

namespace labgrade {

// Once per process; idempotent.
void become_subreaper() noexcept;

// The process groups of the runs under way: a run's child leads its own (setpgid). Held from
// before the fork until after the run's end, so a scan never takes a starting run for a stray.
class LiveRuns {
 public:
  static void begin_fork();                 // locks the registry across the fork
  static void end_fork(pid_t group) noexcept;  // registers the new run's group (none when <= 0), unlocks
  static void finished(pid_t group) noexcept;
};

// Kills every child of this process outside labgrade's process group and every live run's, with
// its descendants, and reaps it; until none is left (at most 10 s). Returns how many it killed.
std::size_t kill_stray_processes() noexcept;

}  // namespace labgrade
