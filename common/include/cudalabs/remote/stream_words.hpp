#pragma once
// The two stream memory operations a gated timing window is made of (protocol.hpp,
// MessageKind::arm_window): a stream that waits until a 32-bit word of device memory reaches a
// value, and a stream that writes one. They are the driver's cuStreamWaitValue32 and
// cuStreamWriteValue32, reached through the runtime's entry-point query so that no program of
// ours links libcuda (a machine without the driver still starts them and says why it cannot run).
#include <cstdint>

#include <cuda_runtime.h>

namespace cudalabs::remote {

// Work queued on `stream` after this waits until *word >= at_least (unsigned comparison).
cudaError_t wait_for_word(cudaStream_t stream, const void* word, std::uint32_t at_least);
// Writes `value` to *word once the work queued on `stream` before it is done.
cudaError_t write_word(cudaStream_t stream, void* word, std::uint32_t value);

}  // namespace cudalabs::remote
