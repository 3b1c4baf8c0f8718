// Does a trusted process starting CUDA disturb another process's timed windows? A batch could
// start the next grade's judge and reference runner (trusted, no student code) while the grade
// before it times its cases, and so take two of a second part's three CUDA starts off the batch's
// critical path (about 0.3 s a grade: cuda_start_probe.cu). That is fair only if a context being
// made, used a little and torn down beside a timed window leaves the window's time alone.
//
// The parent times windows of eight c = a + b calls on 256 MiB arrays (lab 01's timed case) with
// its own events, `windows` of them with nothing else on the GPU, then as many while children,
// one after another, each start CUDA (cudaFree(0)), allocate 768 MiB, run a kernel over it and
// exit: what a judge and a reference runner do before their first timed call. Per phase: the
// median window, its 90th percentile and its maximum, and how many windows exceed the quiet
// phase's maximum. With `context`, the children only start CUDA and exit; with PROBE_INIT_ONLY=1
// in the environment as well, they only query the device (cudaGetDeviceCount and
// cudaGetDeviceProperties: the driver initialised, no context), as labgrade does before it waits
// for the GPU lock (GpuLock::query_device).
//
// H100 80GB HBM3 (2026-11-28), 2000 windows a phase, 12-13 starts beside them: quiet, a call
// 0.2915-0.2930 ms median, 0.2920-0.2933 p90, 0.295-0.305 max; beside the starts the median the
// same but the p90 0.337 ms (+15%) and the max 0.493-0.495 ms (+69%), 272-356 windows of 2000
// over the quiet maximum (about 25 windows, some 55 ms of timing, per start), alike whether a
// child only starts CUDA and exits (272, 309) or also allocates and runs a kernel (289-356).
// So no CUDA start, trusted or not, may overlap another grade's timed cases: the next grade's
// judge and runners start only once the GPU is its alone. A device query without a context is
// harmless: 177-179 of them beside 2000 windows, 0 and 4 windows over the quiet maximum (by at
// most 0.0001 ms), the same median and p90 (so labgrade may query while another grade times).
//
// With `parked K` instead: what a batch could do instead of starting a grade's processes between
// timed cases (README, "What 3x would take"): start them during the first parts and park them
// before any student code is loaded. K children each start CUDA, allocate 768 MiB, run a kernel
// over it and then wait, idle, on a pipe; the parent times `windows` windows beside those K idle
// contexts, then ends them three at a time (a grade's judge and two runners), timing from the
// moment it lets a group go to the moment it has reaped it, and times 50 windows right after
// each group is gone. Printed: the windows beside the parked contexts and after the teardowns
// against the quiet ones, and the groups' teardown times (what would stay between timed cases).
// H200 (2026-12-07, `2000 parked 12`): beside 12 idle contexts the median and p90 the same as
// quiet (0.2374/0.2376 ms against 0.2376/0.2379), 3 windows of 2000 over the quiet maximum (the
// worst 0.2506 ms against 0.2402, +4%); the 200 windows right after each group's teardown 0 over;
// a group of three torn down in 177.0 ms median, 183.6 ms max. (`2000 context` on the same
// machine: 91 windows of 2000 over the quiet maximum beside 12 starts, the worst +12%.) H100 80GB
// HBM3 (2026-12-07, each mode twice, alternated): beside 12 parked contexts 3 and 0 windows of 2000
// over the quiet maximum (the worst 0.3146 ms against 0.2917, +8%), the median and p90 unchanged
// (0.2886-0.2887/0.2890-0.2894 ms); after the teardowns 1 and 0 of 200 over (that one +16%); a
// group of three torn down in 181.4 and 199.1 ms median; beside 12-13 starts 304 and 263 of 2000
// over, p90 +15%, the worst +67-71%. So parked contexts are not what stands in the way of starting
// a grade's processes ahead: where their starts would go is (README, "What 3x would take").
//
//   nvcc -O3 -arch=sm_90 bench/probes/start_beside_timing_probe.cu -o start_beside_timing_probe && ./start_beside_timing_probe 2000 [context | parked K]
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ipc_probe_support.cuh"

extern char** environ;

namespace {

using probe_support::add;
using probe_support::check;

constexpr std::size_t kElements = std::size_t{1} << 26;
constexpr int kCallsPerWindow = 8;

__global__ void touch(float* data, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = static_cast<float>(i);
}

// A child: what a trusted party does from exec to its first timed call, then its teardown; with
// `context_only`, only the CUDA start and teardown (a judge that waits for its turn first).
int start_once(bool context_only) {
  if (std::getenv("PROBE_INIT_ONLY") != nullptr) {  // labgrade's device query: no context
    int count = 0;
    cudaDeviceProp properties{};
    check(cudaGetDeviceCount(&count), "count");
    check(cudaGetDeviceProperties(&properties, 0), "properties");
    return 0;
  }
  check(cudaFree(nullptr), "context");
  if (context_only) return 0;
  float* data = nullptr;
  const std::size_t n = 3 * kElements;
  check(cudaMalloc(&data, n * sizeof(float)), "malloc");
  touch<<<static_cast<unsigned>((n + 255) / 256), 256>>>(data, n);
  check(cudaDeviceSynchronize(), "touch");
  check(cudaFree(data), "free");
  return 0;
}

// A parked child: a trusted process's start, then idle until its pipe closes (stdin), having
// said it is ready (one byte on stdout); its teardown follows.
int park() {
  if (start_once(false) != 0) return 1;
  float* held = nullptr;
  check(cudaMalloc(&held, 3 * kElements * sizeof(float)), "malloc held");
  const char ready = 'r';
  if (::write(STDOUT_FILENO, &ready, 1) != 1) return 1;
  char byte = 0;
  while (::read(STDIN_FILENO, &byte, 1) > 0) {
  }
  return 0;  // the context and `held` go with the process, as a parked runner's would
}

struct Parked {
  pid_t pid;
  int release;  // closing it lets the child end
};

Parked spawn_parked(char* self) {
  int to_child[2], from_child[2];
  // Close-on-exec: no child holds another's pipes open (dup2 clears the flag on its own ends).
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) std::exit(1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  char mode[] = "start";
  char what[] = "park";
  char* child_argv[] = {self, mode, what, nullptr};
  pid_t pid = 0;
  if (::posix_spawn(&pid, self, &actions, nullptr, child_argv, environ) != 0) std::exit(1);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  char ready = 0;
  if (::read(from_child[0], &ready, 1) != 1) {
    std::fprintf(stderr, "a parked child did not get ready\n");
    std::exit(1);
  }
  ::close(from_child[0]);
  return {pid, to_child[1]};
}

struct Summary {
  double median, p90, max;
};

Summary summarise(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const auto at = [&](double q) { return ms[static_cast<std::size_t>(q * static_cast<double>(ms.size() - 1))]; };
  return {at(0.5), at(0.9), ms.back()};
}

void print_phase(const char* name, const std::vector<double>& ms, const Summary& quiet) {
  const Summary s = summarise(ms);
  const long over = std::count_if(ms.begin(), ms.end(), [&](double x) { return x > quiet.max; });
  std::printf("%-22s %.4f   %.4f   %.4f   (%zu windows, %ld over the quiet max)\n", name, s.median, s.p90, s.max,
              ms.size(), over);
}

template <typename Window>
int beside_parked(Window& window, const std::vector<double>& quiet, int windows, int count) {
  char self[] = "/proc/self/exe";
  std::vector<Parked> parked;
  for (int i = 0; i < count; ++i) parked.push_back(spawn_parked(self));
  std::vector<double> idle;
  for (int i = 0; i < windows; ++i) idle.push_back(window());
  std::vector<double> after, teardown_ms;
  for (std::size_t first = 0; first < parked.size(); first += 3) {
    const std::size_t last = std::min(parked.size(), first + 3);
    const auto let_go = std::chrono::steady_clock::now();
    for (std::size_t i = first; i < last; ++i) ::close(parked[i].release);
    for (std::size_t i = first; i < last; ++i) {
      int status = 0;
      ::waitpid(parked[i].pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::fprintf(stderr, "a parked child failed\n");
    }
    teardown_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - let_go).count());
    for (int i = 0; i < 50; ++i) after.push_back(window());
  }
  const Summary q = summarise(quiet);
  std::printf("ms a call              median   p90      max\n");
  print_phase("quiet", quiet, q);
  print_phase("beside parked", idle, q);
  print_phase("after teardowns", after, q);
  const Summary t = summarise(teardown_ms);
  std::printf("%d parked contexts; teardown of a group of up to three: median %.1f ms, max %.1f ms (%zu groups)\n",
              count, t.median, t.max, teardown_ms.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "start") == 0) {
    if (std::strcmp(argv[2], "park") == 0) return park();
    return start_once(std::strcmp(argv[2], "context") == 0);
  }
  const int windows = argc > 1 ? std::atoi(argv[1]) : 400;
  const bool context_only = argc > 2 && std::strcmp(argv[2], "context") == 0;
  const bool parked_mode = argc > 2 && std::strcmp(argv[2], "parked") == 0;
  const int parked_count = parked_mode && argc > 3 ? std::atoi(argv[3]) : 0;
  if (windows < 1 || (parked_mode && parked_count < 1)) {
    std::fprintf(stderr, "usage: %s WINDOWS [context | parked K]   (WINDOWS and K at least 1)\n", argv[0]);
    return 2;
  }
  float *a, *b, *c;
  check(cudaMalloc(&a, kElements * sizeof(float)), "a");
  check(cudaMalloc(&b, kElements * sizeof(float)), "b");
  check(cudaMalloc(&c, kElements * sizeof(float)), "c");
  check(cudaMemset(a, 0, kElements * sizeof(float)), "memset");
  check(cudaMemset(b, 0, kElements * sizeof(float)), "memset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const unsigned blocks = static_cast<unsigned>((kElements + 255) / 256);
  const auto window = [&] {
    check(cudaEventRecord(start), "record");
    for (int k = 0; k < kCallsPerWindow; ++k) add<<<blocks, 256>>>(a, b, c, kElements);
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    return static_cast<double>(ms) / kCallsPerWindow;
  };
  for (int i = 0; i < 20; ++i) window();

  std::vector<double> quiet;
  for (int i = 0; i < windows; ++i) quiet.push_back(window());

  if (parked_count > 0) return beside_parked(window, quiet, windows, parked_count);

  std::atomic<bool> done{false};
  std::atomic<int> starts{0};
  std::thread starter([&] {
    char self[] = "/proc/self/exe";
    char mode[] = "start";
    char what[] = "context";
    char all[] = "all";
    char* child_argv[] = {self, mode, context_only ? what : all, nullptr};
    while (!done) {
      pid_t pid = 0;
      if (::posix_spawn(&pid, self, nullptr, nullptr, child_argv, environ) != 0) break;
      int status = 0;
      ::waitpid(pid, &status, 0);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++starts;
    }
  });
  std::vector<double> beside;
  for (int i = 0; i < windows; ++i) beside.push_back(window());
  done = true;
  starter.join();

  const Summary q = summarise(quiet);
  std::printf("ms a call              median   p90      max\n");
  print_phase("quiet", quiet, q);
  print_phase("beside starts", beside, q);
  std::printf("%d CUDA starts made beside them\n", starts.load());
  return 0;
}
