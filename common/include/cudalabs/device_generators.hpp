#pragma once
// The seeded generators of generators.hpp, written straight into device memory by a kernel:
// device_out[i] is bit-identical to element i of the host vector with the same arguments
// (both compile generator_elements.hpp), at GPU speed instead of one value at a time on the host.
//
//   cudalabs::DeviceBuffer<float> a(n);
//   cudalabs::fill_uniform_floats(a.data(), n, seed, -1.0f, 1.0f, stream);
//   // == cudalabs::uniform_floats(n, seed, -1.0f, 1.0f), without the host loop and the copy
//
// Asynchronous on `stream` (nullptr: the legacy default stream), like a kernel launch. The ranges
// are validated on the host first: the same std::invalid_argument as the host generators; a
// failed launch throws CudaError. n = 0 launches nothing (device_out may then be nullptr).
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

namespace cudalabs {

// n floats uniform in [lo, hi): device_out[i] == uniform_floats(n, seed, lo, hi)[i].
void fill_uniform_floats(float* device_out, std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f,
                         cudaStream_t stream = nullptr);

// n doubles uniform in [lo, hi): device_out[i] == uniform_doubles(n, seed, lo, hi)[i].
void fill_uniform_doubles(double* device_out, std::size_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0,
                          cudaStream_t stream = nullptr);

// n ints uniform in [lo, hi]: device_out[i] == uniform_ints(n, seed, lo, hi)[i].
void fill_uniform_ints(int* device_out, std::size_t n, std::uint64_t seed, int lo, int hi,
                       cudaStream_t stream = nullptr);

// n bytes uniform in [0, 255]: device_out[i] == random_bytes(n, seed)[i]. Any alignment.
void fill_random_bytes(unsigned char* device_out, std::size_t n, std::uint64_t seed, cudaStream_t stream = nullptr);

}  // namespace cudalabs
