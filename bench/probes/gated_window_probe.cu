// Can a judge time a runner's window without the runner's host path in it? pair_bias_switch_probe
// (H100, 2026-11-28) split the judge's clock around a window of lab 01's eight calls: a runner
// process's bias (0.8-1.5% a window, 24-33 us, fixed for the process) follows its own host path
// (the request's transit, its launches, the reply's transit), while its GPU work agrees within
// 0.1% across processes. Here each child instead queues its window behind a gate before the
// judge's work that precedes a window (its L2 flush, standing in for a sample's prepare):
// cuStreamWaitValue32 on a word of the judge's memory (shared by legacy IPC), its eight calls, then
// cuStreamWriteValue32 of a "done" word, and answers at once. The judge then records its start
// event, opens the gate (cuStreamWriteValue32 on its own stream), waits on its stream for "done"
// (cuStreamWaitValue32) and records its stop event: every step on the GPU, no host path in the
// window. Per child, both ways alike in every sample (a whole window a request, as the switch
// probe's, then gated): the judge's figure less the child's own (its events around the calls),
// and over the children the spread of that overhead. A gated window the child could start early
// would be worthless: the child's work waits on the gate's word, which only the judge's stream
// writes after its start event (a child writing "done" early ends the judge's window early; a
// grade's device-idle check right after the window charges whatever still runs).
//
//   nvcc -O3 -arch=sm_90 bench/probes/gated_window_probe.cu -lcuda -o gated_window_probe && ./gated_window_probe 4 3
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ipc_probe_support.cuh"

namespace {

using namespace probe_support;
using namespace lab01;

constexpr std::size_t kFlushBytes = std::size_t{200} << 20;
constexpr std::size_t kFlagBytes = std::size_t{2} << 20;
constexpr int kSamples = 40;
constexpr std::size_t kFlagStride = 256;  // bytes between one child's words and the next's

enum Kind : int { kQuit = -1, kWindow = 0, kArm = 1, kReport = 2 };

struct Message {
  int kind = kWindow;
  std::uint32_t sequence = 0;
  float own_ms = 0;
};

// argv: "child", socket fd, child index, the flags' handle, 24 buffer handles (hex).
int child(char** argv) {
  check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "flags");
  check(cudaFree(nullptr), "init");
  const int fd = std::atoi(argv[2]);
  const int index = std::atoi(argv[3]);
  auto* flags = reinterpret_cast<char*>(legacy_import(argv[4]));
  const CUdeviceptr gate = reinterpret_cast<CUdeviceptr>(flags + index * kFlagStride);
  const CUdeviceptr done = gate + kFlagStride / 2;
  float* buffers[kBuffers];
  for (int i = 0; i < kBuffers; ++i) buffers[i] = legacy_import(argv[5 + i]);
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  window(buffers, stream);  // warm-up
  check(cudaStreamSynchronize(stream), "warm-up");
  Message message{};
  ::send(fd, &message, sizeof message, 0);
  for (;;) {
    spin_recv(fd, message);
    if (message.kind == kQuit) return 0;
    if (message.kind == kWindow) {  // the judge's clock runs from its request to this reply
      check(cudaEventRecord(e0, stream), "record");
      window(buffers, stream);
      check(cudaEventRecord(e1, stream), "record");
      check(cudaEventSynchronize(e1), "sync");
      check(cudaEventElapsedTime(&message.own_ms, e0, e1), "elapsed");
    } else if (message.kind == kArm) {  // queued behind the gate, answered at once
      check(cuStreamWaitValue32(stream, gate, message.sequence, CU_STREAM_WAIT_VALUE_GEQ), "wait gate");
      check(cudaEventRecord(e0, stream), "record");
      window(buffers, stream);
      check(cudaEventRecord(e1, stream), "record");
      check(cuStreamWriteValue32(stream, done, message.sequence, CU_STREAM_WRITE_VALUE_DEFAULT), "write done");
    } else {  // kReport: the gated window's own time, once it is over
      check(cudaEventSynchronize(e1), "sync");
      check(cudaEventElapsedTime(&message.own_ms, e0, e1), "elapsed");
    }
    ::send(fd, &message, sizeof message, 0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) return child(argv);
  const int children = argc > 1 ? std::atoi(argv[1]) : 4;
  const int generations = argc > 2 ? std::atoi(argv[2]) : 3;
  check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "flags");
  check(cudaFree(nullptr), "init");
  char* flags = nullptr;
  const std::string flags_handle = legacy_export(kFlagBytes, reinterpret_cast<float**>(&flags));
  std::vector<std::string> handles(kBuffers);
  for (auto& handle : handles) handle = legacy_export(kBytes);
  const ParentClock clock(kFlushBytes);
  const cudaStream_t stream = clock.stream;
  std::vector<double> overhead_all[2];
  const char* names[2] = {"a request a window", "gated"};
  std::uint32_t sequence = 0;
  for (int generation = 0; generation < generations; ++generation) {
    std::vector<int> sockets;
    std::vector<pid_t> pids;
    for (int c = 0; c < children; ++c) {
      std::vector<std::string> words = {std::to_string(c), flags_handle};
      words.insert(words.end(), handles.begin(), handles.end());
      const LiveChild child = spawn_child(words);
      sockets.push_back(child.socket);
      pids.push_back(child.pid);
    }
    for (int fd : sockets) {
      Message ready{};
      spin_recv(fd, ready);
    }
    const auto ask = [&](int c, Message& message) {
      ::send(sockets[c], &message, sizeof message, 0);
      spin_recv(sockets[c], message);
    };
    std::vector<std::vector<double>> overhead(2 * children), own(2 * children);
    for (int s = 0; s < kSamples; ++s) {
      for (int c = 0; c < children; ++c) {
        for (int m = 0; m < 2; ++m) {
          const auto gate = reinterpret_cast<CUdeviceptr>(flags + c * kFlagStride);
          const CUdeviceptr done = gate + kFlagStride / 2;
          Message message{};
          message.sequence = ++sequence;
          if (m == 1) {
            message.kind = kArm;
            ask(c, message);
          }
          touch<<<528, 512, 0, stream>>>(clock.flush, kFlushBytes / 4);  // the judge's work before a window
          check(cudaEventRecord(clock.start, stream), "record");
          if (m == 0) {
            check(cudaStreamSynchronize(stream), "sync");
            message.kind = kWindow;
            ask(c, message);
          } else {
            check(cuStreamWriteValue32(stream, gate, sequence, CU_STREAM_WRITE_VALUE_DEFAULT), "open gate");
            check(cuStreamWaitValue32(stream, done, sequence, CU_STREAM_WAIT_VALUE_GEQ), "wait done");
          }
          check(cudaEventRecord(clock.stop, stream), "record");
          check(cudaEventSynchronize(clock.stop), "sync");
          float ms = 0;
          check(cudaEventElapsedTime(&ms, clock.start, clock.stop), "elapsed");
          if (m == 1) {
            message.kind = kReport;
            ask(c, message);
          }
          overhead[2 * c + m].push_back(1000.0 * (ms - message.own_ms));
          own[2 * c + m].push_back(message.own_ms / kSets);
        }
      }
    }
    for (int c = 0; c < children; ++c) {
      std::printf("gen %d child %d:", generation, c);
      for (int m = 0; m < 2; ++m) {
        const double o = median(overhead[2 * c + m]);
        overhead_all[m].push_back(o);
        std::printf("  %s: overhead %.1f us (own %.4f ms a call)", names[m], o, median(own[2 * c + m]));
      }
      std::printf("\n");
    }
    std::fflush(stdout);
    for (std::size_t c = 0; c < sockets.size(); ++c) {
      Message quit{};
      quit.kind = kQuit;
      ::send(sockets[c], &quit, sizeof quit, 0);
      ::close(sockets[c]);
      ::waitpid(pids[c], nullptr, 0);
    }
  }
  for (int m = 0; m < 2; ++m) {
    const auto [low, high] = std::minmax_element(overhead_all[m].begin(), overhead_all[m].end());
    std::printf("%-20s over %zu children: a window's overhead %.1f-%.1f us (spread %.1f us, %.2f%% of a %.2f-ms window)\n",
                names[m], overhead_all[m].size(), *low, *high, *high - *low,
                100 * (*high - *low) / (kSets * 292.4), kSets * 0.2924);
  }
  return 0;
}
