#pragma once
// The judge's runners and its record of what it shared (common/src/remote/judge.cpp).
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../procfs_broker.hpp"
#include "cudalabs/device_buffer.hpp"
#include "../cpu_partition.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/shared_host_memory.hpp"

namespace cudalabs::remote {

namespace detail {
// Called once by the grade harness's thunks (lab_thunks.cpp), before main.
void register_judge(const char* lab_id);
}  // namespace detail

// Printable ASCII only, bounded: a runner's words go into a report (judge.cpp).
std::string printable(const char* text, std::size_t capacity);

// Whether runners confine themselves (labgrade asked this judge to confine its test processes).
bool confine_runners() noexcept;
// Whether narrow_own_cuda_queues set CUDA_DEVICE_MAX_CONNECTIONS for this judge (judge_cuda_queues.cpp).
bool own_cuda_queues_narrowed() noexcept;
std::vector<std::string> student_runner_launcher();  // empty unless labgrade --sanitize or --profile set one
// The tool a runner starts through (runner_launcher.cpp): the student's launcher for the student's
// runner, CUDALABS_REFERENCE_RUNNER_LAUNCHER (labgrade --profile) for the reference's; empty for none.
std::vector<std::string> runner_launcher(Side side);
// tool_log_name of the running test (a launcher's {test}), "~N" added for the Nth name handed out
// in that test; `taken` says whether a name is already a file (a log kept for the test earlier).
std::string current_test_log_name(const std::function<bool(const std::string&)>& taken = {});
// labgrade asked for one tool-launched student runner across the tests (kToolRunnerSpansTestsVariable).
bool tool_runner_spans_tests() noexcept;

class Runner {
 public:
  Runner() = default;
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;
  ~Runner();

  void configure(Side side, std::string executable) {
    side_ = side;
    executable_ = std::move(executable);
  }
  // The CPUs of all its threads while not pinned, its process started on them (for the student's
  // runner: cores of its own, cpu_partition.hpp); empty: wherever the judge may run.
  void set_home(std::vector<int> cpus) { home_ = std::move(cpus); }
  // While timed: its main thread on `cpu`, its other threads on `others` (empty: home); -1: home.
  void pin_to(int cpu, std::vector<int> others = {});
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  bool under_tool() const { return running() && under_tool_; }
  void start();  // spawn, then wait until it is ready
  void spawn();  // start the process; its "ready" is read by the first transact or await_ready
  void await_ready();
  void stop() noexcept;
  Reply transact(Request& request, int timeout_ms);
  void share_segment(const SharedSegment& segment);
  // After a forget: the runner has detached every segment, so each is sent again when used.
  void segments_forgotten() { segments_sent_.clear(); }
  // How long its main thread (the one that serves calls) has waited for a CPU so far
  // (run_queue_wait.hpp); 0 when it is not running or runs under a tool, -1 when unreadable.
  std::int64_t run_queue_wait_ns() noexcept;
  // Kills the runner and throws RunnerFailure: "<side> (in its runner process) <what>: <how it ended>".
  [[noreturn]] void fail(const std::string& what);
  // A runner whose tool spans tests: whether its log grew since the last mark (what the tool
  // reported during the current test), and the mark itself, taken when it is ready (after the
  // tool's banner: a report made while it started counts as the first test's) and at each test's
  // end. False when it has no log of its own.
  bool tool_log_grew() const noexcept;
  void mark_tool_log(bool at_start) noexcept;
  // While it owes no reply (a gated window's clock runs on the GPU): whether it hung up, or sent
  // something nobody asked for (gated_window.cpp).
  bool hung_up() const noexcept;

 private:
  void send(const Request& request);
  bool receive(Reply& reply, int timeout_ms);
  bool accept(const Reply& reply, ssize_t got);
  std::string end_of(const std::string& what) noexcept;
  void apply_pin();
  void take_confinement_message();
  std::string tool_log_path(const std::string& name) const { return tool_log_prefix_ + name + tool_log_suffix_; }
  void keep_tool_log_for_current_test() noexcept;

  Side side_ = Side::student;
  std::string executable_;
  pid_t pid_ = -1;
  bool under_tool_ = false;  // started through runner_launcher()
  // Its tool's log: the launcher word holding {test}, split around it; the name it was given, and
  // the log's size at the mark (-1: none taken).
  std::string tool_log_prefix_, tool_log_suffix_, tool_log_name_;
  long long tool_log_mark_ = -1;
  int fd_ = -1;
  bool awaiting_ready_ = false;
  int cpu_ = -1;  // the CPU its main thread is pinned to, or -1 for its home
  std::vector<int> home_;
  std::vector<int> pinned_others_;
  std::uint64_t sequence_ = 0;
  std::set<std::uint32_t> segments_sent_;
  int schedstat_fd_ = -1;    // its main thread's schedstat, opened at the first read
  pid_t schedstat_of_ = -1;  // the process that file belongs to
  ProcfsBroker broker_;  // names the threads of a confined runner (common/src/procfs_broker.hpp)
};

// A gated timing window under way (gated_window.cpp; protocol.hpp, arm_window).
struct GatedWindowState {
  bool arming = false;  // from begin_gated_window to end_gated_window_arming: calls go with kInWindow
  bool armed = false;   // arm_window went to `side`'s runner
  bool closed = false;  // and close_window
  bool opened = false;  // the judge's stream opens the gate and waits for the done word
  Side side = Side::student;
  std::uint32_t number = 0;      // the gate's value for this window
  std::string function;          // the window's last call, for messages
};

struct JudgeState {
  const char* lab_id = nullptr;
  Runner student;
  Runner reference;
  std::vector<int> allowed_cpus;  // this process's CPUs when it started
  CpuPartition cpus;              // the student's runner's cores and TimingPin's CPUs
  bool checking = false;  // a CheckingScope lives: solution:: calls run in the judge
  bool reference_state_call = false;  // see detail::take_reference_state_call
  bool reply_on_return = false;  // a ReplyOnReturn lives: calls go with kReplyOnReturn
  bool timing = false;    // a TimingPin lives: runners poll longer between requests
  std::map<unsigned long long, cudaIpcMemHandle_t> handles;  // by CU_POINTER_ATTRIBUTE_BUFFER_ID
  std::vector<WritableRange> last_call_outputs;
  std::uint64_t calls = 0;
  bool last_student_returned_while_busy = false;
  double last_transact_host_ms = 0;  // request sent to reply read, by the host's clock
  std::size_t crashed_runner_peak_bytes = 0;  // take_crashed_runner_peak_bytes()
  bool trusted_runner_failed = false;         // take_trusted_runner_failed()
  GatedWindowState window;
  // Why a gated window was refused in this test, the rest of whose measurements go without the
  // gate ("" when none was; end_of_test clears it).
  std::string gate_given_up_in_test;
  std::uint32_t windows = 0;  // gated windows so far (each one's number)
  // Per side, the gate word (offset 0) and the done word (kDoneWordOffset) of its windows, in an
  // allocation of their own: the student's runner never holds the reference's.
  std::unique_ptr<DeviceBuffer<std::uint32_t>> gate_words[2];
  cudaEvent_t window_passed = nullptr;  // recorded behind the wait for the done word
  // A finished window whose runner has not yet said how its work ended (settle_gated_window).
  bool settle_owed = false;
  Side settle_side = Side::student;
  std::string settle_function;
  cudaStream_t unblocking = nullptr;     // writes a done word the runner did not
  Runner& runner(Side side);
};

JudgeState& judge();

}  // namespace cudalabs::remote
