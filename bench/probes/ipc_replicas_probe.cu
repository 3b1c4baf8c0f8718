// Is the bias that stays with a runner process its mapping of lab 01's buffers? Lab 01's timed
// cases call c = a + b on eight replica sets of three 256 MiB arrays (6 GiB), which a grade's judge
// allocates and each runner opens through CUDA IPC at addresses the driver picks per process. Ten
// grades of the same solution spread +-3-4%, the student's and the reference's runner each fast
// or slow by up to 8% in both timed cases of a grade (2026-11-27, H100).
//
// The parent allocates the eight sets with cudaMalloc, as DeviceBuffer does, and times windows of
// eight calls, call k on set k, with its own events (no other context, so no context switch in the
// window). Then children, one after another, open the 24 buffers through cudaIpcOpenMemHandle and
// time the same windows, and windows of eight calls on set 0 alone (one set: 768 MiB of mappings
// instead of 6 GiB). If the children's eight-set windows spread by several percent while their
// one-set windows do not, the runner's bias is its mappings. The same again with the buffers made
// by cuMemCreate and each child mapping them at the parent's own addresses (VMM), the fix that
// would give every runner the same mappings: do those children agree?
//
// H100 (2026-11-27), two parents of eight children each: every process, parent or child, legacy
// IPC or VMM, eight sets or one, 0.2920-0.2935 ms a call. The mappings are not the bias; the calls
// a grade's judge timed took 0.297-0.323 ms, so it is in what the judge's window adds (the GPU's
// switches between the judge's context and a runner's).
//
//   nvcc -O3 -arch=sm_90 bench/probes/ipc_replicas_probe.cu -lcuda -o ipc_replicas_probe && ./ipc_replicas_probe 8
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
constexpr int kWindows = 40;

// Median over kWindows of eight back-to-back calls, call k on set set_of(k); ms per call.
template <typename SetOf>
double time_windows(float* const* buffers, SetOf set_of) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  const unsigned blocks = static_cast<unsigned>((kElements + 255) / 256);
  const auto window = [&] {
    for (int k = 0; k < kSets; ++k) {
      const int s = set_of(k);
      add<<<blocks, 256>>>(buffers[3 * s], buffers[3 * s + 1], buffers[3 * s + 2], kElements);
    }
  };
  window();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int i = 0; i < kWindows; ++i) {
    check(cudaEventRecord(start), "record");
    window();
    check(cudaEventRecord(stop), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    times.push_back(ms / kSets);
  }
  std::nth_element(times.begin(), times.begin() + kWindows / 2, times.end());
  check(cudaEventDestroy(start), "event");
  check(cudaEventDestroy(stop), "event");
  return times[kWindows / 2];
}

void report(const char* who, float* const* buffers) {
  const double eight = time_windows(buffers, [](int k) { return k; });
  const double one = time_windows(buffers, [](int) { return 0; });
  std::printf("%s: eight sets %.4f ms a call | set 0 alone %.4f ms a call | a of set 0 at %p, %llu MiB past 1 GiB\n",
              who, eight, one, static_cast<void*>(buffers[0]),
              static_cast<unsigned long long>((reinterpret_cast<std::uintptr_t>(buffers[0]) % (1ull << 30)) >> 20));
  std::fflush(stdout);
}

// argv: "child", 24 legacy handles in hex, 24 descriptors, 24 parent addresses in hex.
int child(char** argv) {
  check(cudaFree(nullptr), "init");
  float* legacy[kBuffers];
  float* vmm[kBuffers];
  bool granted = true;
  for (int i = 0; i < kBuffers; ++i) {
    legacy[i] = legacy_import(argv[2 + i]);
    bool here = true;
    vmm[i] = vmm_import(argv[2 + kBuffers + i], argv[2 + 2 * kBuffers + i], kBytes, here);
    granted = granted && here;
  }
  const std::string who = "child " + std::to_string(::getpid());
  report((who + " legacy IPC").c_str(), legacy);
  report((who + (granted ? " VMM at the parent's addresses" : " VMM (parent's addresses NOT granted)")).c_str(), vmm);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) return child(argv);
  const int children = argc > 1 ? std::atoi(argv[1]) : 8;
  check(cudaFree(nullptr), "init");
  float* buffers[kBuffers];
  float* vmm[kBuffers];
  std::vector<std::string> handles(kBuffers), fds(kBuffers), addresses(kBuffers);
  for (int i = 0; i < kBuffers; ++i) {
    handles[i] = legacy_export(kBytes, &buffers[i]);
    const VmmExport exported = vmm_export(kBytes);
    vmm[i] = exported.data;
    fds[i] = exported.fd;
    addresses[i] = exported.address;
  }
  report("parent cudaMalloc", buffers);
  report("parent VMM", vmm);
  for (int c = 0; c < children; ++c) {
    std::vector<std::string> words = {"child"};
    for (auto* group : {&handles, &fds, &addresses}) words.insert(words.end(), group->begin(), group->end());
    run_child(words);
  }
  report("parent cudaMalloc again", buffers);
  report("parent VMM again", vmm);
  return 0;
}
