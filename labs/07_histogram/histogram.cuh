// Lab 07 API: a 256-bin histogram of bytes, first with global atomics, then privatized in
// shared memory.
//
// No include guard, on purpose: the grader includes this header twice in one file, once with
// LAB_IMPL defined as `student` and once as `solution`, so both implementations can be called
// side by side. Your build defines LAB_IMPL=student for you.
#ifndef LAB_IMPL
#error "define LAB_IMPL (student or solution) before including histogram.cuh"
#endif

#include <cstddef>

#include <cuda_runtime.h>

namespace LAB_IMPL {

// One bin per possible byte value.
inline constexpr int kHistogramBins = 256;

// bins[b] = the number of i in [0, n) with data[i] == b, for every b in [0, 256).
//
// data is a device pointer to at least n bytes; it is only read and need not be aligned (the
// tests start it 1 to 15 bytes past a 16-byte boundary). bins is a device pointer to 256
// unsigned ints, always valid (also when n == 0).
//
// bins is OVERWRITTEN, not accumulated into: whatever it held before the call is ignored, so
// the function must set it to zero itself (cudaMemsetAsync on `stream` is the usual way) before
// counting. n == 0 therefore still means "set all 256 bins to 0"; data may then be null.
// n must be below 2^32 so that every count fits in an unsigned int.
//
// Asynchronous: all work (the zeroing included) is queued on `stream` and the function returns
// without waiting for it. Returns the first error of a call it made (cudaMemsetAsync, the launch:
// cudaGetLastError()), cudaSuccess when everything was accepted; errors raised while the kernel
// runs show up at the caller's next synchronisation.

// Every thread adds its bytes straight into the 256 global counters with atomicAdd.
cudaError_t histogram_global_atomics(const unsigned char* data, std::size_t n, unsigned int* bins,
                                     cudaStream_t stream = nullptr);

// Privatized: each block counts into its own histogram in shared memory, then adds it to the
// global counters with one atomicAdd per bin. Same contract as above; this one is timed, on
// uniformly random bytes and on data where every byte is equal.
cudaError_t histogram_shared(const unsigned char* data, std::size_t n, unsigned int* bins,
                             cudaStream_t stream = nullptr);

}  // namespace LAB_IMPL
