#pragma once
// Which CPUs the student's runner may use, for its whole life, and which each party of a timed
// measurement is pinned to (TimingPin, judge.cpp).
//
// Why: the judge times each call by its own clock, host path included, so a runner that could run
// threads on the cores of the reference's runner or of the judge could slow them while the
// reference is timed and only then. The student's runner is therefore started on cores no trusted
// party is ever pinned to, all its threads inherit them, and its system-call filter refuses every
// call that would widen or reorder them (sched_setaffinity, sched_setattr, ...: process_filter.cpp).
// Whole physical cores: a hardware thread beside the reference's would slow it as much.
#include <sched.h>
#include <sys/types.h>

#include <vector>

namespace cudalabs::remote {

using Core = std::vector<int>;  // the logical CPUs (hardware threads) of one physical core

struct CpuPartition {
  std::vector<int> student;  // the student's runner's CPUs; empty: too few cores to keep it apart
  std::vector<int> trusted;  // every other allowed CPU (the judge's and the reference's cores)
  // What TimingPin pins each main thread to, and the core of each trusted one; -1: too few cores.
  int judge_cpu = -1;
  int student_cpu = -1;
  int reference_cpu = -1;
  Core reference_core;

  bool separated() const { return !student.empty(); }
  bool pins() const { return judge_cpu >= 0; }
};

// From the allowed cores in order: with three or more, the first two are the judge's and the
// reference's, each pinned to while timing, and the rest the student's (a timed sample's expected
// outputs are made on the judge's thread); with two, the first is kept from the student and nothing
// is pinned; with one, nothing is kept apart.
CpuPartition partition_cores(const std::vector<Core>& cores);

// The CPUs this process may run on, grouped by physical core (/sys/devices/system/cpu/cpuN/
// topology/thread_siblings_list; a CPU whose topology cannot be read is a core of its own).
std::vector<Core> allowed_cores();

cpu_set_t cpu_set_of(const std::vector<int>& cpus);

// `cpus` without `cpu`, in order; empty when nothing else is left (pin_to's "home").
std::vector<int> all_but(const std::vector<int>& cpus, int cpu);

// Every thread of `pid` onto `others`, its main thread onto `main_cpu` (when >= 0; else `others`).
// Best effort: a thread that ends meanwhile is skipped.
void set_thread_affinities(pid_t pid, const std::vector<int>& others, int main_cpu) noexcept;

}  // namespace cudalabs::remote
