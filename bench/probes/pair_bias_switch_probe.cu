// Where is a runner process's bias made: in its own GPU work after the GPU switches to its
// context, or in the judge's clock around it? Lab 01's timed windows (eight c = a + b calls, each on
// a replica set of three 256 MiB arrays) measured by a grade's judge stand 0.297-0.323 ms a call,
// fixed for a runner process, while every process timing the same calls itself, with no other
// context in between, agrees within +-0.2% (ipc_replicas_probe.cu). A grade's windows differ from
// that probe's in one thing the runner sees: each follows the judge's own work (prepare, L2 flush),
// so it starts with a switch of the GPU to the runner's context.
//
// The parent (the judge) allocates the eight sets twice, by cudaMalloc shared through legacy IPC
// handles and by cuMemCreate shared as file descriptors that each child maps at the parent's own
// addresses (VMM: the same addresses and page size in every process). `children` children live at
// once, `generations` times. Per sample and child: the parent flushes the L2 in its own context,
// records its start event, asks the child for a window, and records its stop event on the reply
// (the judge's clock); the child times the same window with its own events (its own clock: the
// work after the switch, no host path). Per child and mapping: the median of both, a call's
// share, and over the children, the spread of each. Children whose own clocks spread as the
// judge's figures do carry the bias in their GPU work; children whose own clocks agree put it in
// the judge's clock (switches, host path).
//
// Without "vmm", the second column is legacy IPC with the window sent as the judge sends lab 01's:
// one request a call, each answered on launch but the last (Workload::pipelined_calls), the
// judge's device synchronised before each (remote finish_call).
//
// Each child also answers pings (an empty kernel, the judge's clock around it, as a grade's
// round trip), printed beside the overhead its windows carry (the judge's figure less its own).
//
// H100 80GB HBM3 (2026-11-28): the children's own clocks agree, 0.2921-0.2926 ms a call over 12
// children (0.1%), legacy IPC or VMM, one request or pipelined alike; the judge's figures spread
// 0.3298-0.3353 ms a call (0.8-1.5%: 24-40 us a window), identically for one request and for
// pipelined requests, and for legacy IPC and VMM. So a runner's bias is made in the judge's clock
// around its work (the switches of the GPU between contexts), not in its work, its mappings or
// the requests. With two children alive (a grade's two runners) each child's ping followed its
// windows' overhead within 6 us; with four, only within 20 us. In real grades it does not: 42
// measurements (bench/pair_bias_probe.sh --grades 6 --remeasures 5, traced) scored with each
// side's own ping subtracted instead of the reference's spread 0.981-1.021 (sd 0.0081) against
// 0.979-1.023 (0.0089) as scored, the two pings within 0.008 ms of each other while the windows
// differ by up to 0.08 ms: the grade's windows carry a bias no empty call shows.
//
// Where in the judge's clock: each whole-window request also carries the child's host timestamps
// (CLOCK_MONOTONIC, comparable across processes): received, launched (eight launches and the
// stop event queued), done (the event synchronised), replied; the judge adds its send and its
// receipt of the reply. Per child, the medians of the request's transit, the launches, the wait
// for the GPU less the child's own GPU time (switches in and out and completion detection), the
// reply's transit, and over the children, each one's spread: the part that spreads as the judge's
// overhead does is where a runner process's bias lives. (Prepared 2026-11-28, NOT yet run on a
// GPU.) With a fourth argument "pin", the judge runs on the first allowed CPU and child c on the
// (1 + c)-th (wrapping), as a grade pins its judge, reference and student's runner (TimingPin):
// whether a runner's CPU makes its bias.
//
//   nvcc -O3 -arch=sm_90 bench/probes/pair_bias_switch_probe.cu -lcuda -o pair_bias_switch_probe && ./pair_bias_switch_probe 4 3 [vmm|pipelined] [pin]
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "ipc_probe_support.cuh"

namespace {

using namespace probe_support;

using namespace lab01;
constexpr std::size_t kFlushBytes = std::size_t{200} << 20;
constexpr int kSamples = 40;

struct Message {
  int mapping;  // 0 legacy IPC, 1 VMM; -1 quit
  float own_ms;
  int call = -1;  // pipelined: this request's one call (0-7); -1: the whole window in one request
  // A whole window's host timestamps in the child (ns, CLOCK_MONOTONIC).
  std::int64_t received_ns = 0, launched_ns = 0, done_ns = 0, replied_ns = 0;
};

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

void pin_this_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) std::perror("sched_setaffinity");
}

std::int64_t now_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return std::int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

// One whole-window exchange as the judge saw it (us): the child's figures against the judge's.
struct HostPath {
  double request, launches, gpu_wait_less_own, reply, judge_less_own;
};

__global__ void empty_kernel() {}

// argv: "child", socket fd, 24 legacy handles (hex), 24 descriptors, 24 parent addresses (hex).
int child(char** argv) {
  check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "flags");
  check(cudaFree(nullptr), "init");
  const int fd = std::atoi(argv[2]);
  float* mapped[2][kBuffers];
  for (int i = 0; i < kBuffers; ++i) {
    mapped[0][i] = legacy_import(argv[3 + i]);
    bool granted = true;
    mapped[1][i] = vmm_import(argv[3 + kBuffers + i], argv[3 + 2 * kBuffers + i], kBytes, granted);
    if (!granted) std::fprintf(stderr, "child: VMM not at the parent's address\n");
  }
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t e0, e1;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  for (int m = 0; m < 2; ++m) window(mapped[m], stream);  // warm-up
  check(cudaStreamSynchronize(stream), "warm-up");
  Message message{};
  ::send(fd, &message, sizeof message, 0);
  for (;;) {
    spin_recv(fd, message);
    if (message.mapping < 0) return 0;
    if (message.mapping == 2) {  // a ping: an empty kernel, answered once done
      empty_kernel<<<1, 1, 0, stream>>>();
      check(cudaStreamSynchronize(stream), "ping");
      ::send(fd, &message, sizeof message, 0);
      continue;
    }
    if (message.call >= 0) {  // one call a request, answered on launch but the last (a judge's pipelined window)
      const int k = message.call;
      float* const* set = mapped[message.mapping] + 3 * k;
      if (k == 0) check(cudaEventRecord(e0, stream), "record");
      add<<<static_cast<unsigned>((kElements + 255) / 256), 256, 0, stream>>>(set[0], set[1], set[2], kElements);
      if (k == kSets - 1) {
        check(cudaEventRecord(e1, stream), "record");
        check(cudaEventSynchronize(e1), "sync");
        check(cudaEventElapsedTime(&message.own_ms, e0, e1), "elapsed");
      }
      ::send(fd, &message, sizeof message, 0);
      continue;
    }
    message.received_ns = now_ns();
    check(cudaEventRecord(e0, stream), "record");
    window(mapped[message.mapping], stream);
    check(cudaEventRecord(e1, stream), "record");
    message.launched_ns = now_ns();
    check(cudaEventSynchronize(e1), "sync");
    message.done_ns = now_ns();
    check(cudaEventElapsedTime(&message.own_ms, e0, e1), "elapsed");
    message.replied_ns = now_ns();
    ::send(fd, &message, sizeof message, 0);
  }
}

struct Spread {
  double low, high;
};

Spread spread(const std::vector<double>& values) {
  return {*std::min_element(values.begin(), values.end()), *std::max_element(values.begin(), values.end())};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) return child(argv);
  const int children = argc > 1 ? std::atoi(argv[1]) : 4;
  const int generations = argc > 2 ? std::atoi(argv[2]) : 3;
  check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "flags");
  check(cudaFree(nullptr), "init");
  std::vector<std::string> handles(kBuffers), fds(kBuffers), addresses(kBuffers);
  for (int i = 0; i < kBuffers; ++i) {
    handles[i] = legacy_export(kBytes);
    const VmmExport vmm = vmm_export(kBytes);
    fds[i] = vmm.fd;
    addresses[i] = vmm.address;
  }
  const ParentClock clock(kFlushBytes);
  unsigned* const flush = clock.flush;
  const cudaStream_t stream = clock.stream;
  const cudaEvent_t start = clock.start, stop = clock.stop;
  // Third argument "vmm": legacy IPC against VMM, a request a window; else one request a window
  // against one a call (pipelined, as lab 01's judge), both legacy IPC.
  const bool pipelined_vmm = argc > 3 && std::strcmp(argv[3], "vmm") == 0;
  const char* names[2] = {pipelined_vmm ? "legacy IPC" : "one request", pipelined_vmm ? "VMM" : "pipelined"};
  const bool pin = argc > 4 && std::strcmp(argv[4], "pin") == 0;
  const std::vector<int> cpus = allowed_cpus();
  if (pin && cpus.size() < 2) {
    std::fprintf(stderr, "pin: needs two allowed CPUs, has %zu\n", cpus.size());
    return 1;
  }
  if (pin) pin_this_thread(cpus[0]);
  std::vector<double> own_all[2], judge_all[2];
  std::vector<HostPath> path_medians;  // one per child, every generation
  for (int generation = 0; generation < generations; ++generation) {
    std::vector<int> sockets;
    std::vector<pid_t> pids;
    std::vector<std::string> words;
    for (auto* group : {&handles, &fds, &addresses}) words.insert(words.end(), group->begin(), group->end());
    for (int c = 0; c < children; ++c) {
      if (pin) pin_this_thread(cpus[1 + c % (cpus.size() - 1)]);  // the child inherits it
      const LiveChild child = spawn_child(words);
      if (pin) pin_this_thread(cpus[0]);
      sockets.push_back(child.socket);
      pids.push_back(child.pid);
    }
    for (int fd : sockets) {
      Message ready{};
      spin_recv(fd, ready);
    }
    // The judge's clock: its L2 flush, its start event, `exchange` (requests and replies), its stop event.
    const auto judged_ms = [&](const auto& exchange) {
      touch<<<528, 512, 0, stream>>>(flush, kFlushBytes / 4);  // the judge's work before a window
      check(cudaEventRecord(start, stream), "record");
      check(cudaStreamSynchronize(stream), "sync");
      exchange();
      check(cudaEventRecord(stop, stream), "record");
      check(cudaEventSynchronize(stop), "sync");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      return static_cast<double>(ms);
    };
    std::int64_t sent_ns = 0, reply_ns = 0;  // the judge's side of the last exchange
    const auto ask = [&](int c, Message& message) {
      sent_ns = now_ns();
      ::send(sockets[c], &message, sizeof message, 0);
      spin_recv(sockets[c], message);
      reply_ns = now_ns();
    };
    std::vector<std::vector<double>> own(2 * children), judge(2 * children), pings(children);
    std::vector<std::vector<HostPath>> paths(children);  // legacy IPC, one request a window
    for (int s = 0; s < kSamples; ++s) {
      for (int c = 0; c < children; ++c) {  // the judge's round trip of an empty call (its ping)
        Message ping{2, 0};
        pings[c].push_back(judged_ms([&] { ask(c, ping); }));
      }
      for (int m = 0; m < 2; ++m) {
        for (int c = 0; c < children; ++c) {
          Message message{0, 0};
          const double ms = judged_ms([&] {
            if (pipelined_vmm) {
              message.mapping = m;
              ask(c, message);
            } else if (m == 0) {
              ask(c, message);
            } else {
              for (int k = 0; k < kSets; ++k) {  // as finish_call: the judge's device synchronised before each request
                check(cudaDeviceSynchronize(), "sync");
                message = Message{0, 0, k};
                ask(c, message);
              }
            }
          });
          own[2 * c + m].push_back(message.own_ms / kSets);
          judge[2 * c + m].push_back(ms / kSets);
          if (m == 0) {  // a whole window in one request in both modes
            const double own_us = 1000.0 * message.own_ms;
            paths[c].push_back({(message.received_ns - sent_ns) / 1e3, (message.launched_ns - message.received_ns) / 1e3,
                                (message.done_ns - message.launched_ns) / 1e3 - own_us,
                                (reply_ns - message.replied_ns) / 1e3, 1000.0 * ms - own_us});
          }
        }
      }
    }
    for (int c = 0; c < children; ++c) {
      std::printf("gen %d child %d: ping %.4f ms, a window's overhead (judge less own)", generation, c,
                  median(pings[c]));
      for (int m = 0; m < 2; ++m) {
        std::printf(" %.4f", kSets * (median(judge[2 * c + m]) - median(own[2 * c + m])));
      }
      std::printf(" ms\n             ");
      for (int m = 0; m < 2; ++m) {
        const double mine = median(own[2 * c + m]), judged = median(judge[2 * c + m]);
        own_all[m].push_back(mine);
        judge_all[m].push_back(judged);
        std::printf("  %s own %.4f judge %.4f ms a call |", names[m], mine, judged);
      }
      std::printf("\n");
    }
    for (int c = 0; c < children; ++c) {
      const auto part = [&](double HostPath::*field) {
        std::vector<double> values;
        for (const HostPath& path : paths[c]) values.push_back(path.*field);
        return median(values);
      };
      const HostPath typical{part(&HostPath::request), part(&HostPath::launches), part(&HostPath::gpu_wait_less_own),
                             part(&HostPath::reply), part(&HostPath::judge_less_own)};
      path_medians.push_back(typical);
      std::printf("gen %d child %d host path (us, medians): request %.1f, launches %.1f, GPU wait less own %.1f, "
                  "reply %.1f; judge's overhead %.1f\n",
                  generation, c, typical.request, typical.launches, typical.gpu_wait_less_own, typical.reply,
                  typical.judge_less_own);
    }
    std::fflush(stdout);
    for (std::size_t c = 0; c < sockets.size(); ++c) {
      Message quit{-1, 0};
      ::send(sockets[c], &quit, sizeof quit, 0);
      ::close(sockets[c]);
      ::waitpid(pids[c], nullptr, 0);
    }
  }
  for (int m = 0; m < 2; ++m) {
    const Spread o = spread(own_all[m]), j = spread(judge_all[m]);
    std::printf("%-10s over %zu children: own %.4f-%.4f ms a call (%.1f%%), judge %.4f-%.4f (%.1f%%)\n", names[m],
                own_all[m].size(), o.low, o.high, 100 * (o.high / o.low - 1), j.low, j.high, 100 * (j.high / j.low - 1));
  }
  const auto spread_of = [&](const char* name, double HostPath::*field) {
    std::vector<double> values;
    for (const HostPath& path : path_medians) values.push_back(path.*field);
    const Spread range = spread(values);
    std::printf("  %-26s %.1f-%.1f us (spread %.1f)\n", name, range.low, range.high, range.high - range.low);
  };
  std::printf("host path over %zu children, legacy IPC, a whole window a request (each child's median):\n",
              path_medians.size());
  spread_of("request", &HostPath::request);
  spread_of("launches", &HostPath::launches);
  spread_of("GPU wait less own", &HostPath::gpu_wait_less_own);
  spread_of("reply", &HostPath::reply);
  spread_of("judge's overhead", &HostPath::judge_less_own);
  return 0;
}
