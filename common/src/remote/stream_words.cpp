#include "cudalabs/remote/stream_words.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

namespace cudalabs::remote {
namespace {

// Resolved once; nullptr where the driver lacks them (then every call fails with cudaErrorNotSupported).
template <class Function>
Function driver_function(const char* name) {
  void* found = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &found, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess) {
    static_cast<void>(cudaGetLastError());
    return nullptr;
  }
  return reinterpret_cast<Function>(found);
}

cudaError_t from_driver(CUresult result) {
  if (result == CUDA_SUCCESS) return cudaSuccess;
  return result == CUDA_ERROR_NOT_SUPPORTED ? cudaErrorNotSupported : cudaErrorUnknown;
}

}  // namespace

cudaError_t wait_for_word(cudaStream_t stream, const void* word, std::uint32_t at_least) {
  static const auto wait = driver_function<PFN_cuStreamWaitValue32_v11070>("cuStreamWaitValue32");
  if (wait == nullptr) return cudaErrorNotSupported;
  return from_driver(wait(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(word), at_least,
                          CU_STREAM_WAIT_VALUE_GEQ));
}

cudaError_t write_word(cudaStream_t stream, void* word, std::uint32_t value) {
  static const auto write = driver_function<PFN_cuStreamWriteValue32_v11070>("cuStreamWriteValue32");
  if (write == nullptr) return cudaErrorNotSupported;
  return from_driver(write(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(word), value,
                           CU_STREAM_WRITE_VALUE_DEFAULT));
}

}  // namespace cudalabs::remote
