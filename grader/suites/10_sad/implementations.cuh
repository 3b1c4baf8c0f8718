#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "sad.cuh"
#include "cudalabs/student_and_solution.hpp"

#include <cstdint>

#include <cuda_runtime.h>

#include "lab10_test_support.cuh"

namespace lab10 {

// Frames made on the GPU (frames_on_device.cu), bit for bit the host helpers' frames:
// fill_shifted_frame(out, reference, ...) == shifted_copy(reference, width, height, sx, sy, seed)
// with `reference` already on the device. Asynchronous on `stream`; throws CudaError on a failed
// launch.
void fill_shifted_frame(unsigned char* out, const unsigned char* reference, int width, int height, int sx, int sy,
                        std::uint64_t seed, cudaStream_t stream = nullptr);

}  // namespace lab10
