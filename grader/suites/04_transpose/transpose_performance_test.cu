// Lab 04 performance cases (config/labs/04_transpose.yaml `performance:`). The engine first checks
// one untimed student call at the timed size (a wrong answer earns nothing), then times the
// student's function against the reference's function of the same step, interleaved in this
// process, with the L2 flushed before every sample. A transpose moves rows * cols floats in and out:
// 2 * 4 * rows * cols bytes, against which GB/s and the fraction of copy bandwidth are computed.
// Every sample transposes a matrix generated on the GPU from that round's seed into a poisoned
// output; checked samples' outputs are compared on the GPU with the reference's, made afterwards,
// and the input with a checksum taken before the call.
#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"

namespace {

using cudalabs::timing::round_seed;

class Performance : public cudalabs::GpuTest {};

void time_transpose(const char* case_name, const lab04::Implementation& impl, std::size_t rows, std::size_t cols) {
  const std::size_t n = rows * cols;
  cudalabs::DeviceBuffer<float> din(n), dout(n);
  cudalabs::DeviceBuffer<float> expected(n);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t round, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(din.data(), n, round_seed(round, 0), -1.0f, 1.0f, stream);
    cudalabs::poison_async(dout.data(), dout.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(impl.solution(din.data(), expected.data(), rows, cols, stream));
    return cudalabs::check_against_reference(expected.data(), dout.data(), n, cudalabs::lab_tolerance("transpose"),
                                             "the transposed matrix", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return impl.student(din.data(), dout.data(), rows, cols, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) { impl.solution(din.data(), dout.data(), rows, cols, stream); };
  work.workload.sealed_inputs = {{din.data(), din.bytes(), "the input matrix"}};
  work.bytes = 2.0 * static_cast<double>(n) * sizeof(float);  // read in, write out
  cudalabs::run_performance_case(case_name, work);
}

// Each step is timed against the reference's version of the same step.
TEST_F(Performance, naive_8192) { time_transpose("naive_8192", lab04::kNaive, 8192, 8192); }

TEST_F(Performance, coalesced_8192) { time_transpose("coalesced_8192", lab04::kCoalesced, 8192, 8192); }

TEST_F(Performance, conflict_free_8192) {
  time_transpose("conflict_free_8192", lab04::kConflictFree, 8192, 8192);
}

// Rectangular: 16384 rows of 4096 floats become 4096 rows of 16384.
TEST_F(Performance, conflict_free_16384x4096) {
  time_transpose("conflict_free_16384x4096", lab04::kConflictFree, 16384, 4096);
}

}  // namespace
