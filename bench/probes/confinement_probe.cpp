// Which layer of the test-process confinement (seccomp filter, Landlock) a CUDA program can live
// under, one at a time and together, on this machine: a device-side check of
// common/src/filesystem_sandbox.cpp's grant table and process_filter.cpp's filter.
//
//   confinement_probe none|seccomp|landlock|both     exit 0: CUDA initialised and allocated
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

#include "../../common/src/filesystem_sandbox.hpp"
#include "../../common/src/process_filter.hpp"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "both";
  const bool seccomp = std::strcmp(mode, "seccomp") == 0 || std::strcmp(mode, "both") == 0;
  const bool landlock = std::strcmp(mode, "landlock") == 0 || std::strcmp(mode, "both") == 0;
  if (seccomp && !cudalabs::install_system_call_filter()) {
    std::printf("%s: seccomp filter refused\n", mode);
    return 2;
  }
  if (landlock) {
    const int scratch = ::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cudalabs::confine_filesystem(scratch) < 0) {
      std::printf("%s: Landlock refused\n", mode);
      return 2;
    }
  }
  int devices = 0;
  const cudaError_t count = cudaGetDeviceCount(&devices);
  void* memory = nullptr;
  const cudaError_t alloc = count == cudaSuccess ? cudaMalloc(&memory, 1 << 20) : count;
  std::printf("%s: cudaGetDeviceCount %s (%d), cudaMalloc %s\n", mode, cudaGetErrorName(count), devices,
              cudaGetErrorName(alloc));
  if (memory) cudaFree(memory);
  return alloc == cudaSuccess ? 0 : 1;
}
