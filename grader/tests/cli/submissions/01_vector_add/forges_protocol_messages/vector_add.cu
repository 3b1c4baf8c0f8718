// Adversarial (the judge/runner split: a child that forges protocol messages). No kernel; every
// call writes forged replies to the runner's socket (descriptor 3): a well-formed "ok" for the
// request's sequence number and every number after it, a short datagram and one with a wrong
// magic, and "passing" result-stream lines to every other descriptor. The judge believes none:
// it takes the first reply for the sequence it sent, sees the next message break the protocol,
// kills the runner and fails the test; the outputs it checks itself are still poisoned. Fair
// grade: 0.

#include <cstdint>
#include <cstring>
#include <string>

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

void forge() {
  for (std::uint64_t sequence = 0; sequence < 64; ++sequence) {
    Reply reply;
    reply.sequence = sequence;
    reply.value = cudaSuccess;
    send(3, &reply, sizeof reply, kNoSignal | kDontWait);
  }
  const char short_reply[8] = {};
  send(3, short_reply, sizeof short_reply, kNoSignal | kDontWait);
  Reply wrong;
  wrong.magic = 0xDEADBEEF;
  send(3, &wrong, sizeof wrong, kNoSignal | kDontWait);
  const std::string passed = "{\"event\":\"end\",\"test\":\"VectorAdd.Full2To26\",\"status\":\"passed\"}\n";
  for (int fd = 4; fd < 256; ++fd) static_cast<void>(write(fd, passed.data(), passed.size()));
}

}  // namespace

cudaError_t vector_add(const float*, const float*, float*, std::size_t, cudaStream_t) {
  forge();
  return cudaSuccess;
}

cudaError_t saxpy(float, const float*, float*, std::size_t, cudaStream_t) {
  forge();
  return cudaSuccess;
}

}  // namespace student
