// Lab 11 performance cases (config/labs/11_sort.yaml `performance:`). The engine first checks one
// untimed student call at the timed size (a wrong answer earns nothing), then times student
// against solution, interleaved in this process, with the L2 flushed before every sample.
// Each radix sort gets its own workspace of the size it asked for, allocated once (as a caller
// that sorts repeatedly would do), so the timed calls also show that reusing it works.
// Every sample sorts keys (and values) generated on the GPU from that round's seed into poisoned
// outputs; every timed output is compared on the GPU with the reference's for the same inputs,
// made afterwards (the reference is stable, so for pairs this checks stability too), and the
// inputs with a checksum taken before the call.
#include <cstddef>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/performance_case.hpp"
#include "device_patterns.cuh"
#include "implementations.cuh"

namespace {

constexpr std::size_t kTimedSize = std::size_t{1} << 26;
// The block sort is timed on the largest segments, the case a shared-memory network is for.
constexpr unsigned kTimedSegment = 2048;

using cudalabs::timing::round_seed;

class Performance : public cudalabs::GpuTest {};

// The workspace an implementation asked for (null when it asked for none), garbage-filled once.
struct Workspace {
  explicit Workspace(std::size_t bytes) : bytes(bytes), buffer(bytes) {
    if (bytes != 0) buffer.fill_bytes(cudalabs::kPoisonByte);
  }
  void* data() { return bytes == 0 ? nullptr : buffer.data(); }
  std::size_t bytes;
  cudalabs::DeviceBuffer<unsigned char> buffer;
};

// A round's keys: 32 random bits each, as lab11::make_keys(Pattern::Uniform, ...) makes them.
void generate_keys(std::uint32_t* keys, std::uint64_t seed, cudaStream_t stream) {
  lab11::fill_keys(keys, kTimedSize, lab11::Pattern::Uniform, round_seed(seed, 0), stream);
}

TEST_F(Performance, block_sort_2to26) {
  cudalabs::DeviceBuffer<std::uint32_t> in(kTimedSize), out(kTimedSize), expected(kTimedSize);
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate_keys(in.data(), seed, stream);
    cudalabs::poison_async(out.data(), out.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::block_sort(in.data(), expected.data(), kTimedSize, kTimedSegment, stream));
    return cudalabs::check_matches(expected.data(), out.data(), kTimedSize, "out", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::block_sort(in.data(), out.data(), kTimedSize, kTimedSegment, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::block_sort(in.data(), out.data(), kTimedSize, kTimedSegment, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "in"}};
  work.bytes = 2.0 * kTimedSize * sizeof(std::uint32_t);  // read the keys, write them: the least a sort moves
  cudalabs::run_performance_case("block_sort_2to26", work);
}

TEST_F(Performance, radix_sort_keys_2to26) {
  cudalabs::DeviceBuffer<std::uint32_t> in(kTimedSize), out(kTimedSize), expected(kTimedSize);
  Workspace student_ws(student::radix_sort_keys_workspace_bytes(kTimedSize));
  Workspace solution_ws(solution::radix_sort_keys_workspace_bytes(kTimedSize));
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate_keys(in.data(), seed, stream);
    cudalabs::poison_async(out.data(), out.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::radix_sort_keys(in.data(), expected.data(), kTimedSize, solution_ws.data(),
                                             solution_ws.bytes, stream));
    return cudalabs::check_matches(expected.data(), out.data(), kTimedSize, "keys_out", stream);
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::radix_sort_keys(in.data(), out.data(), kTimedSize, student_ws.data(), student_ws.bytes, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::radix_sort_keys(in.data(), out.data(), kTimedSize, solution_ws.data(), solution_ws.bytes, stream);
  };
  work.workload.sealed_inputs = {{in.data(), in.bytes(), "keys_in"}};
  work.bytes = 2.0 * kTimedSize * sizeof(std::uint32_t);
  cudalabs::run_performance_case("radix_sort_keys_2to26", work);
}

TEST_F(Performance, radix_sort_pairs_2to26) {
  cudalabs::DeviceBuffer<std::uint32_t> keys(kTimedSize), values(kTimedSize), keys_out(kTimedSize),
      values_out(kTimedSize), expected_keys(kTimedSize), expected_values(kTimedSize);
  Workspace student_ws(student::radix_sort_pairs_workspace_bytes(kTimedSize));
  Workspace solution_ws(solution::radix_sort_pairs_workspace_bytes(kTimedSize));
  cudalabs::PerformanceWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) {
    generate_keys(keys.data(), seed, stream);
    lab11::fill_values(values.data(), kTimedSize, round_seed(seed, 1), stream);
    cudalabs::poison_async(keys_out.data(), keys_out.bytes(), cudalabs::kPoisonByte, stream);
    cudalabs::poison_async(values_out.data(), values_out.bytes(), cudalabs::kPoisonByte, stream);
  };
  work.workload.verify = [&](std::uint64_t, cudaStream_t stream) -> std::string {
    CUDALABS_CHECK(solution::radix_sort_pairs(keys.data(), expected_keys.data(), values.data(),
                                              expected_values.data(), kTimedSize, solution_ws.data(),
                                              solution_ws.bytes, stream));
    std::string wrong = cudalabs::check_matches(expected_keys.data(), keys_out.data(), kTimedSize, "keys_out", stream);
    if (!wrong.empty()) return wrong;
    wrong = cudalabs::check_matches(expected_values.data(), values_out.data(), kTimedSize, "values_out", stream);
    if (!wrong.empty()) wrong += " (keys_out is right: is every pass stable?)";
    return wrong;
  };
  work.workload.student = [&](cudaStream_t stream) {
    return student::radix_sort_pairs(keys.data(), keys_out.data(), values.data(), values_out.data(), kTimedSize,
                                     student_ws.data(), student_ws.bytes, stream);
  };
  work.workload.solution = [&](cudaStream_t stream) {
    solution::radix_sort_pairs(keys.data(), keys_out.data(), values.data(), values_out.data(), kTimedSize,
                               solution_ws.data(), solution_ws.bytes, stream);
  };
  work.workload.sealed_inputs = {{keys.data(), keys.bytes(), "keys_in"}, {values.data(), values.bytes(), "values_in"}};
  work.bytes = 4.0 * kTimedSize * sizeof(std::uint32_t);  // keys and values, each read and written once
  cudalabs::run_performance_case("radix_sort_pairs_2to26", work);
}

}  // namespace
