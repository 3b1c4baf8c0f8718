// The judge's side of the runner protocol (cudalabs/remote/judge.hpp): starting runners, sending
// calls, and believing nothing a runner says but its function's return value.
#include "cudalabs/remote/judge.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/result_stream.hpp"
#include "cudalabs/shared_host_memory.hpp"
#include "cudalabs/timing/event_timer.hpp"
#include "judge_state.hpp"
#include "run_queue_wait.hpp"

extern char** environ;

namespace cudalabs::remote {
namespace {

// A runner that takes longer than this for one call is killed. labgrade's per-test timeout
// (the YAML's test_timeout_seconds) normally ends a hang first; this bounds a judge run by hand.
constexpr int kCallTimeoutMs = 300'000;
constexpr int kStartTimeoutMs = 120'000;
// How long a judge waiting for a reply polls before sleeping, and how long it asks a runner to
// poll for the next request while calls are timed (TimingPin) and otherwise.
constexpr int kSpinMs = 50;
constexpr std::uint32_t kRunnerSpinTimedMs = 50;
constexpr std::uint32_t kRunnerSpinMs = 1;

bool confine_requested = false;

const char* side_name(Side side) { return side == Side::student ? "your code" : "the reference solution"; }


std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const char* name = sigabbrev_np(signal);
    return std::string("was killed by signal ") + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended";
}

// The driver functions the runtime does not wrap, found through the runtime so the judge does
// not link libcuda (CI machines have no driver).
struct DriverCalls {
  CUresult (*get_address_range)(CUdeviceptr*, std::size_t*, CUdeviceptr) = nullptr;
  CUresult (*get_pointer_attribute)(void*, CUpointer_attribute, CUdeviceptr) = nullptr;
};

const DriverCalls& driver() {
  static const DriverCalls calls = [] {
    DriverCalls found;
    cudaDriverEntryPointQueryResult status{};
    CUDALABS_CHECK(cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", reinterpret_cast<void**>(&found.get_address_range),
                                                    12000, cudaEnableDefault, &status));
    CUDALABS_CHECK(cudaGetDriverEntryPointByVersion("cuPointerGetAttribute",
                                                    reinterpret_cast<void**>(&found.get_pointer_attribute), 12000,
                                                    cudaEnableDefault, &status));
    if (!found.get_address_range || !found.get_pointer_attribute) {
      throw std::runtime_error("the CUDA driver does not offer cuMemGetAddressRange/cuPointerGetAttribute");
    }
    return found;
  }();
  return calls;
}

}  // namespace

std::string printable(const char* text, std::size_t capacity) {
  std::string out;
  for (std::size_t i = 0; i < capacity && text[i] != '\0'; ++i) {
    const char c = text[i];
    out += (c >= 0x20 && c < 0x7F) ? c : '?';
  }
  return out;
}

bool confine_runners() noexcept { return confine_requested; }

namespace {

// "Suite.Name" of the running test, or "outside-any-test".
std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : "outside-any-test";
}

}  // namespace

// The running test's tool_log_name, "~N" added for the Nth name handed out in it (a runner started
// after a crash, or a spanning runner's log kept for the test), skipping names `taken` says exist.
std::string current_test_log_name(const std::function<bool(const std::string&)>& taken) {
  static std::string last_test;
  static int names_in_test = 0;
  const std::string test = current_test_name();
  if (test != last_test) names_in_test = 0;
  last_test = test;
  const std::string name = tool_log_name(test);
  for (;;) {
    ++names_in_test;
    std::string candidate = names_in_test == 1 ? name : name + "~" + std::to_string(names_in_test);
    if (!taken || !taken(candidate)) return candidate;
  }
}

bool tool_runner_spans_tests() noexcept {
  static const bool spans = [] {
    const char* value = std::getenv(kToolRunnerSpansTestsVariable);
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return spans;
}

namespace {

// The size of a file, -1 when it cannot be read.
long long file_size(const std::string& path) noexcept {
  struct stat status{};
  return ::stat(path.c_str(), &status) == 0 ? static_cast<long long>(status.st_size) : -1;
}

}  // namespace

// ---- one runner process ---------------------------------------------------------------------

Runner::~Runner() { stop(); }

void Runner::stop() noexcept {
  // A spanning runner's log that grew during this test holds this test's findings: it is kept
  // under this test's name once the tool has written its summary (below).
  const bool keep_for_test = under_tool_ && tool_runner_spans_tests() && tool_log_grew();  // also once reaped
  // A runner under a tool is let go gently: it sees the hang-up and returns, and the tool writes
  // its summary (which labgrade reads) before it exits. Killed only if that takes too long.
  if (pid_ > 0 && under_tool_ && fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    for (int i = 0; i < 6000; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      ::usleep(10'000);
    }
  }
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  broker_.stop();
  if (fd_ >= 0) ::close(fd_);
  if (schedstat_fd_ >= 0) ::close(schedstat_fd_);
  schedstat_fd_ = -1;
  schedstat_of_ = -1;
  pid_ = -1;
  fd_ = -1;
  awaiting_ready_ = false;
  segments_sent_.clear();
  if (keep_for_test) keep_tool_log_for_current_test();
  tool_log_name_.clear();
  tool_log_mark_ = -1;
}

// labgrade reads a test's findings from the logs named after it (grader/src/run/sanitizer_pass.cpp):
// a spanning runner's log, named after the test it started in, is renamed after the test whose
// calls made it grow. Every earlier test it served left nothing in it, so all it holds is this
// test's, as if the runner had started for this test alone.
void Runner::keep_tool_log_for_current_test() noexcept {
  const std::string test = tool_log_name(current_test_name());
  if (tool_log_name_ == test || tool_log_name_.rfind(test + "~", 0) == 0) return;  // started in this test
  const std::string name =
      current_test_log_name([&](const std::string& candidate) { return file_size(tool_log_path(candidate)) >= 0; });
  if (::rename(tool_log_path(tool_log_name_).c_str(), tool_log_path(name).c_str()) != 0) {
    // A finding left under another test's name would be that test's: end the run, so labgrade
    // runs these tests again with a runner each.
    std::fprintf(stderr, "cudalabs judge: cannot rename the tool's log %s to %s: %s\n",
                 tool_log_path(tool_log_name_).c_str(), tool_log_path(name).c_str(), std::strerror(errno));
    std::_Exit(70);
  }
}

bool Runner::tool_log_grew() const noexcept {
  if (tool_log_name_.empty() || tool_log_mark_ < 0) return false;
  return file_size(tool_log_path(tool_log_name_)) > tool_log_mark_;
}

void Runner::mark_tool_log(bool at_start) noexcept {
  if (!under_tool_ || tool_log_name_.empty()) return;
  const std::string path = tool_log_path(tool_log_name_);
  tool_log_mark_ = std::max(0LL, file_size(path));
  if (!at_start) return;
  // At the start, only the tool's banner (its first line) is left out: anything it reported while
  // the runner started (the student's code at load time; H100: "CUDA initialized before the
  // Sanitizer. The Sanitizer will be disabled" after a static constructor's kernel) concerns
  // every test the runner would serve, so it counts as this test's and the runner serves one.
  if (FILE* file = std::fopen(path.c_str(), "rb")) {
    char head[512];
    const std::size_t got = std::fread(head, 1, sizeof head, file);
    std::fclose(file);
    const void* newline = std::memchr(head, '\n', got);
    if (newline != nullptr) tool_log_mark_ = static_cast<const char*>(newline) - head + 1;
  }
}

std::string Runner::end_of(const std::string& what) noexcept {
  std::string ended = what;
  if (pid_ > 0) {
    int status = 0;
    rusage usage{};
    // A runner that hung up is usually already gone; give it a moment, then end it.
    for (int i = 0; i < 50; ++i) {
      const pid_t done = ::wait4(pid_, &status, WNOHANG, &usage);
      if (done == pid_) {
        ended += ": the process " + describe_wait_status(status);
        if (WIFSIGNALED(status)) {
          std::size_t& peak = judge().crashed_runner_peak_bytes;
          peak = std::max(peak, static_cast<std::size_t>(usage.ru_maxrss) * 1024);  // ru_maxrss is in KiB
        }
        pid_ = -1;
        break;
      }
      ::usleep(2000);
    }
  }
  stop();
  return ended;
}

[[noreturn]] void Runner::fail(const std::string& what) {
  if (side_ != Side::student) judge().trusted_runner_failed = true;
  const std::string ended = end_of(what);
  throw RunnerFailure(std::string(side_name(side_)) + " (in its runner process) " + ended);
}

void Runner::start() {
  spawn();
  await_ready();
}

void Runner::spawn() {
  if (running()) return;
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair for a runner");
  }
  // The child's end becomes its descriptor 3; nothing else of this process is inherited.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], 3);
  posix_spawn_file_actions_addclosefrom_np(&actions, 4);
  std::string path = executable_;
  char socket_arg[] = "--socket=3";
  // A runner may be started through a tool (labgrade --sanitize: compute-sanitizer on the
  // student's; --profile: Nsight Compute on the student's or the reference's), so that only that
  // side's kernels are instrumented; never while confining (the tool works inside the process it
  // watches, which confinement would stop).
  std::vector<std::string> tool =
      confine_runners() ? std::vector<std::string>{} : runner_launcher(side_);
  under_tool_ = !tool.empty();
  tool_log_prefix_.clear();
  tool_log_suffix_.clear();
  tool_log_name_.clear();
  tool_log_mark_ = -1;
  if (under_tool_) {
    // The word that names the log (compute-sanitizer's --log-file DIR/{test}.log), split around
    // the placeholder, so the log can be found again and a name in use is never handed out twice.
    for (const std::string& word : tool) {
      const std::size_t at = word.find(kCurrentTestPlaceholder);
      if (at == std::string::npos) continue;
      tool_log_prefix_ = word.substr(0, at);
      tool_log_suffix_ = word.substr(at + std::strlen(kCurrentTestPlaceholder));
      break;
    }
    const std::string log_name = current_test_log_name([&](const std::string& candidate) {
      return !tool_log_prefix_.empty() && file_size(tool_log_path(candidate)) >= 0;
    });
    for (std::string& word : tool) {
      for (std::size_t at = word.find(kCurrentTestPlaceholder); at != std::string::npos;
           at = word.find(kCurrentTestPlaceholder, at + log_name.size())) {
        word.replace(at, std::strlen(kCurrentTestPlaceholder), log_name);
      }
    }
    if (!tool_log_prefix_.empty() || !tool_log_suffix_.empty()) tool_log_name_ = log_name;
  }
  std::vector<char*> argv;
  for (std::string& word : tool) argv.push_back(word.data());
  argv.push_back(path.data());
  argv.push_back(socket_arg);
  argv.push_back(nullptr);
  const std::string program = under_tool_ ? tool.front() : path;
  // The environment minus what preinit took (token, seed); CUDALABS_CONFINE asks the runner to
  // confine itself before any of its libraries' constructors run.
  std::vector<std::string> variables = runner_environment(environ, own_cuda_queues_narrowed(), confine_runners());
  std::vector<char*> envp;
  for (std::string& v : variables) envp.push_back(v.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  // The child inherits this thread's CPUs, so every thread it ever starts stays on its home ones
  // (and its filter refuses to widen them: cpu_partition.hpp). This thread gets its own back.
  cpu_set_t own;
  const bool moved = !home_.empty() && ::sched_getaffinity(0, sizeof own, &own) == 0 && [&] {
    const cpu_set_t home = cpu_set_of(home_);
    return ::sched_setaffinity(0, sizeof home, &home) == 0;
  }();
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  if (moved) static_cast<void>(::sched_setaffinity(0, sizeof own, &own));
  posix_spawn_file_actions_destroy(&actions);
  ::close(pair[1]);
  if (spawned != 0) {
    ::close(pair[0]);
    throw std::system_error(spawned, std::generic_category(), "starting the runner " + path);
  }
  pid_ = pid;
  fd_ = pair[0];
  awaiting_ready_ = true;
  if (confine_runners()) take_confinement_message();
  apply_pin();
}

// A confined runner's first message (runner_preinit.cpp), sent before any library constructor of
// it runs, so before any student code: ReplyStatus::confined, with the listener of its /proc comm
// broker filter when it has one. Read at once: until the broker serves it, every open for writing
// the runner makes (CUDA's initialisation) waits. A runner that ended instead (its confinement
// refused) is reported by await_ready.
void Runner::take_confinement_message() {
  pollfd ready{fd_, POLLIN, 0};
  for (;;) {
    const int polled = ::poll(&ready, 1, kStartTimeoutMs);
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) fail("did not start (no word from its confinement)");
    break;
  }
  Reply confined;
  int listener = -1;
  const long got = receive_with_descriptor(fd_, &confined, sizeof confined, &listener);
  if (got == 0) return;
  const bool well_formed = got == static_cast<long>(sizeof confined) && confined.magic == kReplyMagic &&
                           confined.status == ReplyStatus::confined && (confined.value == 1) == (listener >= 0);
  if (!well_formed) {
    if (listener >= 0) ::close(listener);
    fail("sent a malformed first message (the runner protocol was broken)");
  }
  if (listener >= 0 && !broker_.start(listener, pid_)) fail("could not be served: starting its /proc broker failed");
}

void Runner::pin_to(int cpu, std::vector<int> others) {
  cpu_ = cpu;
  pinned_others_ = std::move(others);
  apply_pin();
}

void Runner::apply_pin() {
  if (pid_ <= 0) return;
  const std::vector<int>& home = home_.empty() ? judge().allowed_cpus : home_;
  if (cpu_ >= 0) {
    set_thread_affinities(pid_, pinned_others_.empty() ? home : pinned_others_, cpu_);
  } else {
    set_thread_affinities(pid_, home, -1);
  }
}

void Runner::await_ready() {
  if (!awaiting_ready_) return;
  awaiting_ready_ = false;
  Reply ready;
  if (!receive(ready, kStartTimeoutMs)) fail("did not start");
  if (ready.status != ReplyStatus::ready) {
    fail("could not start: " + printable(ready.message, sizeof ready.message));
  }
  mark_tool_log(true);
}

void Runner::send(const Request& request) {
  for (;;) {
    const ssize_t sent = ::send(fd_, &request, sizeof request, MSG_NOSIGNAL);
    if (sent == static_cast<ssize_t>(sizeof request)) return;
    if (sent < 0 && errno == EINTR) continue;
    fail("hung up");
  }
}

// One datagram of exactly a Reply, with our magic and the request's sequence number, in time.
bool Runner::receive(Reply& reply, int timeout_ms) {
  // Spin first: a call's reply usually comes within microseconds of its work, and a sleeping
  // judge would add its wake-up (and that wake-up's jitter) to every sample. Then sleep.
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kSpinMs);
  for (;;) {
    const ssize_t got = ::recv(fd_, &reply, sizeof reply, MSG_TRUNC | MSG_DONTWAIT);
    if (got >= 0 || (errno != EAGAIN && errno != EINTR)) return accept(reply, got);
    if (std::chrono::steady_clock::now() >= spin_until) break;
  }
  pollfd ready{fd_, POLLIN, 0};
  for (;;) {
    const int polled = ::poll(&ready, 1, timeout_ms);
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      fail("did not answer within " +
           (timeout_ms >= 1000 ? std::to_string(timeout_ms / 1000) + " s" : std::to_string(timeout_ms) + " ms") +
           " (a hang?)");
    }
    break;
  }
  return accept(reply, ::recv(fd_, &reply, sizeof reply, MSG_TRUNC));
}

bool Runner::accept(const Reply& reply, ssize_t got) {
  if (got <= 0) return false;
  if (got != static_cast<ssize_t>(sizeof reply) || reply.magic != kReplyMagic) {
    fail("sent a malformed reply (the runner protocol was broken)");
  }
  return true;
}

Reply Runner::transact(Request& request, int timeout_ms) {
  await_ready();
  request.sequence = ++sequence_;
  request.spin_ms = judge().timing ? kRunnerSpinTimedMs : kRunnerSpinMs;
  const auto sent_at = std::chrono::steady_clock::now();
  send(request);
  Reply reply;
  if (!receive(reply, timeout_ms)) fail("hung up during " + printable(request.function, sizeof request.function));
  judge().last_transact_host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent_at).count();
  if (reply.sequence != request.sequence) fail("answered a request that was not asked (the runner protocol was broken)");
  return reply;
}

void Runner::share_segment(const SharedSegment& segment) {
  if (segments_sent_.count(segment.id) != 0) return;
  Request request;
  request.kind = MessageKind::map_host_segment;
  request.segment = segment.id;
  request.segment_bytes = segment.bytes;
  request.arguments[0].value = static_cast<std::uint64_t>(segment.shm_id);
  request.sequence = ++sequence_;
  send(request);
  Reply reply;
  if (!receive(reply, kCallTimeoutMs)) fail("hung up while mapping host memory");
  if (reply.sequence != request.sequence) fail("answered a request that was not asked (the runner protocol was broken)");
  if (reply.status != ReplyStatus::ok) fail("could not map pinned host memory: " + printable(reply.message, sizeof reply.message));
  segments_sent_.insert(segment.id);
}

// ---- the judge's runners and calls ------------------------------------------------------------

JudgeState& judge() {
  static JudgeState state;
  return state;
}

Runner& JudgeState::runner(Side side) {
  // Each runner initialises CUDA (a few hundred milliseconds): the two every test calls at once, on
  // first use (the reference's not where the solution runs in the judge). Fewer contexts on a GPU
  // that a batch's correctness tests share (each one costs every other a turn).
  if (side == Side::reference && solution_runs_in_judge()) {
    throw std::logic_error("runner protocol: a reference call reached a runner while the solution runs in the judge");
  }
  student.spawn();
  if (!reference_in_judge()) reference.spawn();
  Runner& chosen = side == Side::student ? student : reference;
  chosen.spawn();
  chosen.await_ready();
  return chosen;
}

bool judge_mode() noexcept { return judge().lab_id != nullptr; }

bool reference_in_judge() noexcept {
  // The variable read once; judge_mode() asked every time, so a call made before the judge
  // registers (static initialisation) cannot fix the answer for the whole run.
  static const bool asked = [] {
    const char* value = std::getenv(kReferenceInJudgeVariable);
    return value != nullptr && std::strcmp(value, "1") == 0;
  }();
  return asked && judge_mode();
}

bool solution_runs_in_judge() noexcept { return reference_in_judge() || (judge_mode() && judge().checking); }

std::uint64_t calls_made() noexcept { return judge().calls; }

double last_call_host_ms() noexcept { return judge().last_transact_host_ms; }

int student_runner_for_memory_check() noexcept {
  if (!judge_mode()) return -1;
  JudgeState& state = judge();
  if (!state.student.running()) {
    if (!runner_launcher(Side::student).empty() || !runner_launcher(Side::reference).empty()) return -1;
    try {
      state.runner(Side::student);
    } catch (...) {
      state.student.stop();
      return -1;
    }
  }
  return state.student.pid();
}

void start_runners_ahead() noexcept {
  if (!judge_mode()) return;
  if (!runner_launcher(Side::student).empty() || !runner_launcher(Side::reference).empty()) return;
  JudgeState& state = judge();
  try {
    state.student.spawn();
    if (!reference_in_judge()) state.reference.spawn();
  } catch (...) {
    // Whatever did not start is started on first use, where a failure is reported with its test.
  }
}

int student_runner_pid() noexcept { return judge_mode() && judge().student.running() ? judge().student.pid() : -1; }

void end_student_runner() noexcept {
  if (judge_mode()) judge().student.stop();
}

std::size_t take_crashed_runner_peak_bytes() noexcept { return std::exchange(judge().crashed_runner_peak_bytes, 0); }

bool take_trusted_runner_failed() noexcept { return std::exchange(judge().trusted_runner_failed, false); }

bool last_student_call_returned_while_busy() { return judge().last_student_returned_while_busy; }

const std::vector<WritableRange>& last_call_outputs() { return judge().last_call_outputs; }

namespace detail {

// The runners sit beside the judge's executable (labgrade copies all three next to the
// submission's library; the student runner finds that library through its $ORIGIN run path).
void register_judge(const char* lab_id) {
  JudgeState& state = judge();
  char self[PATH_MAX] = {};
  const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string directory = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string("./x");
  directory.erase(directory.rfind('/') + 1);
  state.lab_id = lab_id;
  const std::vector<Core> cores = allowed_cores();
  for (const Core& core : cores) state.allowed_cpus.insert(state.allowed_cpus.end(), core.begin(), core.end());
  state.cpus = partition_cores(cores);
  state.student.set_home(state.cpus.student);
  state.student.configure(Side::student, directory + "lab_" + lab_id + "_student_runner");
  state.reference.configure(Side::reference, directory + "lab_" + lab_id + "_reference_runner");

}

void set_confine_runners() noexcept { confine_requested = true; }

CallBuilder begin_call(const char* function) {
  CallBuilder call;
  call.request.kind = MessageKind::call;
  std::snprintf(call.request.function, sizeof call.request.function, "%s", function);
  return call;
}

namespace {
Argument& next_argument(CallBuilder& call) {
  if (call.request.argument_count >= static_cast<std::uint32_t>(kMaxArguments)) {
    throw std::logic_error("runner protocol: too many arguments");
  }
  return call.request.arguments[call.request.argument_count++];
}
}  // namespace

void add_value(CallBuilder& call, const void* bytes, std::size_t size) {
  Argument& argument = next_argument(call);
  argument.kind = ArgumentKind::value;
  std::memcpy(&argument.value, bytes, size);
}

void add_stream(CallBuilder& call) { next_argument(call).kind = ArgumentKind::stream; }
void add_stream_array(CallBuilder& call) { next_argument(call).kind = ArgumentKind::stream_array; }

void add_pointer(CallBuilder& call, const void* pointer, bool writable) {
  Argument& argument = next_argument(call);
  if (pointer == nullptr) {
    argument.kind = ArgumentKind::null;
    return;
  }
  if (SharedSegment segment; find_shared_segment(pointer, &segment)) {
    argument.kind = ArgumentKind::host;
    argument.segment = segment.id;
    argument.offset = static_cast<std::uint64_t>(static_cast<const unsigned char*>(pointer) - segment.base);
    argument.extent = segment.bytes;
    call.segments.push_back(segment);
    if (writable) call.outputs.push_back({segment.base, segment.bytes, true});
    return;
  }
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    attributes.type = cudaMemoryTypeUnregistered;
  }
  if (attributes.type != cudaMemoryTypeDevice) {
    throw std::logic_error(std::string("runner protocol: argument ") + std::to_string(call.request.argument_count) + " of " +
                           call.request.function +
                           " is host memory a runner cannot see (a suite bug: pass device memory from cudaMalloc, "
                           "or host memory from a PinnedHostBuffer)");
  }
  const auto address = reinterpret_cast<CUdeviceptr>(pointer);
  CUdeviceptr base = 0;
  std::size_t bytes = 0;
  unsigned long long buffer_id = 0;
  if (driver().get_address_range(&base, &bytes, address) != CUDA_SUCCESS ||
      driver().get_pointer_attribute(&buffer_id, CU_POINTER_ATTRIBUTE_BUFFER_ID, address) != CUDA_SUCCESS) {
    throw std::logic_error(std::string("runner protocol: cannot find the allocation of an argument of ") +
                           call.request.function);
  }
  JudgeState& state = judge();
  auto handle = state.handles.find(buffer_id);
  if (handle == state.handles.end()) {
    cudaIpcMemHandle_t made{};
    CUDALABS_CHECK(cudaIpcGetMemHandle(&made, reinterpret_cast<void*>(base)));
    handle = state.handles.emplace(buffer_id, made).first;
  }
  argument.kind = ArgumentKind::device;
  argument.buffer_id = buffer_id;
  argument.offset = address - base;
  argument.extent = bytes;
  argument.handle = handle->second;
  if (writable) call.outputs.push_back({reinterpret_cast<void*>(base), bytes, false});
}

void before_call_in_judge() {
  if (!judge_mode()) throw std::logic_error("runner protocol: not a judge process");
  CUDALABS_CHECK(cudaDeviceSynchronize());
}

bool take_reference_state_call() noexcept { return std::exchange(judge().reference_state_call, false); }

void after_call_in_judge(const char* function) {
  // An error the call returned (arguments it refused, a launch it could not make) is its result,
  // which the suite reads as it would a runner's; only work that failed on the device is a fault.
  static_cast<void>(cudaGetLastError());
  const cudaError_t failed = cudaDeviceSynchronize();
  if (failed == cudaSuccess) return;
  judge().trusted_runner_failed = true;  // the solution's doing, or the machine's: never the student's
  throw RunnerFailure(std::string("the reference (run in the judge) failed on the GPU during ") + function + ": " +
                      cudaGetErrorString(failed));
}

std::uint64_t finish_call(Side side, CallBuilder& call) {
  ++judge().calls;
  // Whatever the judge queued on any stream (the inputs, the poisoned outputs) is on the device
  // before the runner can look.
  CUDALABS_CHECK(cudaDeviceSynchronize());
  JudgeState& state = judge();
  if (!judge_mode()) throw std::logic_error("runner protocol: not a judge process");
  if (state.window.arming) return call_in_window(side, call);  // queued behind a gated window's gate
  Runner& runner = state.runner(side);
  for (const SharedSegment& segment : call.segments) runner.share_segment(segment);
  // A reference call that writes no memory of ours can only set the runner's own state (a
  // filter in __constant__ memory): the thunk makes it in the judge too, whose solution computes
  // the expected outputs (both run the same solution).
  state.reference_state_call = false;
  const bool sets_state_only = side == Side::reference && call.outputs.empty();
  call.request.flags = state.reply_on_return ? kReplyOnReturn : 0;
  const Reply reply = runner.transact(call.request, kCallTimeoutMs);
  switch (reply.status) {
    case ReplyStatus::ok:
      state.reference_state_call = sets_state_only;
      state.last_call_outputs = std::move(call.outputs);
      if (side == Side::student) state.last_student_returned_while_busy = (reply.flags & kReturnedWhileBusy) != 0;
      return reply.value;
    case ReplyStatus::device_failure:
      runner.fail("failed on the GPU during " + std::string(call.request.function) + ": " +
                  printable(reply.message, sizeof reply.message));
    case ReplyStatus::unknown_function:
      runner.fail(std::string("does not provide ") + call.request.function);
    default:
      runner.fail("sent a reply the protocol does not have (the runner protocol was broken)");
  }
}

}  // namespace detail

// An ungated window's clock brackets each call's host path (request, launch, reply; a gated
// window's holds none, gated_window.cpp, but a measurement may fall back): while timed cases run (alone
// on the GPU), the judge and the two timed runners each get a core of their own (the physical
// core: no hardware thread of it shared), when there are enough; otherwise where a runner lands
// tilts the ratio one way or the other (seen on the H100 machine: the same solution at 1.00-1.07
// of itself from run to run). The student's runner never leaves its own cores (cpu_partition.hpp).
TimingPin::TimingPin() {
  JudgeState& state = judge();
  if (!judge_mode()) return;
  if (reference_in_judge()) {
    throw std::logic_error(
        "a timed case in a judge whose reference runs in process (CUDALABS_REFERENCE_IN_JUDGE): labgrade sets it "
        "only for runs that time nothing, since a ratio needs both sides timed in runners alike");
  }
  state.timing = true;
  active_ = true;
  if (const char* pin = std::getenv("CUDALABS_TIMING_PIN"); pin != nullptr && std::strcmp(pin, "0") == 0) return;
  const CpuPartition& cpus = state.cpus;
  if (!cpus.pins() || ::sched_getaffinity(0, sizeof(cpu_set_t), &saved_) != 0) return;
  const cpu_set_t mine = cpu_set_of({cpus.judge_cpu});
  if (::sched_setaffinity(0, sizeof mine, &mine) != 0) return;
  // Each runner's other threads (the CUDA runtime's, a host function's) off its main thread's
  // CPU, so a wait for that CPU in a window (timed_threads_run_queue_waits) is another
  // process's doing: on the H100 a host function's thread sharing the student's CPU made every
  // window of lab 01's second_stream_and_host_func fixture wait (up to 1 ms).
  state.student.pin_to(cpus.student_cpu, all_but(cpus.student, cpus.student_cpu));
  state.reference.pin_to(cpus.reference_cpu, all_but(cpus.reference_core, cpus.reference_cpu));
  pinned_ = true;
}

TimingPin::~TimingPin() {
  if (active_) judge().timing = false;
  if (!pinned_) return;
  static_cast<void>(::sched_setaffinity(0, sizeof saved_, &saved_));
  JudgeState& state = judge();
  for (Runner* runner : {&state.student, &state.reference}) runner->pin_to(-1);
}

std::int64_t Runner::run_queue_wait_ns() noexcept {
  if (pid_ <= 0 || under_tool_) return 0;
  if (schedstat_of_ != pid_) {
    if (schedstat_fd_ >= 0) ::close(schedstat_fd_);
    schedstat_fd_ = open_schedstat(pid_, pid_);
    schedstat_of_ = pid_;
  }
  return read_run_queue_wait_ns(schedstat_fd_);
}

std::int64_t judge_thread_run_queue_wait_ns() noexcept {
  if (!judge_mode()) return -1;
  thread_local const int own = open_schedstat(0, 0);
  return read_run_queue_wait_ns(own);
}

RunQueueWaits timed_threads_run_queue_waits() noexcept {
  RunQueueWaits waits;
  std::int64_t trusted = judge_thread_run_queue_wait_ns();
  if (trusted < 0) return waits;
  JudgeState& state = judge();
  const std::int64_t reference_waited = state.reference.run_queue_wait_ns();
  if (reference_waited < 0) return waits;
  trusted += reference_waited;
  waits.trusted = trusted;
  waits.student = state.student.run_queue_wait_ns();
  return waits;
}

ReplyOnReturn::ReplyOnReturn(bool active) noexcept : was_(judge().reply_on_return) {
  judge().reply_on_return = was_ || active;
}
ReplyOnReturn::~ReplyOnReturn() { judge().reply_on_return = was_; }

CheckingScope::CheckingScope() noexcept : was_checking_(judge().checking) { judge().checking = true; }
CheckingScope::~CheckingScope() { judge().checking = was_checking_; }

double ping_ms(Side side, cudaStream_t stream) {
  timing::EventTimer timer;
  Request request;
  request.kind = MessageKind::ping;
  std::snprintf(request.function, sizeof request.function, "%s", "ping");
  timer.start(stream);
  CUDALABS_CHECK(cudaDeviceSynchronize());
  Runner& runner = judge().runner(side);
  const Reply reply = runner.transact(request, kCallTimeoutMs);
  if (reply.status != ReplyStatus::ok) runner.fail("could not answer a ping");
  timer.stop(stream);
  return timer.elapsed_ms();
}

void replace_timed_runners() noexcept {
  JudgeState& state = judge();
  state.student.stop();
  state.reference.stop();
}

void end_of_test() noexcept {
  JudgeState& state = judge();
  state.gate_given_up_in_test.clear();
  state.last_call_outputs.clear();
  // A runner under a tool ends with its test, so the tool's report is that test's alone. When
  // labgrade asked for one runner across the tests (kToolRunnerSpansTestsVariable), it ends only
  // after a test its tool reported something in, its log kept under that test's name (stop()).
  for (Runner* runner : {&state.student, &state.reference}) {
    if (runner->under_tool() && (!tool_runner_spans_tests() || runner->tool_log_grew())) runner->stop();
  }
  for (Runner* runner : {&state.student, &state.reference}) {
    if (!runner->running()) continue;
    try {
      Request request;
      request.kind = MessageKind::forget;
      std::snprintf(request.function, sizeof request.function, "%s", "forget");
      const Reply reply = runner->transact(request, kCallTimeoutMs);
      runner->segments_forgotten();
      if (reply.status != ReplyStatus::ok) runner->stop();  // a broken context: start afresh
    } catch (...) {
      runner->stop();
    }
  }
  for (Runner* runner : {&state.student, &state.reference}) runner->mark_tool_log(false);  // the next test's start
}

}  // namespace cudalabs::remote
