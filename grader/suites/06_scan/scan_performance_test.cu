// Lab 06 performance cases (config/labs/06_scan.yaml `performance:`). The engine first checks one
// untimed student call at the timed size (a wrong answer earns nothing), then times student
// against solution, interleaved in this process, with the L2 flushed before every sample.
// Each implementation gets its own workspace of the size it asked for, allocated once (as a
// caller that scans repeatedly would do), so the timed calls also show that reusing it works.
// Every sample scans values generated on the GPU from that round's seed into poisoned outputs;
// checked samples' outputs are compared on the GPU with the reference's, made afterwards, and the
// values with a checksum taken before the call.
#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_case.hpp"
#include "implementations.cuh"

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 26;

using cudalabs::timing::round_seed;

class Performance : public cudalabs::GpuTest {};

// A round's values, as lab06::random_ints makes them on the host.
void generate_values(int* data, std::uint64_t seed, cudaStream_t stream) {
  cudalabs::fill_uniform_ints(data, kTimedSize, round_seed(seed, 0), -1000, 1000, stream);
}

// The workspace an implementation asked for (null when it asked for none), garbage-filled once.
struct Workspace {
  explicit Workspace(std::size_t bytes) : bytes(bytes), buffer(bytes) {
    if (bytes != 0) buffer.fill_bytes(cudalabs::kPoisonByte);
  }
  void* data() { return buffer.data(); }
  std::size_t bytes;
  cudalabs::DeviceBuffer<unsigned char> buffer;
};

TEST_F(Performance, inclusive_scan_2to26) {
  cudalabs::DeviceBuffer<int> in(kTimedSize), out(kTimedSize);
  Workspace student_ws(student::scan_workspace_bytes(kTimedSize));
  Workspace solution_ws(solution::scan_workspace_bytes(kTimedSize));

  cudalabs::DeviceBuffer<int> expected(kTimedSize);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate_values(in.data(), seed, stream);
    cudalabs::poison_async(out.data(), out.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::inclusive_scan(in.data(), expected.data(), kTimedSize, solution_ws.data(),
                                            solution_ws.bytes, stream));
    return cudalabs::check_matches(expected.data(), out.data(), kTimedSize, "out", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::inclusive_scan(in.data(), out.data(), kTimedSize, student_ws.data(), student_ws.bytes, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::inclusive_scan(in.data(), out.data(), kTimedSize, solution_ws.data(), solution_ws.bytes, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "in"}};
  work.bytes = 2.0 * kTimedSize * sizeof(int);  // read in, write out: the least any scan moves
  cudalabs::run_performance_case("inclusive_scan_2to26", work);
}

TEST_F(Performance, compact_2to26) {
  // Values in [-1000, 1000], keep those > 0: about half, in no pattern a branch could predict.
  constexpr int kThreshold = 0;
  cudalabs::DeviceBuffer<int> in(kTimedSize), out(kTimedSize), count(1);
  Workspace student_ws(student::compact_workspace_bytes(kTimedSize));
  Workspace solution_ws(solution::compact_workspace_bytes(kTimedSize));

  cudalabs::DeviceBuffer<int> expected(kTimedSize), expected_count(1);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate_values(in.data(), seed, stream);
    cudalabs::poison_async(out.data(), out.bytes(), cudalabs::kPoisonByte, stream);
    cudalabs::poison_async(count.data(), count.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::compact(in.data(), expected.data(), expected_count.data(), kTimedSize, kThreshold,
                                     solution_ws.data(), solution_ws.bytes, stream));
    CUDALABS_CHECK(cudaStreamSynchronize(stream));
    const int expected_kept = expected_count.copy_to_host().front(), kept = count.copy_to_host().front();
    if (kept != expected_kept) {
      return "*count is " + std::to_string(kept) + ", the reference's " + std::to_string(expected_kept);
    }
    return cudalabs::check_matches(expected.data(), out.data(), static_cast<std::size_t>(expected_kept),
                                   "out[0 .. count)", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::compact(in.data(), out.data(), count.data(), kTimedSize, kThreshold, student_ws.data(),
                            student_ws.bytes, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::compact(in.data(), out.data(), count.data(), kTimedSize, kThreshold, solution_ws.data(),
                      solution_ws.bytes, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "in"}};
  // Read in, write the kept elements (1000 of the 2001 values in [-1000, 1000]) and the count.
  work.bytes = (kTimedSize * (1.0 + 1000.0 / 2001.0) + 1.0) * sizeof(int);
  cudalabs::run_performance_case("compact_2to26", work);
}

}  // namespace
