#include "process_device_memory.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace cudalabs {
namespace {

// The few parts of NVML's C ABI used here (nvml.h, stable across drivers): declared locally so
// that building needs no NVML header either.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlInsufficientSize = 7;
constexpr unsigned long long kNvmlValueNotAvailable = ~0ULL;

struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t
  unsigned int pid;
  unsigned long long used_gpu_memory;
};
struct ProcessInfoV2 {  // nvmlProcessInfo_v2_t (R450 on: adds the MIG instance ids)
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};

}  // namespace

struct ProcessDeviceMemory::Api {
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*processes_v2)(NvmlDevice, unsigned int*, ProcessInfoV2*) = nullptr;
  NvmlReturn (*processes_v1)(NvmlDevice, unsigned int*, ProcessInfoV1*) = nullptr;

  std::string error(NvmlReturn status) const {
    const char* text = error_string ? error_string(status) : nullptr;
    return text ? std::string(text) : "NVML error " + std::to_string(status);
  }
};

namespace {

template <typename Function>
bool find_symbol(void* library, const char* name, Function& out) {
  out = reinterpret_cast<Function>(::dlsym(library, name));
  return out != nullptr;
}

// One call of nvmlDeviceGetComputeRunningProcesses (either version) into `list`, growing it once
// if more processes appeared than it holds.
template <typename Info, typename Call>
NvmlReturn list_processes(Call call, NvmlDevice device, std::vector<Info>& list) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    unsigned int count = static_cast<unsigned int>(list.size());
    const NvmlReturn status = call(device, &count, list.data());
    if (status == kNvmlInsufficientSize) {
      list.resize(count + 64);
      continue;
    }
    if (status == kNvmlSuccess) list.resize(count < list.size() ? count : list.size());
    return status;
  }
  return kNvmlInsufficientSize;
}

}  // namespace

ProcessDeviceMemory::ProcessDeviceMemory(const std::string& pci_bus_id) {
  const char* overridden = std::getenv(kNvmlLibraryVariable);
  const std::string name = overridden && *overridden ? overridden : "libnvidia-ml.so.1";
  library_ = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* error = ::dlerror();
    reason_ = "NVML could not be loaded (" + (error ? std::string(error) : name) + ")";
    return;
  }
  api_ = new Api();
  find_symbol(library_, "nvmlErrorString", api_->error_string);
  find_symbol(library_, "nvmlDeviceGetComputeRunningProcesses_v2", api_->processes_v2);
  find_symbol(library_, "nvmlDeviceGetComputeRunningProcesses", api_->processes_v1);
  if (!find_symbol(library_, "nvmlInit_v2", api_->init) || !find_symbol(library_, "nvmlShutdown", api_->shutdown) ||
      !find_symbol(library_, "nvmlDeviceGetHandleByPciBusId_v2", api_->handle_by_pci_bus_id) ||
      (!api_->processes_v2 && !api_->processes_v1)) {
    reason_ = name + " lacks the NVML functions needed (too old a driver?)";
    return;
  }
  const NvmlReturn init = api_->init();
  if (init != kNvmlSuccess) {
    reason_ = "NVML did not initialise: " + api_->error(init);
    api_->shutdown = nullptr;  // nothing to shut down
    return;
  }
  NvmlDevice device = nullptr;
  const NvmlReturn found = api_->handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (found != kNvmlSuccess || !device) {
    reason_ = "NVML does not know the GPU at PCI bus id " + pci_bus_id + ": " + api_->error(found);
    return;
  }
  device_ = device;
}

ProcessDeviceMemory::~ProcessDeviceMemory() {
  if (api_ && api_->shutdown) api_->shutdown();
  delete api_;
  if (library_) ::dlclose(library_);
}

std::optional<std::size_t> ProcessDeviceMemory::bytes() { return bytes_of(static_cast<unsigned int>(::getpid())); }

std::optional<std::size_t> ProcessDeviceMemory::bytes_of(unsigned int self) {
  if (!device_) return std::nullopt;
  NvmlReturn status = kNvmlSuccess;
  std::optional<unsigned long long> used;
  if (api_->processes_v2) {
    std::vector<ProcessInfoV2> list(64);
    status = list_processes<ProcessInfoV2>(api_->processes_v2, device_, list);
    for (const ProcessInfoV2& info : list) {
      if (status == kNvmlSuccess && info.pid == self) used = info.used_gpu_memory;
    }
  } else {
    std::vector<ProcessInfoV1> list(64);
    status = list_processes<ProcessInfoV1>(api_->processes_v1, device_, list);
    for (const ProcessInfoV1& info : list) {
      if (status == kNvmlSuccess && info.pid == self) used = info.used_gpu_memory;
    }
  }
  if (status != kNvmlSuccess) {
    reason_ = "NVML could not list the GPU's processes: " + api_->error(status);
    return std::nullopt;
  }
  if (!used) {
    reason_ = "NVML does not list this process (pid " + std::to_string(self) +
              ") among the GPU's: another PID namespace (container)?";
    return std::nullopt;
  }
  if (*used == kNvmlValueNotAvailable) {
    reason_ = "NVML gives no per-process memory on this GPU (MIG?)";
    return std::nullopt;
  }
  return static_cast<std::size_t>(*used);
}

}  // namespace cudalabs
