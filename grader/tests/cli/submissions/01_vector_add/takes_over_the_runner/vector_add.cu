// Adversarial (the judge/runner split: a child that lies about completion). On its first call
// it never returns: it takes over the runner process and serves the judge's requests itself,
// answering every call as soon as its (correct but slow, one-block) kernel is launched, long
// before the kernel finishes, so the judge's clock would stop early. The judge's stop event runs
// on its own context, which the GPU time-slices with this one: either it waits for the kernel, or
// the checksums of the outputs taken right behind it see them still being written. Fair grade:
// 80 (correct, timed cases failed), whatever the correctness tests see of a reply that comes
// before the work (a result compared before the kernel finished fails them, at the liar's cost).

#include <cstdint>
#include <cstring>

#include "cudalabs/remote/protocol.hpp"
#include "vector_add.cuh"

// <sys/socket.h> and <unistd.h> are forbidden; the functions are not.
extern "C" long send(int fd, const void* data, unsigned long size, int flags);
extern "C" long recv(int fd, void* data, unsigned long size, int flags);
extern "C" long write(int fd, const void* data, unsigned long size);
constexpr int kNoSignal = 0x4000, kDontWait = 0x40;

namespace student {
namespace {

using namespace cudalabs::remote;

__global__ void add_in_one_block(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) c[i] = a[i] + b[i];
}

__global__ void saxpy_in_one_block(float alpha, const float* x, float* y, std::size_t n) {
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = alpha * x[i] + y[i];
}

cudaStream_t stream() {
  static cudaStream_t s = [] {
    cudaStream_t made = nullptr;
    cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking);
    return made;
  }();
  return s;
}

void answer(std::uint64_t sequence, ReplyStatus status) {
  Reply reply;
  reply.status = status;
  reply.sequence = sequence;
  reply.value = cudaSuccess;
  send(3, &reply, sizeof reply, kNoSignal);
}

void* opened[64];
std::uint64_t opened_ids[64];
int opened_count = 0;

void* resolve(const Argument& argument) {
  for (int i = 0; i < opened_count; ++i) {
    if (opened_ids[i] == argument.buffer_id) return static_cast<char*>(opened[i]) + argument.offset;
  }
  void* base = nullptr;
  cudaIpcOpenMemHandle(&base, argument.handle, cudaIpcMemLazyEnablePeerAccess);
  opened[opened_count] = base;
  opened_ids[opened_count++] = argument.buffer_id;
  return static_cast<char*>(base) + argument.offset;
}

[[noreturn]] void serve_forever() {
  Request request;
  for (;;) {
    if (recv(3, &request, sizeof request, 0) <= 0) __builtin_trap();
    if (request.kind == MessageKind::call) {
      const Argument* arg = request.arguments;
      if (std::strcmp(request.function, "vector_add") == 0 && arg[3].value != 0) {
        add_in_one_block<<<1, 256, 0, stream()>>>(static_cast<const float*>(resolve(arg[0])),
                                                  static_cast<const float*>(resolve(arg[1])),
                                                  static_cast<float*>(resolve(arg[2])), arg[3].value);
      } else if (std::strcmp(request.function, "saxpy") == 0 && arg[3].value != 0) {
        float alpha = 0;
        std::memcpy(&alpha, &arg[0].value, sizeof alpha);
        saxpy_in_one_block<<<1, 256, 0, stream()>>>(alpha, static_cast<const float*>(resolve(arg[1])),
                                                    static_cast<float*>(resolve(arg[2])), arg[3].value);
      }
      answer(request.sequence, ReplyStatus::ok);  // before the kernel has finished
    } else {
      cudaDeviceSynchronize();
      if (request.kind == MessageKind::forget) {
        for (int i = 0; i < opened_count; ++i) cudaIpcCloseMemHandle(opened[i]);
        opened_count = 0;
      }
      answer(request.sequence, ReplyStatus::ok);
    }
  }
}

// The runner's request being served lives in its main()'s frame, above ours on the stack.
std::uint64_t current_sequence(const char* function) {
  const char* here = reinterpret_cast<const char*>(__builtin_frame_address(0));
  for (std::size_t at = 0; at < (std::size_t{1} << 16); at += 8) {
    const auto* candidate = reinterpret_cast<const Request*>(here + at);
    if (candidate->magic == kRequestMagic && candidate->kind == MessageKind::call &&
        std::strcmp(candidate->function, function) == 0) {
      return candidate->sequence;
    }
  }
  return 0;
}

}  // namespace

cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t s) {
  // The first request is already read; serve it honestly, then everything after it.
  if (n != 0) add_in_one_block<<<1, 256, 0, s>>>(a, b, c, n);
  cudaDeviceSynchronize();
  answer(current_sequence("vector_add"), ReplyStatus::ok);
  serve_forever();
}

cudaError_t saxpy(float alpha, const float* x, float* y, std::size_t n, cudaStream_t s) {
  if (n != 0) saxpy_in_one_block<<<1, 256, 0, s>>>(alpha, x, y, n);
  cudaDeviceSynchronize();
  answer(current_sequence("saxpy"), ReplyStatus::ok);
  serve_forever();
}

}  // namespace student
