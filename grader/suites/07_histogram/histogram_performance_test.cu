// Lab 07 performance cases (config/labs/07_histogram.yaml `performance:`): histogram_shared on
// 2^28 bytes, uniformly random and all equal. The engine first checks one untimed student call at
// the timed size (a wrong answer earns nothing), then times student against solution, interleaved
// in this process, with the L2 flushed before every sample. Every sample counts bytes generated on
// the GPU from that round's seed (the all-equal case: one byte value the seed chooses) into
// poisoned bins; checked samples' bins are compared with the reference's, made afterwards, and
// the bytes with a checksum taken before the call.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab07_test_support.cuh"

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 28;  // 256 MiB, as CUB's baseline figures

using cudalabs::timing::round_seed;

class Performance : public cudalabs::GpuTest {};

// Fills `data` (n bytes) with a round's bytes.
using Generate = std::function<void(unsigned char* data, std::size_t n, std::uint64_t seed, cudaStream_t stream)>;

void random_bytes_on_device(unsigned char* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  cudalabs::fill_random_bytes(data, n, round_seed(seed, 0), stream);
}

void equal_bytes_on_device(unsigned char* data, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  CUDALABS_CHECK(cudaMemsetAsync(data, static_cast<int>(round_seed(seed, 0) & 0xFF), n, stream));
}

void time_histogram_shared(const char* case_name, const Generate& generate) {
  const std::size_t n = kTimedSize;
  cudalabs::DeviceBuffer<unsigned char> device_data(n);
  cudalabs::DeviceBuffer<unsigned int> bins(lab07::kBins);
  cudalabs::DeviceBuffer<unsigned int> expected(lab07::kBins);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate(device_data.data(), n, seed, stream);
    cudalabs::poison_async(bins.data(), bins.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::histogram_shared(device_data.data(), n, expected.data(), stream));
    return cudalabs::check_matches(expected.data(), bins.data(), lab07::kBins, "bins", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::histogram_shared(device_data.data(), n, bins.data(), stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::histogram_shared(device_data.data(), n, bins.data(), stream);
  };
  work.workload.sealed_inputs = {{device_data.data(), device_data.bytes(), "data"}};
  work.bytes = static_cast<double>(n);  // each byte read once; 1 KiB of counters is negligible
  cudalabs::run_performance_case(case_name, work);
}

TEST_F(Performance, shared_uniform_2to28) {
  time_histogram_shared("shared_uniform_2to28", &random_bytes_on_device);
}

// The contention case: every byte equal (a value the round's seed chooses), every update wants the
// same counter.
TEST_F(Performance, shared_all_equal_2to28) {
  time_histogram_shared("shared_all_equal_2to28", &equal_bytes_on_device);
}

}  // namespace
