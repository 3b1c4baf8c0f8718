#pragma once
// Same-run, paired comparison of a student's implementation with the reference solution.
//
// The two are measured alternately (A B, B A, A B, ...), so clock, thermal and neighbour drift
// hit both alike and the order effect (the second of a pair running on a warmer or cooler GPU)
// cancels over pairs of rounds. The ratio student/solution is taken per round and its median is
// what verdicts use: pairing removes the drift that separate medians would keep.
//
// A timed student call is untrusted, and every one is checked; the engine does the same work
// before every call, so nothing a call can observe tells it whether it is checked. Every sample:
//   prepare(seed of this round)  fresh inputs, poisoned outputs (untimed; both sides of a round
//                                get the same seed, so they time the same data)
//   seal                         keyed checksums of the inputs, held on the host (student side)
//   pre-window check             in a judge: the memory the calls write, checksummed right behind
//                                each replica's prepare and again here, compared after the sample
//                                (timing/prewindow_ranges.hpp): written in between fails it
//   L2 flush                     persisting-L2 lines and limit reset first (l2_flush.hpp)
//   event start, launch, event stop, wait for the stop event
//   (a pipeline on several streams: the side streams wait for the start event and the stop
//   event waits for all of them, so the time spans the whole pipeline; see Workload::side_streams)
// and after each student sample, untimed:
//   device-idle check            work the call left running is still running: see below
//   checks                       sealed inputs unchanged, then verify(seed): the call's output
//                                against the reference's for the same inputs
//
// In a judge (cudalabs/remote/judge.hpp), the calls run in runner processes and this process
// holds the clock. The events bracket the whole call seen from here (the request, the runner's
// work, the reply); the median round trip of a call that launches an empty kernel in the
// reference's runner, measured first, is subtracted from every sample of both sides, so the
// figures are the work's. Its stop event runs on this process's context, which the GPU
// time-slices with the runner's: if the runner said it was done while its work still ran, either
// the stop waits for it, or the keyed checksums of the call's writable memory, queued right
// behind the stop event, see the outputs still changing and the sample fails. The device-idle
// check times an empty kernel of this process's: it waits while another context has work running.
// Around every window a judge also reads how long its thread and the runners' main threads have
// waited for a CPU (the kernel's schedstat): a round during which a trusted thread waited timed
// other processes' work (cudalabs/timing/cpu_wait.hpp; the student's runner's own waits alone
// never do) and is measured again (pings too); when the undisturbed rounds are
// too few (under min_samples, or under a third of the disturbed ones), PairedResult::machine_busy
// says the figures are the machine's, not to be scored.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/timing/busy_device.hpp"
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

// Untimed, after every student sample: compares what the timed call left in its
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
  // Checked after every student call: a keyed checksum (device_compare.hpp) taken on the host
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
  // Calls per timed sample, K >= 1. In a judge, every sample's window holds two switches of the
  // GPU between the judge's context and a runner's; what a switch costs differs by a few
  // microseconds from one runner process to another and stays with the process, which on a call
  // of a few tenths of a millisecond biases the ratio by a few percent. K calls back to back in
  // one window spread that over K calls. Each call works on its own set of buffers (a replica):
  // use_replica(r), r in [0, K), points prepare, student, solution and verify at set r, and
  // sealed_inputs lists every replica's inputs. Every call is prepared, sealed and verified as a
  // call alone is (replica r of a round gets inputs of its own, from replica_seed(seed, r)), the
  // calls' outputs are all checksummed behind the stop event, and the sample is the window's
  // time over K.
  int calls_per_sample = 1;
  std::function<void(int replica)> use_replica{};
  // With K > 1, in a judge: every call of a window but the last is answered as soon as its
  // function has returned (remote::ReplyOnReturn), so the K calls' work runs back to back as in
  // one process. Without it each call is a round trip of its own inside the window (the runner
  // waits for the device, then the judge sends the next call): some 20 us of host latency per call
  // that is not subtracted, which pulls the ratios of short calls toward 1. Thresholds calibrated
  // one way do not carry over to the other. No effect in process.
  bool pipelined_calls = false;
};

// The seed of replica `replica` of a round whose seed is `seed` (the round's own for replica 0).
std::uint64_t replica_seed(std::uint64_t seed, int replica) noexcept;

// Keyed checksums of every work.sealed_inputs, in order, once everything queued in this process
// is done: queued together on `stream` and read back with one copy (one wait, not one per input).
std::vector<std::uint64_t> sealed_input_sums(const Workload& work, cudaStream_t stream);

struct PairedResult {
  SampleSummary student_ms;
  SampleSummary solution_ms;
  SampleSummary ratio;     // per-round student time / solution time, paired
  bool target_met = false; // the ratio's CI reached policy.target_relative_ci
  bool settled = false;    // policy.settled said the intervals settled the outcome (stopped there)
  int rounds = 0;
  double seconds_spent = 0; // wall time of the whole call, warm-up included

  // Why these figures must not be scored; empty when they may. Sampling stops as soon as one is
  // found: "the timed call's result was wrong on sample 7: ..." or "work was still running on
  // the GPU after the stream you were given finished ...".
  std::string integrity_failure;
  int verified_samples = 0;              // student samples whose output was checked (all of them)
  int samples_with_outstanding_work = 0; // rounds with a device-idle check that found work running
  double max_outstanding_ms = 0;         // longest such wait beyond the reference's (see below)
  // In a judge: rounds measured again because a timed window waited for a CPU (other processes'
  // work on the cores of the judge or a runner: /proc/.../schedstat), and the longest such wait.
  int disturbed_rounds = 0;
  double max_cpu_wait_ms = 0;
  // Non-empty when too few rounds were undisturbed (see above): the figures are the machine's load, not the
  // code's, and must not be scored (nor held against the student).
  std::string machine_busy;
  // In a judge: the median round trip of an empty call, subtracted from every sample (0 in process).
  double call_overhead_ms = 0;
  // The same round trip to the student's runner: reported, never subtracted (that runner is
  // untrusted and could slow its pings to have more taken off its samples).
  double student_call_overhead_ms = 0;
  // In a judge: whether the windows were gated (remote::begin_gated_window: the clock on the GPU
  // alone, no runner's host path in it), and, when a gated measurement was given up for one
  // timed as every call was before (the request to the reply), why.
  bool gated = false;
  std::string ungated_because;
};

// The seed of round `index` (index >= 0) under `base`: SplitMix64's finalizer of base and index,
// so neighbouring rounds get unrelated inputs. Warm-up launches use their own seeds.
std::uint64_t round_seed(std::uint64_t base, std::uint64_t index) noexcept;

// The qualifying call, before anything is timed: prepare(seed), one student call, then the checks
// of a verified sample (sealed inputs, verify). Returns "" when right, else what is wrong: a
// wrong answer at the timed size is not timed. Throws like measure_interleaved.
std::string qualifying_call(const Workload& work, std::uint64_t seed, cudaStream_t stream = nullptr);

// Measures student against solution as above until should_stop(ratio summary) says so, or an
// integrity failure is found (PairedResult::integrity_failure; the figures so far are returned
// but must not be scored). In a judge the windows are gated (remote::gated_windows()); a gated
// measurement that ends in an integrity failure, or whose arming a call refused (it waits for the
// GPU inside the call), is made again with every window timed from request to reply, and that one
// is returned (PairedResult::ungated_because says why): no submission is judged on the gate alone.
// Throws std::invalid_argument for an invalid policy or an empty student/solution; CudaError when a launch fails (cudaGetLastError after each launch) or the
// timed work faults. Whatever a Launch, Prepare or Verify throws propagates.
PairedResult measure_interleaved(const Workload& work, const SamplingPolicy& policy,
                                 cudaStream_t stream = nullptr);

// One implementation alone (trusted code: benchmarks, baselines): same per-sample procedure
// without the student checks, stopping on its own time's summary. `prepare` may be empty.
SampleSummary measure_single(const Launch& launch, const Prepare& prepare, const SamplingPolicy& policy,
                             cudaStream_t stream = nullptr, std::uint64_t seed = 0);

}  // namespace cudalabs::timing
