#pragma once
// What the probes that share buffers between processes have in common (ipc_va_probe,
// ipc_replicas_probe, ctx_switch_probe): exiting on a CUDA error, the kernel they time, making and
// mapping a VMM allocation, and IPC handles passed as hex on a command line. Each probe stays one nvcc
// command (this header sits beside it).
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
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
