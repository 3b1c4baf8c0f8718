#pragma once
// The judge's side of the split: every call of the lab's API that a hidden suite makes, to
// `student::` or to `solution::`, runs in a runner process (cudalabs/remote/protocol.hpp), never in
// the judge. A lab lists its API once (grader/suites/<lab>/lab_calls.def); the grade harness gets
// one definition per function that forwards here (common/src/remote/lab_thunks.cpp), and each
// runner one table entry that serves it (common/src/remote/lab_function_table.cpp).
//
//   Side::student    lab_<id>_student_runner beside the judge, which loads the submission's
//                    library; untrusted, confined like every test process.
//   Side::reference  lab_<id>_reference_runner, the solution linked in; trusted, but run the
//                    same way so both are timed alike (and the reference cannot be slowed by
//                    anything inside the student's process).
//
// A call synchronises the judge's device first (inputs queued on any judge stream are ready),
// sends the request and blocks until the reply. A runner that dies, hangs up, breaks the
// protocol or reports a device fault is killed; the call throws RunnerFailure with what happened
// (the test fails with it), and the next call starts a fresh runner.
#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/remote/protocol.hpp"
#include "cudalabs/shared_host_memory.hpp"

namespace cudalabs::remote {

enum class Side : int { student = 0, reference = 1 };

// What a call's implementation did wrong in a way the call cannot return: crashed, hung up,
// broke its CUDA context, sent a malformed reply. The message is for the student.
class RunnerFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether this process is a judge (its API calls run in runners). False in self-check harnesses,
// benchmarks and unit tests, which call implementations in process.
bool judge_mode() noexcept;
// Whether this judge runs its solution:: calls itself (labgrade set kReferenceInJudgeVariable,
// cudalabs/result_stream.hpp, for a run that times nothing): no reference runner starts, and
// TimingPin refuses (a ratio needs both sides in runners of the same kind).
bool reference_in_judge() noexcept;
// In a judge that times nothing (reference_in_judge) asked by labgrade (kJudgeCudaQueuesVariable):
// sets CUDA_DEVICE_MAX_CONNECTIONS for this process alone, unless the environment has it already
// (an operator's setting stands). Called first in main, before CUDA starts; the runners started
// afterwards get the environment without it (runner_environment).
void narrow_own_cuda_queues() noexcept;
// The value to set, or "" to leave the environment alone: `wanted` (labgrade's request) when it is
// a whole number from 1 to 32, this judge times nothing, and the operator set no value of its own.
std::string cuda_queues_to_set(const char* wanted, const char* operators_own, bool untimed_judge);
// The environment a runner starts with: `environment` less what is the judge's alone (the
// launcher of a tool, the confinement request, the queues narrow_own_cuda_queues set, how
// labgrade set up this judge: kReferenceInJudgeVariable, kJudgeCudaQueuesVariable), plus the
// confinement request when runners are confined.
std::vector<std::string> runner_environment(char** environment, bool queues_narrowed_here, bool confine);
// Whether a solution:: call made now runs in the judge (the solution linked in as judge_reference):
// in such a judge, and inside a CheckingScope (the expected outputs of timed samples, which nothing
// times: a runner of their own would cost every timed run one more CUDA start).
bool solution_runs_in_judge() noexcept;

// Device memory or pinned host memory a call may write, as this process sees it: the whole
// allocation (or segment) each non-const pointer argument points into.
struct WritableRange {
  void* data = nullptr;
  std::size_t bytes = 0;
  bool host = false;
};

// The writable ranges of the last call, to either side (empty before the first, and in process).
const std::vector<WritableRange>& last_call_outputs();

// How many calls this process has sent to runners (a sample made through a runner has its
// round trip subtracted; trusted work launched in the judge, such as a pipeline's copy stage, not).
std::uint64_t calls_made() noexcept;

// How long the last call took by the host's clock, from its request to its reply (diagnostics).
double last_call_host_ms() noexcept;
// The largest peak resident size (bytes) of a runner killed by a signal since the last call, then
// 0 again: a runner that crashed near the host-memory limit (malloc returned null) is charged
// for that limit by the test's listener, as a test process would be.
std::size_t take_crashed_runner_peak_bytes() noexcept;
// Whether the trusted side (the reference's runner, or the solution run in the judge) failed since
// the last call, then false again. They run the trusted solution, so such a failure is the machine's
// doing (a neighbour's memory, a slow start under load): the test's end event says so as a field
// of its own, never as words a message could also carry (the student's runner's error text goes
// into messages).
bool take_trusted_runner_failed() noexcept;

// The student's runner process, started now (and ready) if it is not yet, so that a test's leak
// check can hold its device memory at the test's start against its memory at the end: the
// student's allocations live there, not in the judge. -1 when this is no judge, when a tool
// (--sanitize, --profile) starts the runners (each test's own), or when it cannot start (the
// test's first call will say why).
int student_runner_for_memory_check() noexcept;
// In a judge whose runners start through no tool: starts the student's runner now, and the
// reference's (unless it runs in the judge), without waiting for them, so their CUDA
// initialisation overlaps the judge's own (called before the judge first touches CUDA). Every
// runner not started here starts on first use.
void start_runners_ahead() noexcept;
// The student's runner process if one runs (nothing is started), else -1.
int student_runner_pid() noexcept;
// Ends the student's runner if one runs; the next call starts a fresh one. Before a judge waits
// for the GPU alone: while it waits, another grade's cases may be timed on the same GPU, and a
// runner left alive could keep work of its own running meanwhile (a kernel launched on a stream
// of its own that never ends), which that grade's busy-device checks would charge to its student.
// A process's GPU work ends with its context. (When labgrade takes the GPU alone at once, nothing
// else runs meanwhile, and the runner goes on into the timed cases.)
void end_student_runner() noexcept;

// Whether the last student call's work was still running on its runner's streams when the
// function returned (lab 09's API must return without waiting). The one thing a runner reports
// that the judge takes on its word: a runner taken over by the submission could claim it, and
// gain only the points of the tests that ask (the outputs are still checked).
bool last_student_call_returned_while_busy();

// Round trip of a call that launches an empty kernel, to one side's runner, timed like a timed
// call (CUDA events on `stream` around it). The timing engine subtracts the median of the
// reference's from both sides; the student's runner, untrusted, is pinged only to report it.
double ping_ms(Side side, cudaStream_t stream);

// Nanoseconds the threads that carry a timed call have waited for a CPU so far, by the kernel's own
// accounting (/proc/.../schedstat); -1 outside a judge or where the kernel does not say. Their
// growth across a timed window is time the window lost to other work on those threads' cores.
// Kept apart: only a wait of the trusted threads proves other processes' load, since the student's
// code cannot run on their cores (cpu_partition.hpp); its own runner's main thread it can make
// wait (a thread it starts inherits that thread's CPU).
struct RunQueueWaits {
  std::int64_t trusted = -1;  // this (calling) thread and the reference's runner
  std::int64_t student = -1;  // the student's runner's main thread
};
RunQueueWaits timed_threads_run_queue_waits() noexcept;
// The same for the calling thread alone: what a device-idle check (judge-side only) waited.
std::int64_t judge_thread_run_queue_wait_ns() noexcept;

// While one lives, solution:: calls run in the judge (the solution linked in, solution_runs_in_judge):
// the timing engine computes the expected outputs there, so each timed runner runs only its own
// samples and both come to every sample from the same state.
class CheckingScope {
 public:
  CheckingScope() noexcept;
  ~CheckingScope();
  CheckingScope(const CheckingScope&) = delete;
  CheckingScope& operator=(const CheckingScope&) = delete;

 private:
  bool was_checking_;
};

// While one lives with `active` true, each call is sent with kReplyOnReturn (protocol.hpp): the
// timing engine holds one around every call of a pipelined window but the last
// (timing::Workload::pipelined_calls).
class ReplyOnReturn {
 public:
  explicit ReplyOnReturn(bool active) noexcept;
  ~ReplyOnReturn();
  ReplyOnReturn(const ReplyOnReturn&) = delete;
  ReplyOnReturn& operator=(const ReplyOnReturn&) = delete;

 private:
  bool was_ = false;
};

// While one lives (the timing engine's measurements), the judge and its timed runners run on
// cores of their own (where each lands would otherwise tilt the ratio, see judge.cpp), and the
// runners poll for the next request rather than sleep between calls.
class TimingPin {
 public:
  TimingPin();
  ~TimingPin();
  TimingPin(const TimingPin&) = delete;
  TimingPin& operator=(const TimingPin&) = delete;

 private:
  cpu_set_t saved_{};
  bool active_ = false;
  bool pinned_ = false;
};

// Gated timing windows (protocol.hpp, arm_window; gated_window.cpp). A window timed from the
// judge's request to the runner's reply carries the runner's host path (the request's transit,
// its launches, the reply's), which differs by tens of microseconds from one runner process to
// another and stays with it: the bias of a runner pair. A gated window is armed before the
// sample's inputs are prepared: its calls are made at once, each queued by the runner behind a
// word of the judge's (the gate), and the runner queues the write of a done word behind them. The
// judge then prepares the inputs, and on its timed stream records its start event, opens the gate,
// waits for the done word and records its stop event: the clock holds the GPU's switches to the
// runner's context and back and the calls' work, no host path (bench/probes/gated_window_probe.cu).
//
//   begin_gated_window();   the window's calls (to one side) ...   end_gated_window_arming();
//   ... the sample's preparation ...
//   start event; open_gated_window(stream); stop event; finish_gated_window(); read the events;
//   the device-idle check; settle_gated_window().
//
// Anything that goes wrong while arming (a call that does not return while its work is held
// back, because it waits for the GPU itself; a runner that fails) ends that runner and throws
// GateRefused: the engine then measures without the gate, as every call was timed before.
class GateRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Whether this judge times through gated windows (CUDALABS_GATED_WINDOWS=0 turns them off; after
// a refusal, not for the rest of that test).
bool gated_windows() noexcept;
// Why a refusal gave gated windows up for the rest of this test ("" when none did): the reason
// each later measurement of the test carries (timing::PairedResult::ungated_because).
std::string gate_given_up_in_test();
void begin_gated_window();
// False when no call went to a runner while arming (nothing was gated: the caller's launch was
// the judge's own work).
bool end_gated_window_arming();
void open_gated_window(cudaStream_t stream);
// Waits until the runner wrote the done word (bounded: a runner that ends or hangs meanwhile fails
// as a call would). The runner's work may still run on streams the gate did not hold (its own):
// the device-idle check after the window comes before settle_gated_window, so it sees that work.
void finish_gated_window();
// Waits until the last finished window's runner has no work left, and reports a fault of that work
// as a call would. Nothing when none is owed (begin_gated_window settles one left over).
void settle_gated_window();
// Whatever window is under way is given up: its runner is ended, the judge's stream let go.
void abandon_gated_window() noexcept;
// A gated window of one empty kernel on `side`'s runner: the window's own cost, subtracted from
// every gated window as ping_ms is from every other.
double gated_ping_ms(Side side, cudaStream_t stream);

// The student's and the reference's runners are ended; the next call starts new ones. A timed
// case measured again gets a new pair: each pair of processes carries a bias of its own (the same
// solution measured 0.94-1.13x of itself on the H100, fixed for a pair, not seen in the round
// trip of an empty call), so a second draw is a second opinion.
void replace_timed_runners() noexcept;

// End of a test: the runners close the buffers and segments they opened; a student runner
// whose context is broken is replaced before the next call.
void end_of_test() noexcept;

namespace detail {

struct CallBuilder {
  Request request;
  std::vector<WritableRange> outputs;
  std::vector<SharedSegment> segments;  // host memory the runner must have mapped first
};

// Set from the harness's .preinit_array when labgrade asked for confinement: a judge is not
// confined itself (it starts runners), its runners are.
void set_confine_runners() noexcept;

CallBuilder begin_call(const char* function);
void add_pointer(CallBuilder& call, const void* pointer, bool writable);
void add_stream(CallBuilder& call);
void add_stream_array(CallBuilder& call);
void add_value(CallBuilder& call, const void* bytes, std::size_t size);
std::uint64_t finish_call(Side side, CallBuilder& call);

template <class T>
void add_argument(CallBuilder& call, T value) {
  if constexpr (std::is_same_v<T, cudaStream_t>) {
    static_cast<void>(value);
    add_stream(call);
  } else if constexpr (std::is_same_v<T, const cudaStream_t*> || std::is_same_v<T, cudaStream_t*>) {
    if (value == nullptr) {
      add_pointer(call, nullptr, false);  // an invalid argument the implementation must refuse
    } else {
      add_stream_array(call);
    }
  } else if constexpr (std::is_pointer_v<T>) {
    add_pointer(call, value, !std::is_const_v<std::remove_pointer_t<T>>);
  } else {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>, "lab API arguments are numbers, pointers or streams");
    static_assert(sizeof(T) <= sizeof(std::uint64_t), "a lab API value argument must fit 8 bytes");
    add_value(call, &value, sizeof value);
  }
}

// Around a solution:: call run in the judge: what the judge queued is on the device first, as for
// a runner's call; after it, the call's work is done and the context is sound (a trusted call that
// broke it throws: the test fails with a machine fault, not the student's).
void before_call_in_judge();
void after_call_in_judge(const char* function);
// A call made while a gated window is arming (finish_call sends it there).
std::uint64_t call_in_window(Side side, CallBuilder& call);
// Whether the last Side::reference call went to the reference's runner and wrote no memory of the
// judge's: it can only have set that runner's own state (a filter in __constant__ memory), so the
// thunk makes the same call in the judge, whose solution computes the expected outputs (then false).
bool take_reference_state_call() noexcept;
}  // namespace detail

// A solution:: call run in the judge: `run` calls the linked-in solution.
template <class R, class Run>
R call_in_judge(const char* function, Run&& run) {
  detail::before_call_in_judge();
  const R result = run();
  detail::after_call_in_judge(function);
  return result;
}

// Runs `function` with `args` on `side` and returns what it returned (R: a number or an enum).
template <class R, class... Args>
R call(Side side, const char* function, Args... args) {
  static_assert(sizeof...(Args) <= kMaxArguments, "too many arguments for the runner protocol");
  static_assert(std::is_trivially_copyable_v<R> && sizeof(R) <= sizeof(std::uint64_t), "a lab API returns a number");
  detail::CallBuilder builder = detail::begin_call(function);
  (detail::add_argument(builder, args), ...);
  const std::uint64_t raw = detail::finish_call(side, builder);
  R result{};
  std::memcpy(&result, &raw, sizeof result);
  return result;
}

}  // namespace cudalabs::remote
