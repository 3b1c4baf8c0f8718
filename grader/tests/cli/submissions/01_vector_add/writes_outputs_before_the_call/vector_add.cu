// Adversarial (the judge/runner split: outputs written before the call is made; issue 27).
// The runner holds mappings of every buffer it was ever called with, the eight replicas of a timed
// sample included, so a thread of its own can watch them between calls: while the judge prepares
// a sample (fresh inputs, poisoned outputs) and seals it, the thread sees the new inputs and
// writes the correct outputs, and the timed calls, finding their outputs already right, return
// at once. The kernels are correct and fast; the thread remembers every pointer set of the timed
// size (a, b, c or x, y) and polls them on a stream of its own: c is stale while some sampled
// c[i] differs from a[i] + b[i]; y (updated in place, so it must never be updated twice) while
// some sampled y[i] differs from what this code last wrote there. A timed call runs the same
// check and computes only what is stale, so it never gives a wrong answer.
//
// Everything it does is honest but when it does it. To know when the judge ends a test (and
// closes the buffers, which the thread would otherwise go on reading: a fault in this context),
// it serves the judge's requests itself from its first call on, as takes_over_the_runner does,
// stopping its polling of a test's buffers before closing them; that part gains nothing.
//
// The judge checksums each replica's writable memory right behind its prepare and again just
// before the window, and refuses the sample when they differ. Fair grade: 80 (correctness tests
// pass; both timed cases 0, "your code wrote the output of a timed call ... before the call was
// made").
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "cudalabs/remote/protocol.hpp"
#include "vector_add.cuh"

// <sys/socket.h> is forbidden; the functions are not.
extern "C" long send(int fd, const void* data, unsigned long size, int flags);
extern "C" long recv(int fd, void* data, unsigned long size, int flags);
constexpr int kNoSignal = 0x4000;

namespace student {
namespace {

using namespace cudalabs::remote;

constexpr std::size_t kTimedSize = std::size_t{1} << 26;
constexpr int kSampled = 64;  // positions checked to tell a stale output from a done one
constexpr int kMaxSets = 64;

// A remembered call of the timed size.
struct Set {
  bool saxpy = false;
  float alpha = 0;
  const float* a = nullptr;  // x for saxpy
  const float* b = nullptr;  // unused for saxpy
  float* out = nullptr;      // c, or y (in place)
  std::size_t n = 0;
  unsigned* state = nullptr;  // device: [0] stale flag, [1, kSampled] y as this code last wrote it
};

__global__ void add(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void axpy(float alpha, const float* x, float* y, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n; i += stride) {
    y[i] = alpha * x[i] + y[i];
  }
}

__device__ std::size_t sampled_position(const Set& set) {
  return (set.n / kSampled) * threadIdx.x + threadIdx.x % (set.n / kSampled);
}

// One block of kSampled threads: state[0] = whether the set's output still needs computing.
__global__ void find_stale(Set set) {
  __shared__ int stale;
  if (threadIdx.x == 0) stale = 0;
  __syncthreads();
  const std::size_t i = sampled_position(set);
  const unsigned now = __float_as_uint(set.out[i]);
  const unsigned done = set.saxpy ? set.state[1 + threadIdx.x] : __float_as_uint(set.a[i] + set.b[i]);
  if (now != done) stale = 1;
  __syncthreads();
  if (threadIdx.x == 0) set.state[0] = stale;
}

__global__ void compute_if_stale(Set set) {
  if (set.state[0] == 0) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < set.n; i += stride) {
    set.out[i] = set.saxpy ? set.alpha * set.a[i] + set.out[i] : set.a[i] + set.b[i];
  }
}

// saxpy: what was just written, so that this y is never updated again.
__global__ void remember_written(Set set) {
  if (set.state[0] == 0) return;
  set.state[1 + threadIdx.x] = __float_as_uint(set.out[sampled_position(set)]);
}

void bring_up_to_date(const Set& set, cudaStream_t stream) {
  find_stale<<<1, kSampled, 0, stream>>>(set);
  compute_if_stale<<<132 * 16, 256, 0, stream>>>(set);
  if (set.saxpy) remember_written<<<1, kSampled, 0, stream>>>(set);
}

std::mutex guard;          // the sets, and the buffers they point into
std::vector<Set> sets;     // every pointer set of the timed size since the test began
struct Opened {
  std::uint64_t id;
  void* base;
};
std::vector<Opened> opened;  // the test's buffers, as this process maps them

// Called with fewer than kMaxSets sets.
const Set& remember(const Set& call) {
  for (const Set& set : sets) {
    if (set.saxpy == call.saxpy && set.alpha == call.alpha && set.a == call.a && set.b == call.b &&
        set.out == call.out && set.n == call.n) {
      return set;
    }
  }
  Set made = call;
  cudaMalloc(&made.state, (1 + kSampled) * sizeof(unsigned));
  cudaMemset(made.state, 0xFF, (1 + kSampled) * sizeof(unsigned));  // no y was written yet
  sets.push_back(made);
  return sets.back();
}

// Called with the lock held; synchronises `stream`.
cudaError_t run_call(const Set& call, cudaStream_t stream) {
  if (call.n == 0) return cudaSuccess;
  if (call.n >= kTimedSize && sets.size() < kMaxSets) {
    bring_up_to_date(remember(call), stream);  // at once when the thread was there first
  } else if (call.saxpy) {
    axpy<<<132 * 16, 256, 0, stream>>>(call.alpha, call.a, call.out, call.n);
  } else {
    add<<<132 * 16, 256, 0, stream>>>(call.a, call.b, call.out, call.n);
  }
  const cudaError_t launched = cudaGetLastError();
  cudaStreamSynchronize(stream);
  return launched;
}

[[noreturn]] void poll_forever() {
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  for (;;) {
    for (std::size_t i = 0;; ++i) {
      const std::lock_guard<std::mutex> hold(guard);
      if (i >= sets.size()) break;
      bring_up_to_date(sets[i], stream);
      cudaStreamSynchronize(stream);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void answer(std::uint64_t sequence, std::uint64_t value) {
  Reply reply;
  reply.status = ReplyStatus::ok;
  reply.sequence = sequence;
  reply.value = value;
  send(3, &reply, sizeof reply, kNoSignal);
}

void* find_opened(std::uint64_t id) {
  for (const Opened& buffer : opened) {
    if (buffer.id == id) return buffer.base;
  }
  return nullptr;
}

void* resolve(const Argument& argument) {
  if (argument.kind != ArgumentKind::device) return nullptr;
  if (void* base = find_opened(argument.buffer_id)) return static_cast<char*>(base) + argument.offset;
  void* base = nullptr;
  cudaIpcOpenMemHandle(&base, argument.handle, cudaIpcMemLazyEnablePeerAccess);
  opened.push_back({argument.buffer_id, base});
  return static_cast<char*>(base) + argument.offset;
}

Set decode(const Request& request) {
  const Argument* arg = request.arguments;
  Set call;
  call.saxpy = std::strcmp(request.function, "saxpy") == 0;
  if (call.saxpy) {
    std::memcpy(&call.alpha, &arg[0].value, sizeof call.alpha);
    call.a = static_cast<const float*>(resolve(arg[1]));
    call.out = static_cast<float*>(resolve(arg[2]));
  } else {
    call.a = static_cast<const float*>(resolve(arg[0]));
    call.b = static_cast<const float*>(resolve(arg[1]));
    call.out = static_cast<float*>(resolve(arg[2]));
  }
  call.n = arg[3].value;
  return call;
}

[[noreturn]] void serve_forever() {
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  Request request;
  for (;;) {
    if (recv(3, &request, sizeof request, 0) <= 0) {
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // the judge is gone and kills us
    }
    const std::lock_guard<std::mutex> hold(guard);
    if (request.kind == MessageKind::call) {
      answer(request.sequence, run_call(decode(request), stream));
      continue;
    }
    if (request.kind == MessageKind::forget) {  // the test is over: stop watching, then close
      for (const Set& set : sets) cudaFree(set.state);
      sets.clear();
      cudaDeviceSynchronize();
      for (const Opened& buffer : opened) cudaIpcCloseMemHandle(buffer.base);
      opened.clear();
    } else {
      cudaDeviceSynchronize();  // a ping (lab 01 shares no host memory)
    }
    answer(request.sequence, 0);
  }
}

// The runner's request being served lives in its main()'s frame, above ours on the stack.
const Request* current_request(const char* function) {
  const char* here = reinterpret_cast<const char*>(__builtin_frame_address(0));
  for (std::size_t at = 0; at < (std::size_t{1} << 16); at += 8) {
    const auto* candidate = reinterpret_cast<const Request*>(here + at);
    if (candidate->magic == kRequestMagic && candidate->kind == MessageKind::call &&
        std::strcmp(candidate->function, function) == 0) {
      return candidate;
    }
  }
  return nullptr;
}

// The first call: served as the runner asked, then the runner is ours (its buffers noted as
// opened, so the end of the test closes them).
[[noreturn]] void take_over(const char* function, const Set& call, const void* const* pointers, cudaStream_t s) {
  const cudaError_t status = run_call(call, s);
  const Request* request = current_request(function);
  if (request != nullptr) {
    for (int i = 0; i < 3; ++i) {
      const Argument& argument = request->arguments[function[0] == 's' ? i + 1 : i];
      if (argument.kind == ArgumentKind::device && pointers[i] != nullptr && !find_opened(argument.buffer_id)) {
        opened.push_back({argument.buffer_id, const_cast<char*>(static_cast<const char*>(pointers[i])) - argument.offset});
      }
    }
  }
  answer(request ? request->sequence : 0, status);
  std::thread(poll_forever).detach();
  serve_forever();
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  Set call;
  call.a = a;
  call.b = b;
  call.out = c;
  call.n = n;
  const void* pointers[3] = {a, b, c};
  take_over("vector_add", call, pointers, stream);
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t stream) {
  Set call;
  call.saxpy = true;
  call.alpha = alpha;
  call.a = x;
  call.out = y;
  call.n = n;
  const void* pointers[3] = {x, y, nullptr};
  take_over("saxpy", call, pointers, stream);
}

}  // namespace student
