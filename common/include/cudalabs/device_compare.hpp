#pragma once
// The comparisons of compare.hpp and lab_checks.hpp for arrays that stay in device memory: the
// scan runs on the GPU (the per-element rule is compare_rule.hpp, the same code the host runs),
// and only counts and the few listed elements come back. The CompareReport is the host one, so
// its to_string gives the same message word for word.
//
//   CompareReport report = cudalabs::compare_floats_on_device(expected.data(), c.data(), n, tolerance);
//   EXPECT_TRUE(cudalabs::matches(report, "c = a + b"));
//
// Every function waits for the work queued before it on the legacy default stream and for its
// own kernels before it returns; a failing CUDA call throws CudaError.
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "cudalabs/compare.hpp"

namespace cudalabs {

// compare_floats(expected, actual, tolerance, max_listed) for n elements of each, on the device.
CompareReport compare_floats_on_device(const float* expected, const float* actual, std::size_t n,
                                       Tolerance tolerance, std::size_t max_listed = 10);

// compare_doubles for device arrays.
CompareReport compare_doubles_on_device(const double* expected, const double* actual, std::size_t n,
                                        Tolerance tolerance, std::size_t max_listed = 10);

// compare_ints for device arrays.
CompareReport compare_ints_on_device(const int* expected, const int* actual, std::size_t n,
                                     std::size_t max_listed = 10);

// 8-bit values (images) and unsigned counts (histograms): |actual - expected| <= abs, printed as
// integers.
CompareReport compare_bytes_on_device(const unsigned char* expected, const unsigned char* actual, std::size_t n,
                                      double abs = 0, std::size_t max_listed = 10);
CompareReport compare_uints_on_device(const unsigned* expected, const unsigned* actual, std::size_t n,
                                      std::size_t max_listed = 10);

// --- Checks of timed results (timing/interleaved.hpp's Verify hooks) ---------------------------
// Each first waits for `stream`, then compares as above; "" when every element matches, else the
// report's text for `what` (compare.hpp's words).

// The student's and the reference's outputs of the same inputs: each may lie `tolerance` (the
// lab's, relative to the exact result) from the exact result, so the two may differ by twice it.
std::string check_against_reference(const float* reference, const float* actual, std::size_t n, Tolerance tolerance,
                                    const std::string& what, cudaStream_t stream);
std::string check_matches(const int* expected, const int* actual, std::size_t n, const std::string& what,
                          cudaStream_t stream);
std::string check_matches(const unsigned* expected, const unsigned* actual, std::size_t n, const std::string& what,
                          cudaStream_t stream);
std::string check_matches(const unsigned char* expected, const unsigned char* actual, std::size_t n, double abs,
                          const std::string& what, cudaStream_t stream);

// Queues a fill of `bytes` bytes at `data` with `value` on the stream (an output poisoned before a
// timed call, so a call that writes nothing is caught).
void poison_async(void* data, std::size_t bytes, unsigned char value, cudaStream_t stream);

// How two device arrays of n elements of `element_size` bytes differ bit for bit.
struct BitDifference {
  std::size_t changed = 0;  // elements whose bytes differ
  std::size_t first = 0;    // the lowest such index (meaningful when changed > 0)
};
BitDifference bit_difference_on_device(const void* before, const void* after, std::size_t n, std::size_t element_size);

// A 64-bit checksum of `bytes` bytes of device memory, keyed with a secret drawn once per process
// and held on the host: code that can write device memory cannot compute it, so it cannot
// change the data and keep the checksum. Take it before untrusted code runs, keep it on the
// host, and compare after. Any alignment; 0 bytes give a fixed value.
std::uint64_t device_checksum(const void* data, std::size_t bytes);

// The same keyed checksum, queued on `stream` into *device_slot (device memory; the call zeroes
// it first) without waiting: taken right behind a timed call's stop event, it records what the
// outputs held when the clock stopped. `sampled` reads one 8-byte word per 4 KiB page, at an
// offset keyed like the checksum (for pinned host memory, which the GPU reads over the bus): a
// copy still writing the range when it runs leaves whole pages unwritten, and some are read.
// The result is comparable only with another call's of the same range and `sampled`.
void device_checksum_async(const void* data, std::size_t bytes, bool sampled, std::uint64_t* device_slot,
                           cudaStream_t stream);

}  // namespace cudalabs
