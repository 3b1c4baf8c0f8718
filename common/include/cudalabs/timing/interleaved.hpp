#pragma once
// Same-run, paired comparison of a student's implementation with the reference solution.
//
// The two are measured alternately in one process (A B, B A, A B, ...), so clock, thermal and
// neighbour drift hit both alike and the order effect (the second of a pair running on a warmer
// or cooler GPU) cancels over pairs of rounds. The ratio student/solution is taken per round and
// its median is what verdicts use: pairing removes the drift that separate medians would keep.
//
// Every sample: restore_inputs (if set), L2 flush, event start, launch, event stop, wait.
// Only the launch lies between the events; restore and flush are queued before the start event.
#include <functional>

#include <cuda_runtime.h>

#include "cudalabs/timing/statistics.hpp"
#include "cudalabs/timing/stopping_rule.hpp"

namespace cudalabs::timing {

// Queues one run of an implementation on the given stream (kernel launches, async copies).
using Launch = std::function<void(cudaStream_t)>;

struct Workload {
  Launch student;
  Launch solution;
  // May be empty. Called before every sample (and every warm-up launch) when the kernel works in
  // place, to put the inputs back; it is not timed.
  Launch restore_inputs;
};

struct PairedResult {
  SampleSummary student_ms;
  SampleSummary solution_ms;
  SampleSummary ratio;     // per-round student time / solution time, paired
  bool target_met = false; // the ratio's CI reached policy.target_relative_ci
  int rounds = 0;
  double seconds_spent = 0; // wall time of the whole call, warm-up included
};

// Measures student against solution as above until should_stop(ratio summary) says so.
// Throws std::invalid_argument for an invalid policy or an empty student/solution; CudaError when
// a launch fails (cudaGetLastError after each launch) or the timed work faults. Whatever a Launch
// throws propagates.
PairedResult measure_interleaved(const Workload& work, const SamplingPolicy& policy,
                                 cudaStream_t stream = nullptr);

// One implementation alone (for absolute thresholds: GB/s, fraction of peak): same per-sample
// procedure, stopping on its own time's summary. `restore` may be empty.
SampleSummary measure_single(const Launch& launch, Launch restore, const SamplingPolicy& policy,
                             cudaStream_t stream = nullptr);

}  // namespace cudalabs::timing
