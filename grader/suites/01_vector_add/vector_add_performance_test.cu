// Lab 01 performance cases (config/labs/01_vector_add.yaml `performance:`). The engine first
// checks one untimed student call at the timed size (a wrong answer earns nothing), then times
// student against solution, interleaved in this process, with the L2 flushed before every sample.
// Every sample times eight calls back to back, each on arrays of its own generated on the GPU
// from the round's seed, with the output poisoned; every call's output is compared on the GPU
// with the reference's for the same inputs, made afterwards, and its inputs with checksums taken
// before the calls.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "lab01_test_support.cuh"

namespace {

using cudalabs::timing::round_seed;

constexpr std::size_t kTimedSize = std::size_t{1} << 26;
// Calls per timed sample, each on its own arrays (cudalabs/timing/interleaved.hpp,
// Workload::calls_per_sample), pipelined (Workload::pipelined_calls: back to back, not one host
// round trip each). A window carries a cost of its own (the GPU's switches between the judge's and
// a runner's context, the round trip less the ping subtracted) that differs by some microseconds
// from one runner process to another and stays with it; K calls a window divide it by K. Each
// round trip inside the window added 5-31 us a call, fixed for a runner process (calls timed
// 0.297-0.323 ms in grades, 0.292-0.293 ms alone in every process: bench/probes/ipc_replicas_probe.cu).
// Ten grades of the solution each on the H100 (2026-11-27), vector_add and saxpy ratios: one round
// trip a call 0.963-1.039 and 0.963-1.043; pipelined 0.990-1.026 and 0.991-1.023, on another H100
// 0.976-1.004 and 0.986-1.018 (on a third, 20 rounds instead of 10: 0.977-1.009 and 0.987-1.020;
// the bias stays with the process). Sixteen calls a window, on the last two: 0.988-1.014 and
// 0.985-1.015, at twice the cost a round; with six rounds instead of ten (the cost of eight calls'
// ten) 0.993-1.016 and 0.988-1.015: no better than eight calls, so not kept.
constexpr int kCallsPerSample = 8;

// kCallsPerSample sets of `count` arrays of kTimedSize floats.
std::vector<std::vector<cudalabs::DeviceBuffer<float>>> replica_arrays(int count) {
  std::vector<std::vector<cudalabs::DeviceBuffer<float>>> sets(kCallsPerSample);
  for (auto& set : sets) {
    for (int i = 0; i < count; ++i) set.emplace_back(kTimedSize);
  }
  return sets;
}

class Performance : public cudalabs::GpuTest {};

TEST_F(Performance, vector_add_2to26) {
  auto sets = replica_arrays(3);  // a, b, c
  int r = 0;                      // the replica the engine works on
  const auto a = [&] { return sets[r][0].data(); };
  const auto b = [&] { return sets[r][1].data(); };
  const auto c = [&] { return sets[r][2].data(); };
  cudalabs::DeviceBuffer<float> expected(kTimedSize);
  cudalabs::PerformanceWork work;
  work.workload.calls_per_sample = kCallsPerSample;
  work.workload.pipelined_calls = true;
  work.workload.use_replica = [&](int replica) { r = replica; };
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(a(), kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(b(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
    cudalabs::poison_async(c(), kTimedSize * sizeof(float), lab01::kPoisonByte, stream);
  };
  work.workload.student = [&](cudaStream_t stream) { return student::vector_add(a(), b(), c(), kTimedSize, stream); };
  work.workload.solution = [&](cudaStream_t stream) { solution::vector_add(a(), b(), c(), kTimedSize, stream); };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::vector_add(a(), b(), expected.data(), kTimedSize, stream));
    return cudalabs::check_against_reference(expected.data(), c(), kTimedSize, cudalabs::lab_tolerance("vector_add"),
                                             "c", stream);
  };
  for (auto& set : sets) {
    work.workload.sealed_inputs.push_back({set[0].data(), set[0].bytes(), "a"});
    work.workload.sealed_inputs.push_back({set[1].data(), set[1].bytes(), "b"});
  }
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // per call: read a and b, write c
  cudalabs::run_performance_case("vector_add_2to26", work);
}

TEST_F(Performance, saxpy_2to26) {
  const float alpha = 1.75f;
  auto sets = replica_arrays(2);  // x, y
  int r = 0;
  const auto x = [&] { return sets[r][0].data(); };
  const auto y = [&] { return sets[r][1].data(); };

  // saxpy works in place: every sample regenerates y, and the check computes the reference from
  // its own copy of the round's y.
  cudalabs::DeviceBuffer<float> expected(kTimedSize);
  cudalabs::PerformanceWork work;
  work.workload.calls_per_sample = kCallsPerSample;
  work.workload.pipelined_calls = true;
  work.workload.use_replica = [&](int replica) { r = replica; };
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(x(), kTimedSize, round_seed(seed, 0), -1.0f, 1.0f, stream);
    cudalabs::fill_uniform_floats(y(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
  };
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) -> std::string {
    cudalabs::fill_uniform_floats(expected.data(), kTimedSize, round_seed(seed, 1), -1.0f, 1.0f, stream);
    CUDALABS_CHECK(solution::saxpy(alpha, x(), expected.data(), kTimedSize, stream));
    return cudalabs::check_against_reference(expected.data(), y(), kTimedSize, cudalabs::lab_tolerance("saxpy"), "y",
                                             stream);
  };
  work.workload.student = [&](cudaStream_t stream) { return student::saxpy(alpha, x(), y(), kTimedSize, stream); };
  work.workload.solution = [&](cudaStream_t stream) { solution::saxpy(alpha, x(), y(), kTimedSize, stream); };
  for (auto& set : sets) work.workload.sealed_inputs.push_back({set[0].data(), set[0].bytes(), "x"});
  work.bytes = 3.0 * kTimedSize * sizeof(float);  // per call: read x and y, write y
  work.flops = 2.0 * kTimedSize;
  cudalabs::run_performance_case("saxpy_2to26", work);
}

}  // namespace
