#pragma once
// Empties the L2 cache of the current device before a timed sample, so every sample starts cold
// and a kernel is not rewarded for data the previous sample (or the other implementation) left
// in L2.
#include <cstddef>

#include <cuda_runtime.h>

#include "cudalabs/device_buffer.hpp"

namespace cudalabs::timing {

class L2Flusher {
 public:
  // Sizes the buffer for the current device: twice its L2, so a pass over it displaces every
  // line whatever the replacement policy and the L2's partitioning.
  L2Flusher();

  // Queues a read of the whole buffer on `stream`; whatever L2 held before is evicted (dirty
  // lines written back now, not during the next timed kernel). First resets the persisting-L2
  // state (reset_persisting), so nothing survives in a carve-out that normal reads cannot evict.
  void flush(cudaStream_t stream);

  // Turns every persisting L2 line back into a normal one (cudaCtxResetPersistingL2Cache) and
  // sets the persisting carve-out limit to 0, so no access can make a line persist until code
  // sets it again. Code under test can otherwise mark its inputs persisting (an access policy
  // window) and find them in L2 in the next timed sample. Context-wide and immediate: call it
  // when the code under test has finished. A no-op on devices without persisting L2.
  void reset_persisting();

  // Whether the device supports persisting L2 lines (and reset_persisting does anything).
  bool has_persisting_l2() const noexcept { return persisting_l2_max_bytes_ > 0; }

  std::size_t l2_bytes() const noexcept { return l2_bytes_; }
  std::size_t buffer_bytes() const noexcept { return buffer_.bytes(); }

 private:
  std::size_t l2_bytes_ = 0;
  std::size_t persisting_l2_max_bytes_ = 0;
  DeviceBuffer<uint4> buffer_;
  DeviceBuffer<unsigned> sink_;  // written only if an impossible checksum appears
  int grid_ = 0;
  int block_ = 0;
};

}  // namespace cudalabs::timing
