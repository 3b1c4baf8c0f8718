// Lab 07 performance cases (config/labs/07_histogram.yaml `performance:`): histogram_shared on
// 2^28 bytes, uniformly random and all equal. Each first checks the student's result at the
// timed size (a wrong answer earns nothing), then times student against solution, interleaved in
// this process, with the L2 flushed before every sample.
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab07_test_support.cuh"

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 28;  // 256 MiB, as CUB's baseline figures

class Performance : public cudalabs::GpuTest {};

void time_histogram_shared(const char* case_name, const std::vector<unsigned char>& data) {
  const std::size_t n = data.size();
  cudalabs::DeviceBuffer<unsigned char> device_data(data);
  cudalabs::DeviceBuffer<unsigned int> bins(lab07::kBins);
  bins.fill_bytes(cudalabs::kPoisonByte);
  ASSERT_TRUE(lab07::call_and_wait("histogram_shared", n, [&] {
    return student::histogram_shared(device_data.data(), n, bins.data(), nullptr);
  }));
  ASSERT_TRUE(lab07::bins_match(lab07::cpu_histogram(data), bins.copy_to_host(), "bins"))
      << "a wrong result is not timed";

  // The bins are overwritten by every call, so no input needs restoring between samples.
  cudalabs::PerformanceWork work;
  work.workload.student = [&](cudaStream_t stream) {
    student::histogram_shared(device_data.data(), n, bins.data(), stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::histogram_shared(device_data.data(), n, bins.data(), stream);
  };
  work.bytes = static_cast<double>(n);  // each byte read once; 1 KiB of counters is negligible
  cudalabs::run_performance_case(case_name, work);
}

TEST_F(Performance, shared_uniform_2to28) {
  time_histogram_shared("shared_uniform_2to28", lab07::random_bytes(kTimedSize, 7901));
}

// The contention case: every byte 0x5A, every update wants the same counter.
TEST_F(Performance, shared_all_equal_2to28) {
  time_histogram_shared("shared_all_equal_2to28", lab07::all_equal_bytes(kTimedSize, 0x5A));
}

}  // namespace
