// main() of every runner (cudalabs/remote/protocol.hpp): serves the judge's calls on descriptor 3
// until the judge hangs up. Confined before any library constructor by runner_preinit.cpp. The
// student's runner is untrusted: whatever it does here, the judge checks every output itself and
// times it with its own clock; this loop is the honest behaviour.
#include <signal.h>
#include <sys/shm.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/remote/runner.hpp"
#include "cudalabs/remote/stream_words.hpp"

namespace cudalabs::remote {
cudaError_t launch_null_kernel(cudaStream_t stream);  // null_kernel.cu
}  // namespace cudalabs::remote

namespace {

using namespace cudalabs::remote;

constexpr int kSocket = 3;

struct Segment {
  void* base = nullptr;
  std::size_t bytes = 0;
};

class Memory final : public RunnerMemory {
 public:
  Memory() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
    for (cudaStream_t& s : streams_) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating a stream");
  }

  void* resolve(const Argument& argument) override {
    if (argument.offset >= argument.extent && argument.extent != 0) throw std::invalid_argument("offset past the allocation");
    if (argument.kind == ArgumentKind::device) {
      auto opened = buffers_.find(argument.buffer_id);
      if (opened == buffers_.end()) {
        void* base = nullptr;
        check(cudaIpcOpenMemHandle(&base, argument.handle, cudaIpcMemLazyEnablePeerAccess), "opening a device buffer");
        opened = buffers_.emplace(argument.buffer_id, base).first;
      }
      return static_cast<unsigned char*>(opened->second) + argument.offset;
    }
    if (argument.kind == ArgumentKind::host) {
      const auto mapped = segments_.find(argument.segment);
      if (mapped == segments_.end() || argument.offset >= mapped->second.bytes) {
        throw std::invalid_argument("host memory that was never shared");
      }
      return static_cast<unsigned char*>(mapped->second.base) + argument.offset;
    }
    throw std::invalid_argument("expected a pointer");
  }

  cudaStream_t stream() override { return stream_; }

  // A gated window (protocol.hpp, arm_window): its stream and the legacy default stream wait for
  // the gate word to reach `window`; so does every work queued on them or on a blocking stream
  // after it, and the pipeline streams once a call of the window is given them (streams()).
  void arm(void* gate, std::uint32_t window) {
    if (armed_) throw std::invalid_argument("a window is already armed");
    gate_ = static_cast<std::uint32_t*>(gate);
    window_ = window;
    armed_ = true;
    gated_.clear();
    hold(stream_);
    hold(cudaStreamLegacy);
  }
  // The done word written behind all the window's work on every stream it gated.
  void close() {
    if (!armed_) throw std::invalid_argument("no window is armed");
    armed_ = false;
    std::size_t joined = 0;
    for (cudaStream_t s : gated_) {
      if (s == stream_) continue;
      if (joins_.size() <= joined) {
        cudaEvent_t event = nullptr;
        check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "creating an event");
        joins_.push_back(event);
      }
      check(cudaEventRecord(joins_[joined], s), "joining a stream to the window's end");
      check(cudaStreamWaitEvent(stream_, joins_[joined], 0), "joining a stream to the window's end");
      ++joined;
    }
    check(write_word(stream_, reinterpret_cast<unsigned char*>(gate_) + kDoneWordOffset, window_),
          "ending a window");
  }
  bool armed() const { return armed_; }

  // Whether work is still queued or running on any stream a call was given.
  bool busy() const {
    bool any = cudaStreamQuery(stream_) == cudaErrorNotReady;
    for (cudaStream_t s : streams_) any = any || cudaStreamQuery(s) == cudaErrorNotReady;
    return any;
  }
  const cudaStream_t* streams() override {
    if (armed_ && std::find(gated_.begin(), gated_.end(), streams_[0]) == gated_.end()) {
      for (cudaStream_t s : streams_) hold(s);
    }
    return streams_;
  }

  void map_segment(std::uint32_t id, std::size_t bytes, int shm_id) {
    void* base = ::shmat(shm_id, nullptr, 0);
    if (base == reinterpret_cast<void*>(-1)) throw std::runtime_error("attaching shared host memory failed");
    if (cudaHostRegister(base, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped) != cudaSuccess) {
      ::shmdt(base);
      throw std::runtime_error(std::string("registering shared host memory failed: ") +
                               cudaGetErrorString(cudaGetLastError()));
    }
    segments_[id] = {base, bytes};
  }

  void forget() {
    for (auto& [id, base] : buffers_) static_cast<void>(cudaIpcCloseMemHandle(base));
    buffers_.clear();
    for (auto& [id, segment] : segments_) {
      static_cast<void>(cudaHostUnregister(segment.base));
      ::shmdt(segment.base);
    }
    segments_.clear();
  }

  static void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status));
  }

 private:
  void hold(cudaStream_t s) {
    check(wait_for_word(s, gate_, window_), "holding a stream at the window's gate");
    gated_.push_back(s);
  }

  cudaStream_t stream_ = nullptr;
  cudaStream_t streams_[kRunnerStreams] = {};
  std::uint32_t* gate_ = nullptr;
  std::uint32_t window_ = 0;
  bool armed_ = false;
  std::vector<cudaStream_t> gated_;  // the armed window's streams, its own first
  std::vector<cudaEvent_t> joins_;   // one per gated stream, made once
  std::map<std::uint64_t, void*> buffers_;
  std::map<std::uint32_t, Segment> segments_;
};

void reply(const Request* request, ReplyStatus status, std::uint64_t value = 0, const std::string& message = "",
           std::uint32_t flags = 0) {
  Reply out;
  out.flags = flags;
  out.status = status;
  out.sequence = request ? request->sequence : 0;
  out.value = value;
  std::snprintf(out.message, sizeof out.message, "%s", message.c_str());
  if (::send(kSocket, &out, sizeof out, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof out)) ::_exit(0);
}

// The device has finished everything this process queued, on any stream; "" or what failed.
std::string wait_for_device() {
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  const cudaError_t pending = cudaGetLastError();
  if (pending != cudaSuccess) return std::string(cudaGetErrorName(pending)) + ": " + cudaGetErrorString(pending);
  return "";
}

Invoke find(const char* name) {
  for (std::size_t i = 0; i < kServedFunctionCount; ++i) {
    if (std::strncmp(kServedFunctions[i].name, name, kMaxFunctionName) == 0) return kServedFunctions[i].invoke;
  }
  return nullptr;
}

// One request; false when the judge hung up. A malformed one ends the runner.
// Spins as long as the previous request asked before sleeping, so a timed call starts without a
// wake-up's delay.
bool receive(Request& request, std::uint32_t spin_ms) {
  const auto spin_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(spin_ms);
  ssize_t got = -1;
  bool nothing_yet = true;  // the spin may be empty (spin_ms 0): then wait at once
  while (std::chrono::steady_clock::now() < spin_until) {
    got = ::recv(kSocket, &request, sizeof request, MSG_TRUNC | MSG_DONTWAIT);
    nothing_yet = got < 0 && (errno == EAGAIN || errno == EINTR);
    if (!nothing_yet) break;
  }
  while (nothing_yet) {
    got = ::recv(kSocket, &request, sizeof request, MSG_TRUNC);
    nothing_yet = got < 0 && errno == EINTR;
  }
  if (got <= 0) return false;
  if (got != static_cast<ssize_t>(sizeof request) || request.magic != kRequestMagic) {
    std::fprintf(stderr, "cudalabs runner: a malformed request\n");
    ::_exit(3);
  }
  request.function[kMaxFunctionName - 1] = '\0';
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::strcmp(argv[1], "--socket=3") != 0) {
    std::fprintf(stderr, "%s serves a cudalabs judge; it is started by the grade harness, not by hand\n", argv[0]);
    return 2;
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 0;  // the judge is already gone
  Memory* memory = nullptr;
  try {
    // Spin while waiting for the device: the reply should leave as soon as the work is done.
    static_cast<void>(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
    Memory::check(cudaFree(nullptr), "initialising CUDA");
    memory = new Memory();
    // The empty kernel of pings loaded now: with lazy loading its first launch loads its module,
    // which waits for the context's work, and inside a gated window that work waits for the gate
    // (seen on the H100: a fresh runner's first gated ping never answered).
    Memory::check(launch_null_kernel(memory->stream()), "loading the empty kernel");
    Memory::check(cudaStreamSynchronize(memory->stream()), "loading the empty kernel");
  } catch (const std::exception& error) {
    reply(nullptr, ReplyStatus::device_failure, 0, error.what());
    return 1;
  }
  reply(nullptr, ReplyStatus::ready);
  Request request;
  std::uint32_t spin_ms = 0;
  while (receive(request, spin_ms)) {
    spin_ms = request.spin_ms < 1000 ? request.spin_ms : 1000;
    try {
      switch (request.kind) {
        case MessageKind::call: {
          const Invoke invoke = find(request.function);
          if (!invoke) {
            reply(&request, ReplyStatus::unknown_function);
            break;
          }
          if (((request.flags & kInWindow) != 0) != memory->armed()) {
            reply(&request, ReplyStatus::bad_request, 0, "a call in a window that is not armed, or out of one that is");
            break;
          }
          const std::uint64_t value = invoke(request, *memory);
          if ((request.flags & kInWindow) != 0) {  // held at the gate: nothing to wait for yet
            reply(&request, ReplyStatus::ok, value);
            break;
          }
          const std::uint32_t flags = memory->busy() ? kReturnedWhileBusy : 0;
          if ((request.flags & kReplyOnReturn) != 0) {  // the window's last call waits for this one's work
            reply(&request, ReplyStatus::ok, value, "", flags);
            break;
          }
          const std::string failed = wait_for_device();
          if (!failed.empty()) {
            reply(&request, ReplyStatus::device_failure, value, failed);
            break;
          }
          reply(&request, ReplyStatus::ok, value, "", flags);
          break;
        }
        case MessageKind::forget: {
          const std::string failed = wait_for_device();
          memory->forget();
          reply(&request, failed.empty() ? ReplyStatus::ok : ReplyStatus::device_failure, 0, failed);
          break;
        }
        case MessageKind::map_host_segment:
          memory->map_segment(request.segment, request.segment_bytes, static_cast<int>(request.arguments[0].value));
          reply(&request, ReplyStatus::ok);
          break;
        case MessageKind::arm_window:
          memory->arm(memory->resolve(request.arguments[0]), request.window);
          reply(&request, ReplyStatus::ok);
          break;
        case MessageKind::close_window:
          memory->close();
          reply(&request, ReplyStatus::ok);
          break;
        case MessageKind::settle: {
          if (memory->armed()) throw std::invalid_argument("settle before the window was closed");
          const std::string failed = wait_for_device();
          reply(&request, failed.empty() ? ReplyStatus::ok : ReplyStatus::device_failure, 0, failed);
          break;
        }
        case MessageKind::ping: {
          if ((request.flags & kInWindow) != 0) {  // a gated window's empty call
            if (!memory->armed()) throw std::invalid_argument("a ping in a window that is not armed");
            const bool launched = launch_null_kernel(memory->stream()) == cudaSuccess;
            reply(&request, launched ? ReplyStatus::ok : ReplyStatus::device_failure, 0,
                  launched ? "" : "launching an empty kernel");
            break;
          }
          std::string failed = wait_for_device();
          if (failed.empty() && launch_null_kernel(memory->stream()) != cudaSuccess) failed = "launching an empty kernel";
          if (failed.empty()) failed = wait_for_device();
          reply(&request, failed.empty() ? ReplyStatus::ok : ReplyStatus::device_failure, 0, failed);
          break;
        }
        default:
          reply(&request, ReplyStatus::bad_request, 0, "unknown message kind");
      }
    } catch (const std::invalid_argument& error) {
      reply(&request, ReplyStatus::bad_request, 0, error.what());
    } catch (const std::exception& error) {
      reply(&request, ReplyStatus::device_failure, 0, error.what());
    }
  }
  return 0;
}
