#pragma once
// Same-run, paired comparison of a student's implementation with the reference solution.
//
// The two are measured alternately in one process (A B, B A, A B, ...), so clock, thermal and
// neighbour drift hit both alike and the order effect (the second of a pair running on a warmer
// or cooler GPU) cancels over pairs of rounds. The ratio student/solution is taken per round and
// its median is what verdicts use: pairing removes the drift that separate medians would keep.
//
// A timed student call is untrusted. Every sample:
//   prepare(seed of this round)  fresh inputs, poisoned outputs (untimed; both sides of a round
//                                get the same seed, so they time the same data)
//   L2 flush                     persisting-L2 lines and limit reset first (l2_flush.hpp)
//   event start, launch, event stop, wait for the stop event
//   (a pipeline on several streams: the side streams wait for the start event and the stop
//   event waits for all of them, so the time spans the whole pipeline; see Workload::side_streams)
// and after each student sample, untimed:
//   device-idle check            cudaDeviceSynchronize, timed on the host: work the call queued
//                                on another stream is still running when it takes long
//   verify(seed), some samples   the call's output against the reference's for the same inputs
// Only the launch lies between the events.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/timing/statistics.hpp"
#include "cudalabs/timing/stopping_rule.hpp"

namespace cudalabs::timing {

// Queues one run of an implementation on the given stream (kernel launches, async copies).
using Launch = std::function<void(cudaStream_t)>;

// The student's call: queues its work like a Launch and returns what the lab function returned.
// A status other than cudaSuccess fails the qualifying call and any timed sample it comes back
// from ("... is still a TODO(student)" for cudaErrorNotYetImplemented).
using StudentCall = std::function<cudaError_t(cudaStream_t)>;

// Trusted code in the student's place (benchmarks, the engine's tests): `launch`, reporting success.
StudentCall always_succeeding(Launch launch);

// What a student call's status means, for a message: "" for cudaSuccess.
std::string describe_student_status(cudaError_t status);

// Untimed, before every sample and warm-up launch: regenerate every input of the call from
// `seed` (deterministically: the same seed gives the same inputs) and poison every output,
// queued on the stream. Inputs a call may modify (in-place operations) are covered by this too.
using Prepare = std::function<void(std::uint64_t seed, cudaStream_t)>;

// Untimed, after a student sample chosen for checking: compares what the timed call left in its
// outputs with the reference solution's output for the inputs of `seed`, computed now into
// buffers of the check's own. Returns "" when right, else what is wrong (first mismatch...).
// May synchronize; runs after the device-idle check, so the student's work is complete.
using Verify = std::function<std::string(std::uint64_t seed, cudaStream_t)>;

// Device memory a timed call reads and must leave as it was: its inputs.
struct SealedInput {
  const void* data = nullptr;
  std::size_t bytes = 0;
  std::string name;  // as the report names it ("a", "the image")
};

struct Workload {
  StudentCall student;
  Launch solution;
  Prepare prepare{};  // may be empty: the inputs stay as they are (benchmarks of trusted code)
  Verify verify{};    // may be empty: no output is checked (benchmarks of trusted code)
  // Base of the per-round seeds; for a grade, derived from cudalabs::timing_seed(), so inputs
  // cannot be known when the submission is written.
  std::uint64_t seed = 0;
  // Student samples checked by `verify`: the first round's, then about 1 in verify_one_in of the
  // others, chosen by a hash of the seed (so a call cannot tell which). 1 checks every sample.
  int verify_one_in = 4;
  // Checked on every verified sample: a keyed checksum (device_compare.hpp) taken on the host
  // after prepare and compared after the call. Without it, a call could rewrite its inputs to
  // whatever makes a cheaper answer right, and verify's reference would read the rewritten ones.
  std::vector<SealedInput> sealed_inputs{};
  // Streams besides the one given that the calls may queue work on (a pipeline over several
  // streams, created by the suite; they must not synchronize with the legacy stream). Every call,
  // timed or not, is forked to them and joined back: they wait for the given stream's work
  // queued before the call (prepare's), and the given stream waits for them before anything
  // after the call (the stop event, verify). Work on any other stream is still caught by the
  // device-idle check.
  std::vector<cudaStream_t> side_streams{};
};

struct PairedResult {
  SampleSummary student_ms;
  SampleSummary solution_ms;
  SampleSummary ratio;     // per-round student time / solution time, paired
  bool target_met = false; // the ratio's CI reached policy.target_relative_ci
  int rounds = 0;
  double seconds_spent = 0; // wall time of the whole call, warm-up included

  // Why these figures must not be scored; empty when they may. Sampling stops as soon as one is
  // found: "the timed call's result was wrong on sample 7: ..." or "work was still running on
  // the GPU after the stream you were given finished ...".
  std::string integrity_failure;
  int verified_samples = 0;              // student samples whose output verify checked
  int samples_with_outstanding_work = 0; // student samples after which the device was not idle
  double max_outstanding_ms = 0;         // longest such wait for the device to go idle
};

// A student sample after which cudaDeviceSynchronize takes longer than this had work still
// running elsewhere. On an idle device it returns in a few microseconds (it only reads the
// context's completion markers); 50 us is far above that, and below the time of every timed
// case of the labs (0.08 ms and more), so work moved off the stream cannot hide under it.
inline constexpr double kOutstandingWorkLimitMs = 0.05;
// The case fails once this many student samples showed outstanding work. One could be the host
// thread losing its core inside the call (that only lengthens the wait, never shortens it); work
// that escapes the measurement on purpose does so on every sample it wants to speed up, and must
// do so on half of them to move a median.
inline constexpr int kOutstandingWorkStrikes = 3;

// The seed of round `index` (index >= 0) under `base`: SplitMix64's finalizer of base and index,
// so neighbouring rounds get unrelated inputs. Warm-up launches use their own seeds.
std::uint64_t round_seed(std::uint64_t base, std::uint64_t index) noexcept;

// Whether the student sample of round `round` is checked (see Workload::verify_one_in).
bool verifies_round(const Workload& work, int round) noexcept;

// The qualifying call, before anything is timed: prepare(seed), one student call, then the checks
// of a verified sample (sealed inputs, verify). Returns "" when right, else what is wrong: a
// wrong answer at the timed size is not timed. Throws like measure_interleaved.
std::string qualifying_call(const Workload& work, std::uint64_t seed, cudaStream_t stream = nullptr);

// Measures student against solution as above until should_stop(ratio summary) says so, or an
// integrity failure is found (PairedResult::integrity_failure; the figures so far are returned
// but must not be scored).
// Throws std::invalid_argument for an invalid policy, an empty student/solution or
// verify_one_in < 1; CudaError when a launch fails (cudaGetLastError after each launch) or the
// timed work faults. Whatever a Launch, Prepare or Verify throws propagates.
PairedResult measure_interleaved(const Workload& work, const SamplingPolicy& policy,
                                 cudaStream_t stream = nullptr);

// One implementation alone (trusted code: benchmarks, baselines): same per-sample procedure
// without the student checks, stopping on its own time's summary. `prepare` may be empty.
SampleSummary measure_single(const Launch& launch, const Prepare& prepare, const SamplingPolicy& policy,
                             cudaStream_t stream = nullptr, std::uint64_t seed = 0);

}  // namespace cudalabs::timing
