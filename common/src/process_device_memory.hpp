// How much device memory this process holds on one GPU, from NVML's list of the GPU's compute
// processes (nvmlDeviceGetComputeRunningProcesses), matched by this process's PID. Unlike the
// device-wide free memory (cudaMemGetInfo), the figure does not move when another process on the
// GPU allocates or frees, so a leak check built on it stays valid while grades share the GPU.
//
// libnvidia-ml.so.1 is opened with dlopen on first use, so no harness gains a link dependency and
// a machine without it simply has no figure. There is none either where NVML does not list this
// process under its own PID (a container with its own PID namespace: the driver reports host
// PIDs) or gives no per-process memory (MIG, some drivers); the reason says which.
// Internal to the harness (result_stream_listener.cpp) and its tests.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace cudalabs {

// Overrides the library's name or path (tests point it at a missing file).
inline constexpr const char* kNvmlLibraryVariable = "CUDALABS_NVML_LIBRARY";

class ProcessDeviceMemory {
 public:
  // Opens NVML and finds the GPU with PCI bus id `pci_bus_id` ("0000:01:00.0", what
  // cudaDeviceGetPCIBusId gives: CUDA_VISIBLE_DEVICES renumbers devices, the bus id stays).
  // Never throws: without NVML, available() is false and reason() says why.
  explicit ProcessDeviceMemory(const std::string& pci_bus_id);
  ~ProcessDeviceMemory();
  ProcessDeviceMemory(const ProcessDeviceMemory&) = delete;
  ProcessDeviceMemory& operator=(const ProcessDeviceMemory&) = delete;

  bool available() const { return device_ != nullptr; }
  const std::string& reason() const { return reason_; }

  // Bytes this process holds on the GPU now; nullopt (with reason() set) when NVML does not list
  // this process or gives no figure for it.
  std::optional<std::size_t> bytes();
  // The same for another process of this machine (a runner this judge started).
  std::optional<std::size_t> bytes_of(unsigned int pid);

 private:
  struct Api;
  void* library_ = nullptr;
  Api* api_ = nullptr;
  void* device_ = nullptr;  // nvmlDevice_t
  std::string reason_;
};

}  // namespace cudalabs
