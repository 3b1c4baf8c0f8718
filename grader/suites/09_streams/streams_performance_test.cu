// Lab 09 performance cases (config/labs/09_streams.yaml `performance:`), on 2^25 floats
// (128 MiB each way) in pinned host memory, with `rounds` chosen in this run so that the
// transform alone takes 1.25x as long as the copy in alone (labs/09_streams/pipeline_rounds.cuh).
//
//  - pipelined_2to25_4streams: process_pipelined over 4 streams, end to end (the timed region
//    forks to the 4 streams and joins them: cudalabs::timing::Workload::side_streams), against
//    the slowest of its stages, each run alone over the whole array with the reference's code
//    (one cudaMemcpyAsync in, the transform, one cudaMemcpyAsync out), and the two copies at once
//    (a pipeline runs them together: where this host's link slows one direction while the other
//    runs, that, not the transform, bounds the pipeline).
//  - serial_2to25: process_serial on one stream against the reference's process_serial.
//
// Every timed sample runs on an input generated on the GPU from that round's seed and copied into
// host_in, with host_out poisoned; the timed student calls' outputs are checked against the
// reference transform of the same input, generated again from the seed (so a call that changes
// host_in gains nothing: the check does not read it).
#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_checks.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"
#include "pipeline_rounds.cuh"

namespace {

class Performance : public cudalabs::GpuTest {};

constexpr std::size_t kTimedElements = std::size_t{1} << 25;
constexpr int kTimedStreams = 4;

// The arrays of a timed case, and what prepare and verify need.
struct TimedArrays {
  std::size_t n;
  std::size_t bytes;
  cudalabs::PinnedHostBuffer<float> host_in, host_out;
  cudalabs::DeviceBuffer<float> dev_in, dev_out;  // the call's scratch
  cudalabs::DeviceBuffer<float> input, poison, expected, got;

  explicit TimedArrays(std::size_t count)
      : n(count), bytes(count * sizeof(float)), host_in(count), host_out(count), dev_in(count), dev_out(count),
        input(count), poison(count), expected(count), got(count) {
    poison.fill_bytes(cudalabs::kPoisonByte);
  }

  // A round's input into host_in (through the GPU's generator) and poison into host_out.
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(input.data(), n, seed, lab09::kLow, lab09::kHigh, stream);
    CUDALABS_CHECK(cudaMemcpyAsync(host_in.data(), input.data(), bytes, cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaMemcpyAsync(host_out.data(), poison.data(), bytes, cudaMemcpyDeviceToHost, stream));
  }

  // host_out against the reference transform of the round's input, made again from its seed.
  std::string verify(std::uint64_t seed, int rounds, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(input.data(), n, seed, lab09::kLow, lab09::kHigh, stream);
    CUDALABS_CHECK(solution::transform(input.data(), expected.data(), n, rounds, stream));
    CUDALABS_CHECK(cudaMemcpyAsync(got.data(), host_out.data(), bytes, cudaMemcpyHostToDevice, stream));
    return cudalabs::check_against_reference(expected.data(), got.data(), n, cudalabs::lab_tolerance("transform"),
                                             "host_out", stream);
  }
};

int calibrated_rounds(TimedArrays& arrays) {
  return lab09::rounds_for_kernel_share(&solution::transform, solution::kMaxRounds, arrays.host_in.data(),
                                        arrays.dev_in.data(), arrays.dev_out.data(), arrays.n);
}

TEST_F(Performance, pipelined_2to25_4streams) {
  TimedArrays arrays(kTimedElements);
  const lab09::StreamSet streams(kTimedStreams);
  const int rounds = calibrated_rounds(arrays);
  std::cout << "[ rounds   ] " << rounds << " (the transform alone ~1.25x the copy in alone on this GPU)\n";

  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) { arrays.prepare(seed, stream); };
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) { return arrays.verify(seed, rounds, stream); };
  work.workload.student = [&](cudaStream_t) {
    return student::process_pipelined(arrays.host_in.data(), arrays.host_out.data(), arrays.dev_in.data(),
                                      arrays.dev_out.data(), arrays.n, rounds, streams.data(), kTimedStreams);
  };
  work.workload.side_streams = streams.all();
  // The stages alone run before the timed calls, so one of the call's streams can carry the
  // copy out of "both copies at once".
  lab09::CopiesBothWays both_copies(arrays.dev_in.data(), arrays.host_in.data(), arrays.host_out.data(),
                                          arrays.dev_out.data(), arrays.bytes, streams[1]);
  work.stages = lab09::pipeline_stages(arrays.dev_in.data(), arrays.host_in.data(), arrays.host_out.data(),
                                        arrays.dev_out.data(), arrays.n, rounds, &solution::transform, both_copies);
  cudalabs::run_performance_case("pipelined_2to25_4streams", work);
}

TEST_F(Performance, serial_2to25) {
  TimedArrays arrays(kTimedElements);
  const lab09::StreamSet streams(1);
  const int rounds = calibrated_rounds(arrays);

  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) { arrays.prepare(seed, stream); };
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t stream) { return arrays.verify(seed, rounds, stream); };
  work.workload.student = [&](cudaStream_t) {
    return student::process_serial(arrays.host_in.data(), arrays.host_out.data(), arrays.dev_in.data(),
                                   arrays.dev_out.data(), arrays.n, rounds, streams[0]);
  };
  work.workload.solution = [&](cudaStream_t) {
    CUDALABS_CHECK(solution::process_serial(arrays.host_in.data(), arrays.host_out.data(), arrays.dev_in.data(),
                                            arrays.dev_out.data(), arrays.n, rounds, streams[0]));
  };
  work.workload.side_streams = streams.all();
  cudalabs::run_performance_case("serial_2to25", work);
}

}  // namespace
