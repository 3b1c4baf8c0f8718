#pragma once
// What the probes that share buffers between processes have in common (ipc_va_probe,
// ipc_replicas_probe, ctx_switch_probe, pair_bias_switch_probe): exiting on a CUDA error, the
// kernel they time and the one that flushes the L2, making, exporting and mapping a VMM allocation
// and a legacy IPC one, IPC handles passed as hex on a command line, a parent's and a child's
// messages over a socket, and a median. Each probe stays one nvcc command (this header sits
// beside it).
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace probe_support {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

// Driver API calls (link with -lcuda).
inline void check(CUresult status, const char* what) {
  if (status != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(status, &name);
    std::fprintf(stderr, "%s: %s\n", what, name ? name : "?");
    std::exit(1);
  }
}

// c = a + b: lab 01's vector_add, the memory-bound call every probe times.
__global__ void add(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Lab 01's timed case: c = a + b on 2^26 floats, eight calls a window, each on a replica set of
// three arrays of its own.
namespace lab01 {
constexpr std::size_t kElements = std::size_t{1} << 26;
constexpr std::size_t kBytes = kElements * sizeof(float);
constexpr int kSets = 8;
constexpr int kBuffers = 3 * kSets;

// One window: eight calls, call k on set k (buffers 3k, 3k+1, 3k+2), queued on `stream`.
inline void window(float* const* buffers, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>((kElements + 255) / 256);
  for (int k = 0; k < kSets; ++k) {
    add<<<blocks, 256, 0, stream>>>(buffers[3 * k], buffers[3 * k + 1], buffers[3 * k + 2], kElements);
  }
}
}  // namespace lab01

// Adds 1 to every word: a parent's work before a timed window, which flushes the L2 (a buffer
// larger than it) and leaves the GPU on the parent's context.
__global__ void touch(unsigned* data, std::size_t words) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    data[i] += 1;
  }
}

// What a parent times with: a buffer to flush the L2 with, a non-blocking stream, two events.
struct ParentClock {
  unsigned* flush = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  explicit ParentClock(std::size_t flush_bytes) {
    check(cudaMalloc(&flush, flush_bytes), "malloc");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
  }
};

inline double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Waits, spinning (as a runner does while timed), for one whole message; exits when the other
// side has gone.
template <typename Message>
void spin_recv(int fd, Message& message) {
  for (;;) {
    const ssize_t got = ::recv(fd, &message, sizeof message, MSG_DONTWAIT);
    if (got == static_cast<ssize_t>(sizeof message)) return;
    if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) std::exit(0);
  }
}

// Device memory on device 0 that cuMemCreate makes exportable as a file descriptor.
inline CUmemAllocationProp exportable_allocation() {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

// Maps `bytes` of `handle` at `wanted` if the driver grants that address (0: anywhere), readable
// and writable by device 0; returns the address.
inline CUdeviceptr map(CUmemGenericAllocationHandle handle, std::size_t bytes, CUdeviceptr wanted) {
  CUdeviceptr address = 0;
  check(cuMemAddressReserve(&address, bytes, 2u << 20, wanted, 0), "reserve");
  check(cuMemMap(address, bytes, 0, handle, 0), "map");
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = 0;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(cuMemSetAccess(address, bytes, &access, 1), "access");
  return address;
}

inline std::string hex(const void* data, std::size_t bytes) {
  std::string out;
  char two[3];
  for (std::size_t i = 0; i < bytes; ++i) {
    std::snprintf(two, sizeof two, "%02x", static_cast<const unsigned char*>(data)[i]);
    out += two;
  }
  return out;
}

inline void unhex(const char* text, void* data, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) {
    unsigned value = 0;
    std::sscanf(text + 2 * i, "%2x", &value);
    static_cast<unsigned char*>(data)[i] = static_cast<unsigned char>(value);
  }
}

// `bytes` by cudaMalloc, zeroed (at *made, when given), and its legacy IPC handle as hex.
inline std::string legacy_export(std::size_t bytes, float** made = nullptr) {
  void* data = nullptr;
  check(cudaMalloc(&data, bytes), "malloc");
  check(cudaMemset(data, 0, bytes), "memset");
  cudaIpcMemHandle_t handle;
  check(cudaIpcGetMemHandle(&handle, data), "handle");
  if (made) *made = static_cast<float*>(data);
  return hex(&handle, sizeof handle);
}

// `bytes` by cuMemCreate, mapped where the driver likes and zeroed, exported as a file descriptor
// that children inherit; its address as hex.
struct VmmExport {
  float* data;
  std::string fd;
  std::string address;
};

inline VmmExport vmm_export(std::size_t bytes) {
  const CUmemAllocationProp prop = exportable_allocation();
  CUmemGenericAllocationHandle created;
  check(cuMemCreate(&created, bytes, &prop, 0), "create");
  const CUdeviceptr address = map(created, bytes, 0);
  check(cudaMemset(reinterpret_cast<void*>(address), 0, bytes), "memset");
  int fd = -1;
  check(cuMemExportToShareableHandle(&fd, created, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), "export");
  ::fcntl(fd, F_SETFD, 0);  // the children inherit it
  char text[32];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(address));
  return {reinterpret_cast<float*>(address), std::to_string(fd), text};
}

// A child's side: the legacy handle opened, or the descriptor imported and mapped at the parent's
// address (`granted` false when the driver put it elsewhere).
inline float* legacy_import(const char* handle_hex) {
  cudaIpcMemHandle_t handle;
  unhex(handle_hex, &handle, sizeof handle);
  void* opened = nullptr;
  check(cudaIpcOpenMemHandle(&opened, handle, cudaIpcMemLazyEnablePeerAccess), "open");
  return static_cast<float*>(opened);
}

inline float* vmm_import(const char* fd_text, const char* address_hex, std::size_t bytes, bool& granted) {
  const CUdeviceptr parent_address = std::strtoull(address_hex, nullptr, 16);
  CUmemGenericAllocationHandle imported;
  check(cuMemImportFromShareableHandle(&imported,
                                       reinterpret_cast<void*>(static_cast<std::intptr_t>(std::atoi(fd_text))),
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
        "import");
  const CUdeviceptr address = map(imported, bytes, parent_address);
  granted = address == parent_address;
  return reinterpret_cast<float*>(address);
}

// A child kept alive beside the parent (a runner beside its judge): this program again as
// `child <socket fd> words...`, its end of a SOCK_SEQPACKET pair open across the exec.
struct LiveChild {
  pid_t pid;
  int socket;  // the parent's end
};

inline LiveChild spawn_child(const std::vector<std::string>& words) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) {
    std::perror("socketpair");
    std::exit(1);
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pair[0]);
    std::vector<std::string> all = {"/proc/self/exe", "child", std::to_string(pair[1])};
    all.insert(all.end(), words.begin(), words.end());
    std::vector<char*> args;
    for (std::string& word : all) args.push_back(word.data());
    args.push_back(nullptr);
    ::execv("/proc/self/exe", args.data());
    std::_Exit(127);
  }
  ::close(pair[1]);
  return {pid, pair[0]};
}

// Runs this program again with `words` (after argv[0]) and waits for it: a child that opens the
// parent's buffers, alone on the GPU besides the parent.
inline void run_child(std::vector<std::string> words) {
  std::vector<char*> args = {const_cast<char*>("/proc/self/exe")};
  for (std::string& word : words) args.push_back(word.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execv("/proc/self/exe", args.data());
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
}

}  // namespace probe_support
