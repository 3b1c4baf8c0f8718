#pragma once
// Compares two device arrays on the GPU, so a large output can be checked in about the time it
// takes to read it (the timing engine checks timed calls this way: timing/interleaved.hpp).
//
//   const cudalabs::DeviceMismatch m = cudalabs::compare_on_device(expected, actual, n, 0.0, 0.0, stream);
//   if (m.count != 0) return cudalabs::describe(m, n, "c");
//
// Synchronous: waits for the comparison (queued on `stream` after the work that produced the
// arrays) and returns its summary. Throws CudaError on CUDA failure.
#include <cstddef>
#include <string>

#include <cuda_runtime.h>

#include "cudalabs/compare.hpp"

namespace cudalabs {

struct DeviceMismatch {
  std::size_t count = 0;  // elements outside the tolerance
  std::size_t first = 0;  // the lowest such index (when count > 0)
  double expected = 0;    // the values there
  double actual = 0;
};

// actual[i] matches expected[i] when they are equal or |actual - expected| <= abs + rel * |expected|;
// a NaN matches nothing.
DeviceMismatch compare_on_device(const float* expected, const float* actual, std::size_t n, double abs, double rel,
                                 cudaStream_t stream);
// Integers: |actual - expected| <= abs (0: exact).
DeviceMismatch compare_on_device(const int* expected, const int* actual, std::size_t n, long long abs,
                                 cudaStream_t stream);
DeviceMismatch compare_on_device(const unsigned* expected, const unsigned* actual, std::size_t n, long long abs,
                                 cudaStream_t stream);
DeviceMismatch compare_on_device(const unsigned char* expected, const unsigned char* actual, std::size_t n,
                                 long long abs, cudaStream_t stream);

// "3 of 67108864 elements of c differ from the reference; the first at [12]: expected 0.5, got nan".
std::string describe(const DeviceMismatch& mismatch, std::size_t n, const std::string& what);

// For checks of a timed call against the reference solution's output on the same inputs: each
// may lie `tolerance` (the lab's, relative to the exact result) from the exact result, so the two
// may differ by twice it. "" when every element is within that, else describe(...) of `what`.
std::string check_against_reference(const float* reference, const float* actual, std::size_t n, Tolerance tolerance,
                                    const std::string& what, cudaStream_t stream);

// Queues a fill of `bytes` bytes at `data` with `value` on the stream (an output poisoned
// before a timed call, so one that writes nothing is caught).
void poison_async(void* data, std::size_t bytes, unsigned char value, cudaStream_t stream);

}  // namespace cudalabs
