#pragma once
// The messages between a judge (the hidden suite's process, which never maps student code) and a
// runner (a confined child that loads one implementation of the lab's API and serves calls).
//
// One request, one reply, over a SOCK_SEQPACKET socket pair: each message is one datagram of
// exactly sizeof(Request) or sizeof(Reply) bytes. Device buffers travel as CUDA IPC handles of
// their allocation plus an offset; pinned host buffers as a System V shared-memory segment (its
// id sent once, with map_host_segment) plus an offset. The judge believes nothing a reply
// says but the function's return value, which is the implementation's own business.
#include <cstdint>

#include <cuda_runtime.h>

namespace cudalabs::remote {

inline constexpr std::uint32_t kRequestMagic = 0x514A4C43;  // "CLJQ"
inline constexpr std::uint32_t kReplyMagic = 0x524A4C43;    // "CLJR"
inline constexpr int kMaxArguments = 12;
inline constexpr int kMaxFunctionName = 64;
inline constexpr int kMaxReplyMessage = 240;
// Streams a runner creates for a `const cudaStream_t*` argument (a pipeline's streams).
inline constexpr int kRunnerStreams = 32;

enum class MessageKind : std::uint32_t {
  call = 1,              // run `function` with `arguments`, wait for all its work, reply its result
  forget = 2,            // close every buffer and segment opened so far (end of a test); reply health
  map_host_segment = 3,  // attach System V segment arguments[0].value, register it as `segment`
  ping = 4,              // reply at once after waiting for the device: the round trip with no work
  // A gated timing window (the judge's clock runs on the GPU alone, no host path in it):
  arm_window = 5,    // queue a wait for `window` on the gate word (arguments[0], a device word of the
                     // judge's) on every stream the window's calls may use, before any of them
  close_window = 6,  // queue the write of `window` to the done word (the gate's + kDoneWordOffset)
                     // behind all the window's work; reply at once
  settle = 7,        // wait for the device, reply its health (after a gated window's stop)
};

// Where a gated window's done word lies from its gate word (bytes: another cache line).
inline constexpr std::uint64_t kDoneWordOffset = 256;

enum class ArgumentKind : std::uint32_t {
  value = 1,         // `value` holds the argument's bytes (integers, floats, enums)
  stream = 2,        // the runner's stream
  stream_array = 3,  // the runner's array of kRunnerStreams streams
  device = 4,        // a device pointer: allocation `buffer_id` (IPC `handle`) + `offset`
  host = 5,          // a pinned host pointer: shared segment `segment` + `offset`
  null = 6,          // a null pointer
};

struct Argument {
  ArgumentKind kind = ArgumentKind::value;
  std::uint32_t segment = 0;
  std::uint64_t value = 0;
  std::uint64_t buffer_id = 0;     // unique per allocation for this judge's context
  std::uint64_t offset = 0;        // from the allocation's (or segment's) start
  std::uint64_t extent = 0;        // bytes of the allocation or segment
  cudaIpcMemHandle_t handle{};
};

struct Request {
  std::uint32_t magic = kRequestMagic;
  MessageKind kind = MessageKind::call;
  std::uint64_t sequence = 0;
  char function[kMaxFunctionName] = {};
  std::uint32_t argument_count = 0;
  std::uint32_t segment = 0;  // map_host_segment
  std::uint64_t segment_bytes = 0;
  // How long the runner polls for the next request after replying before it sleeps: long while
  // calls are timed (a sleeping runner's wake-up would be timed), short otherwise (batch grades
  // share the machine's cores).
  std::uint32_t spin_ms = 0;
  std::uint32_t flags = 0;  // kReplyOnReturn, kInWindow
  std::uint32_t window = 0;  // arm_window, close_window: the window's number (its gate's value)
  Argument arguments[kMaxArguments];
};

// Request::flags. A call of a timed window that is not the window's last: the runner replies as
// soon as the function has returned, without waiting for the device, so the judge sends the next
// call while this one's work runs and the window holds the calls' kernels back to back. The
// window's last call waits for the device as every call does (that wait covers the calls before
// it: one context), and the stop event follows it. A runner that ignores the flag, or replies
// early to any call, gains nothing it could not take without it: the output seals and the
// device-idle checks judge what still ran after the window.
inline constexpr std::uint32_t kReplyOnReturn = 1;
// A call (or ping) of a gated window being armed: the runner queues it behind the window's gate
// (gating any stream it uses that is not gated yet) and replies as soon as the function has
// returned, never waiting for the device: the work cannot start before the judge opens the gate,
// which it does only after preparing the sample's inputs and starting its clock. A runner that
// lets work past the gate gains nothing: its inputs are not there yet, the outputs are checksummed
// right before the window, and the judge's device-idle checks see what runs outside it.
inline constexpr std::uint32_t kInWindow = 2;

enum class ReplyStatus : std::uint32_t {
  ok = 1,                // `value` is the function's return value
  unknown_function = 2,  // the runner does not serve `function`
  bad_request = 3,       // a malformed request (a judge bug)
  device_failure = 4,    // the call's work faulted or the context is broken: `message` says how
  ready = 5,             // the first message: confined, CUDA initialised
  // Before `ready`, from a runner started with CUDALABS_CONFINE=1 only, sent from .preinit_array
  // before any library constructor runs: `value` 1 when it carries (SCM_RIGHTS) the listener of
  // the runner's /proc comm broker filter (common/src/procfs_broker.hpp), 0 when confined without.
  confined = 6,
};

// Reply::flags
inline constexpr std::uint32_t kReturnedWhileBusy = 1;  // the call's work still ran when it returned

struct Reply {
  std::uint32_t magic = kReplyMagic;
  ReplyStatus status = ReplyStatus::ok;
  std::uint64_t sequence = 0;
  std::uint64_t value = 0;
  std::uint32_t flags = 0;
  char message[kMaxReplyMessage] = {};
};

}  // namespace cudalabs::remote
