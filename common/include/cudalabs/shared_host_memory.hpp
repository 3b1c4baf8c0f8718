#pragma once
// Page-locked host memory that another process can map: a System V shared-memory segment,
// attached here and registered with CUDA (cudaHostRegister). PinnedHostBuffer allocates from it, so
// a judge can hand a pinned buffer to the runner that serves a call (cudalabs/remote/judge.hpp):
// the runner maps the same pages and registers them in its own context.
#include <cstddef>
#include <cstdint>

namespace cudalabs {

// `bytes` (> 0) of pinned, shareable host memory; throws CudaError or std::system_error.
void* allocate_shared_pinned(std::size_t bytes);
// Unregisters and unmaps what allocate_shared_pinned returned; nullptr is ignored. Never throws.
void free_shared_pinned(void* data) noexcept;

struct SharedSegment {
  std::uint32_t id = 0;  // unique in this process
  int shm_id = -1;        // the System V segment, for a runner to attach
  unsigned char* base = nullptr;
  std::size_t bytes = 0;  // mapped (a whole number of pages)
};

// The segment that holds `pointer`, if any.
bool find_shared_segment(const void* pointer, SharedSegment* segment);

}  // namespace cudalabs
