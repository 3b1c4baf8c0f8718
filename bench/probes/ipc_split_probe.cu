// What a split grader would cost (issue 12's closing question): a trusted parent that holds the
// inputs, the checks and the clock, and student code in a separate, sandboxed child process that
// reaches the parent's buffers through CUDA IPC. Measures, on this GPU:
//   1. starting a child process that creates a CUDA context (once per grade in a split design);
//   2. the child opening three 256 MiB buffers of the parent through cudaIpcOpenMemHandle;
//   3. one timed call seen from the parent: a pipe message to the child, its kernel on the
//      parent's buffers, the reply. Interprocess events cannot time (cudaEventInterprocess needs
//      cudaEventDisableTiming), so the parent's clock is the host's; compared with the same kernel
//      timed in-process with CUDA events, as the grader does today.
//
//   ipc_split_probe            (parent; spawns itself as the child)
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudalabs/cuda_check.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kFloats = std::size_t{1} << 26;  // 256 MiB per buffer, lab 01's timed size
constexpr int kSamples = 30;

__global__ void vector_add(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
}

void launch(const float* a, const float* b, float* c, cudaStream_t stream) {
  vector_add<<<132 * 16, 256, 0, stream>>>(a, b, c, kFloats);
  CUDALABS_CHECK_LAUNCH();
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void read_all(int fd, void* data, std::size_t bytes) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = read(fd, p, bytes);
    if (got <= 0) { std::perror("read"); std::exit(1); }
    p += got;
    bytes -= static_cast<std::size_t>(got);
  }
}

void write_all(int fd, const void* data, std::size_t bytes) {
  if (write(fd, data, bytes) != static_cast<ssize_t>(bytes)) { std::perror("write"); std::exit(1); }
}

// The child: opens the three buffers, reports how long that took, then runs one call per byte
// received and answers with a byte once the call has finished.
int child(int in_fd, int out_fd) {
  CUDALABS_CHECK(cudaFree(nullptr));
  cudaIpcMemHandle_t handles[3];
  read_all(in_fd, handles, sizeof handles);
  const Clock::time_point opening = Clock::now();
  void* buffers[3];
  for (int i = 0; i < 3; ++i) {
    CUDALABS_CHECK(cudaIpcOpenMemHandle(&buffers[i], handles[i], cudaIpcMemLazyEnablePeerAccess));
  }
  const double open_ms = ms_since(opening);
  write_all(out_fd, &open_ms, sizeof open_ms);
  cudaStream_t stream = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  char command = 0;
  while (read(in_fd, &command, 1) == 1 && command == 'r') {
    launch(static_cast<float*>(buffers[0]), static_cast<float*>(buffers[1]), static_cast<float*>(buffers[2]), stream);
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    write_all(out_fd, &command, 1);
  }
  for (void* buffer : buffers) CUDALABS_CHECK(cudaIpcCloseMemHandle(buffer));
  return 0;
}

// Starts this program as `role` with the given pipe ends; returns its pid.
pid_t spawn_self(const char* role, int in_fd, int out_fd) {
  const std::string in = std::to_string(in_fd), out = std::to_string(out_fd);
  char* argv[] = {const_cast<char*>("ipc_split_probe"), const_cast<char*>(role), const_cast<char*>(in.c_str()),
                  const_cast<char*>(out.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, environ) != 0) {
    std::perror("posix_spawn");
    std::exit(1);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--context-only") == 0) {
    CUDALABS_CHECK(cudaFree(nullptr));
    return 0;
  }
  if (argc == 4 && std::strcmp(argv[1], "--child") == 0) return child(std::atoi(argv[2]), std::atoi(argv[3]));

  // 1. A fresh process with a CUDA context, start to exit (median of 5).
  std::vector<double> start_ms;
  for (int i = 0; i < 5; ++i) {
    const Clock::time_point started = Clock::now();
    if (wait_for(spawn_self("--context-only", 0, 1)) != 0) return 1;
    start_ms.push_back(ms_since(started));
  }

  CUDALABS_CHECK(cudaFree(nullptr));
  float* buffers[3];
  cudaIpcMemHandle_t handles[3];
  for (int i = 0; i < 3; ++i) {
    CUDALABS_CHECK(cudaMalloc(&buffers[i], kFloats * sizeof(float)));
    CUDALABS_CHECK(cudaMemset(buffers[i], 0, kFloats * sizeof(float)));
    CUDALABS_CHECK(cudaIpcGetMemHandle(&handles[i], buffers[i]));
  }

  // 3a. In process, with events (today's grader).
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDALABS_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDALABS_CHECK(cudaEventCreate(&start));
  CUDALABS_CHECK(cudaEventCreate(&stop));
  std::vector<double> event_ms, host_ms;
  for (int i = 0; i < kSamples + 3; ++i) {
    const Clock::time_point host_start = Clock::now();
    CUDALABS_CHECK(cudaEventRecord(start, stream));
    launch(buffers[0], buffers[1], buffers[2], stream);
    CUDALABS_CHECK(cudaEventRecord(stop, stream));
    CUDALABS_CHECK(cudaEventSynchronize(stop));
    const double host = ms_since(host_start);
    float ms = 0;
    CUDALABS_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i >= 3) {
      event_ms.push_back(ms);
      host_ms.push_back(host);
    }
  }

  // 2 and 3b. The child on the parent's buffers.
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) return 1;
  const pid_t pid = spawn_self("--child", to_child[0], from_child[1]);
  close(to_child[0]);
  close(from_child[1]);
  const Clock::time_point handing = Clock::now();
  write_all(to_child[1], handles, sizeof handles);
  double open_ms = 0;
  read_all(from_child[0], &open_ms, sizeof open_ms);
  const double handover_ms = ms_since(handing);
  std::vector<double> split_ms;
  for (int i = 0; i < kSamples + 3; ++i) {
    const Clock::time_point sent = Clock::now();
    const char command = 'r';
    write_all(to_child[1], &command, 1);
    char reply = 0;
    read_all(from_child[0], &reply, 1);
    if (i >= 3) split_ms.push_back(ms_since(sent));
  }
  const char done = 'q';
  write_all(to_child[1], &done, 1);
  close(to_child[1]);
  if (wait_for(pid) != 0) return 1;

  const double event = median(event_ms), host = median(host_ms), split = median(split_ms);
  std::printf("child process start with a CUDA context: %.1f ms (median of 5)\n", median(start_ms));
  std::printf("child opens 3 x 256 MiB through CUDA IPC: %.2f ms (handles sent to opened: %.2f ms)\n", open_ms,
              handover_ms);
  std::printf("one vector_add of 2^26 floats (median of %d):\n", kSamples);
  std::printf("  in process, CUDA events (today):        %.4f ms\n", event);
  std::printf("  in process, host clock:                 %.4f ms (+%.1f%%)\n", host, 100 * (host / event - 1));
  std::printf("  split, parent's host clock round trip:  %.4f ms (+%.1f%% over the events' figure)\n", split,
              100 * (split / event - 1));
  std::vector<double> spread = split_ms;
  std::sort(spread.begin(), spread.end());
  std::printf("  split round trips, 10th-90th percentile: %.4f-%.4f ms\n", spread[spread.size() / 10],
              spread[spread.size() * 9 / 10]);
  return 0;
}
