#pragma once
// lab11::make_keys and lab11::make_values written straight into device memory (element i is the
// same value as on the host), for the cases that are made and checked on the GPU.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "lab11_test_support.cuh"

namespace lab11 {

// Asynchronous on `stream`; n == 0 launches nothing.
void fill_keys(std::uint32_t* device_out, std::size_t n, Pattern pattern, std::uint64_t seed,
               cudaStream_t stream = nullptr);
void fill_values(std::uint32_t* device_out, std::size_t n, std::uint64_t seed, cudaStream_t stream = nullptr);

}  // namespace lab11
