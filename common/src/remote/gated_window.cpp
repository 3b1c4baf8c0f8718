// The judge's side of a gated timing window (cudalabs/remote/judge.hpp; protocol.hpp, arm_window).
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/remote/stream_words.hpp"
#include "cudalabs/timing/event_timer.hpp"
#include "judge_state.hpp"

namespace cudalabs::remote {
namespace {

// A call of a window being armed only queues work behind the gate: an honest one returns in
// microseconds (milliseconds with an allocation). One still inside after this waits for the GPU
// itself, which the gate holds back until the judge opens it: measured without the gate instead.
constexpr int kArmingTimeoutMs = 500;
// A timed window is milliseconds of GPU work. One whose done word has not come after this is
// given up for a window timed from request to reply: slow code is measured that way as it always
// was, and work that cannot end behind the gate (H100: writes_outputs_before_the_call's thread,
// whose work waited on the gated stream for inputs that had changed already) ends with its runner.
constexpr auto kWindowLimit = std::chrono::seconds(1);
constexpr auto kLivenessEvery = std::chrono::milliseconds(1);
constexpr int kSettleTimeoutMs = 300'000;
static_assert(kDoneWordOffset % 128 == 0, "the done word lies on a cache line of its own");

Runner& runner_of(Side side) {
  JudgeState& state = judge();
  return side == Side::student ? state.student : state.reference;
}

std::uint32_t* gate_word(Side side) {
  auto& words = judge().gate_words[static_cast<int>(side)];
  if (!words) {
    words = std::make_unique<DeviceBuffer<std::uint32_t>>(kDoneWordOffset / sizeof(std::uint32_t) + 1);
    words->fill_bytes(0);
  }
  return words->data();
}

std::uint32_t* done_word(Side side) { return gate_word(side) + kDoneWordOffset / sizeof(std::uint32_t); }

// Lets the judge's stream past its wait for the done word (the runner did not write it).
void write_done_ourselves(const GatedWindowState& window) noexcept {
  JudgeState& state = judge();
  if (state.unblocking == nullptr &&
      cudaStreamCreateWithFlags(&state.unblocking, cudaStreamNonBlocking) != cudaSuccess) {
    return;
  }
  if (write_word(state.unblocking, done_word(window.side), window.number) == cudaSuccess) {
    static_cast<void>(cudaStreamSynchronize(state.unblocking));
    static_cast<void>(cudaEventSynchronize(state.window_passed));
  }
  static_cast<void>(cudaGetLastError());
}

// Ends the window's runner and its window; the engine measures without the gate.
[[noreturn]] void refuse(const std::string& why, bool trusted_failure_before) {
  JudgeState& state = judge();
  runner_of(state.window.side).stop();
  state.window = GatedWindowState{};
  // A failure here is measured again without the gate, where it counts if it happens again.
  state.trusted_runner_failed = trusted_failure_before;
  state.gate_given_up_in_test = why;  // the test's other measurements go without the gate at once
  throw GateRefused(why);
}

Reply ask(Runner& runner, Request& request, int timeout_ms) {
  const Reply reply = runner.transact(request, timeout_ms);
  if (reply.status != ReplyStatus::ok) {
    throw RunnerFailure(std::string(request.function) + ": " + printable(reply.message, sizeof reply.message));
  }
  return reply;
}

// The window's runner is `side`'s, its streams held at the gate (the first call's doing).
Runner& arm(Side side) {
  JudgeState& state = judge();
  GatedWindowState& window = state.window;
  if (window.armed) {
    if (window.side != side) throw std::logic_error("runner protocol: a gated window's calls go to one side");
    return runner_of(side);
  }
  window.side = side;
  Runner& runner = state.runner(side);
  detail::CallBuilder gate = detail::begin_call("arm_window");
  detail::add_pointer(gate, gate_word(side), true);
  gate.request.kind = MessageKind::arm_window;
  gate.request.window = window.number;
  ask(runner, gate.request, kArmingTimeoutMs);
  window.armed = true;
  return runner;
}

// One request of the window being armed (a call, or a gated ping's empty kernel), sent to `side`'s
// runner after arming it; any failure ends that runner and the window (refuse).
std::uint64_t send_in_window(Side side, Request& request, const std::vector<SharedSegment>& segments = {}) {
  JudgeState& state = judge();
  const bool trusted_failure_before = state.trusted_runner_failed;
  try {
    Runner& runner = arm(side);
    for (const SharedSegment& segment : segments) runner.share_segment(segment);
    request.flags = kInWindow;
    const std::uint64_t value = ask(runner, request, kArmingTimeoutMs).value;
    state.window.function = request.function;
    return value;
  } catch (const RunnerFailure& failure) {
    refuse(failure.what(), trusted_failure_before);
  }
}

}  // namespace

bool Runner::hung_up() const noexcept {
  if (fd_ < 0) return true;
  pollfd watched{fd_, POLLIN, 0};
  return ::poll(&watched, 1, 0) != 0;  // a hang-up, an error or an unasked message
}

bool gated_windows() noexcept {
  static const bool off = [] {
    const char* value = std::getenv("CUDALABS_GATED_WINDOWS");
    return value != nullptr && std::strcmp(value, "0") == 0;
  }();
  // Not under a tool (--sanitize, --profile): a profiler that runs each kernel as it is launched
  // would wait at the gate, and nothing such a run times is scored.
  return judge_mode() && !off && judge().gate_given_up_in_test.empty() && runner_launcher(Side::student).empty() &&
         runner_launcher(Side::reference).empty();
}

std::string gate_given_up_in_test() { return judge_mode() ? judge().gate_given_up_in_test : std::string(); }

void begin_gated_window() {
  JudgeState& state = judge();
  if (state.window.arming || state.window.armed) throw std::logic_error("runner protocol: a gated window is under way");
  settle_gated_window();  // the last window's, when its sample ended before its checks did
  if (state.window_passed == nullptr) {
    CUDALABS_CHECK(cudaEventCreateWithFlags(&state.window_passed, cudaEventDisableTiming));
  }
  state.window = GatedWindowState{};
  state.window.arming = true;
  state.window.number = ++state.windows;
}

namespace detail {

std::uint64_t call_in_window(Side side, CallBuilder& call) {
  const std::uint64_t value = send_in_window(side, call.request, call.segments);
  judge().last_call_outputs = std::move(call.outputs);
  return value;
}

}  // namespace detail

bool end_gated_window_arming() {
  JudgeState& state = judge();
  GatedWindowState& window = state.window;
  if (!window.arming) throw std::logic_error("runner protocol: no gated window is arming");
  window.arming = false;
  if (!window.armed) {
    window = GatedWindowState{};
    return false;
  }
  const bool trusted_failure_before = state.trusted_runner_failed;
  try {
    Request close;
    close.kind = MessageKind::close_window;
    close.window = window.number;
    std::snprintf(close.function, sizeof close.function, "%s", "close_window");
    ask(runner_of(window.side), close, kArmingTimeoutMs);
  } catch (const RunnerFailure& failure) {
    refuse(failure.what(), trusted_failure_before);
  }
  window.closed = true;
  return true;
}

void open_gated_window(cudaStream_t stream) {
  JudgeState& state = judge();
  GatedWindowState& window = state.window;
  if (!window.closed || window.opened) throw std::logic_error("runner protocol: no gated window to open");
  window.opened = true;  // from here on, abandoning the window also lets the judge's stream go
  CUDALABS_CHECK(write_word(stream, gate_word(window.side), window.number));
  CUDALABS_CHECK(wait_for_word(stream, done_word(window.side), window.number));
  CUDALABS_CHECK(cudaEventRecord(state.window_passed, stream));
}

void finish_gated_window() {
  JudgeState& state = judge();
  const GatedWindowState window = state.window;
  if (!window.opened) throw std::logic_error("runner protocol: no gated window to finish");
  Runner& runner = runner_of(window.side);
  const auto started = std::chrono::steady_clock::now();
  auto next_look = started + kLivenessEvery;
  for (;;) {
    const cudaError_t passed = cudaEventQuery(state.window_passed);
    if (passed == cudaSuccess) break;
    if (passed != cudaErrorNotReady) {
      abandon_gated_window();
      CUDALABS_CHECK(passed);
    }
    const auto now = std::chrono::steady_clock::now();
    if (now < next_look) continue;
    next_look = now + kLivenessEvery;
    if (runner.hung_up()) {
      write_done_ourselves(window);
      state.window = GatedWindowState{};
      runner.fail("ended or broke the protocol during its timed calls");
    }
    if (now - started > kWindowLimit) {
      write_done_ourselves(window);
      refuse("its timed calls had not finished 1 s after the window opened", state.trusted_runner_failed);
    }
  }
  state.window = GatedWindowState{};
  state.settle_owed = true;
  state.settle_side = window.side;
  state.settle_function = window.function;
}

void settle_gated_window() {
  JudgeState& state = judge();
  if (!state.settle_owed) return;
  state.settle_owed = false;
  Runner& runner = runner_of(state.settle_side);
  if (!runner.running()) return;
  Request settle;
  settle.kind = MessageKind::settle;
  std::snprintf(settle.function, sizeof settle.function, "%s", state.settle_function.c_str());
  const Reply reply = runner.transact(settle, kSettleTimeoutMs);
  if (reply.status == ReplyStatus::device_failure) {
    runner.fail("failed on the GPU during " + state.settle_function + ": " +
                printable(reply.message, sizeof reply.message));
  }
  if (reply.status != ReplyStatus::ok) runner.fail("sent a reply the protocol does not have (the runner protocol was broken)");
}

void abandon_gated_window() noexcept {
  JudgeState& state = judge();
  const GatedWindowState window = state.window;
  if (!window.arming && !window.armed) return;
  if (window.opened) write_done_ourselves(window);
  if (window.armed) runner_of(window.side).stop();
  state.window = GatedWindowState{};
}

double gated_ping_ms(Side side, cudaStream_t stream) {
  timing::EventTimer timer;
  begin_gated_window();
  try {
    Request ping;
    ping.kind = MessageKind::ping;
    std::snprintf(ping.function, sizeof ping.function, "%s", "ping");
    send_in_window(side, ping);
    end_gated_window_arming();
    timer.start(stream);
    open_gated_window(stream);
    timer.stop(stream);
    finish_gated_window();
    settle_gated_window();
  } catch (...) {
    abandon_gated_window();
    throw;
  }
  return timer.elapsed_ms();
}

}  // namespace cudalabs::remote
