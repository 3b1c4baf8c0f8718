// Lab 09 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 09_streams
// The grader runs these too, plus hidden cases (sizes 0 and 1, primes and sizes that are not
// multiples of any chunk or block size, fewer elements than streams, 1 to 16 streams, arrays not
// 16-byte aligned, the largest size, invalid arguments, and whether your functions return without
// waiting), and times process_pipelined against the slowest of its stages; see README.md.
// Preview.pipelined_4streams times your process_pipelined over 4 streams at the graded 2^25
// floats against the slowest of its stages alone (cudaMemcpyAsync in, your transform,
// cudaMemcpyAsync out, both copies at once), with the graded case's threshold: a preview of it,
// worth no points (see "What fast means here" in README.md).
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"
#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/generator_elements.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_checks.hpp"
#include "cudalabs/lab_settings.hpp"
#include "cudalabs/performance_preview.hpp"
#include "cudalabs/timing/interleaved.hpp"
#include "lab09_test_support.cuh"
#include "pipeline_rounds.cuh"

// The build defines LAB_IMPL only for the student library; here we choose the namespace.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "streams.cuh"
#undef LAB_IMPL

namespace {

class SelfCheck : public cudalabs::GpuTest {};

cudalabs::Tolerance tolerance() { return cudalabs::lab_tolerance("transform"); }

void check_serial(std::size_t n, int rounds, std::uint64_t seed) {
  SCOPED_TRACE("process_serial of " + std::to_string(n) + " values, " + std::to_string(rounds) + " rounds, seed " +
               std::to_string(seed));
  const std::vector<float> values = lab09::make_values(n, seed);
  const lab09::PipelineRun run = lab09::run_serial(&student::process_serial, "process_serial", values, rounds);
  lab09::expect_transformed(run, "process_serial", values, rounds, tolerance());
}

void check_pipelined(std::size_t n, int rounds, int stream_count, std::uint64_t seed) {
  SCOPED_TRACE("process_pipelined of " + std::to_string(n) + " values, " + std::to_string(rounds) + " rounds, " +
               std::to_string(stream_count) + " streams, seed " + std::to_string(seed));
  const std::vector<float> values = lab09::make_values(n, seed);
  const lab09::PipelineRun run =
      lab09::run_pipelined(&student::process_pipelined, "process_pipelined", values, rounds, stream_count);
  lab09::expect_transformed(run, "process_pipelined", values, rounds, tolerance());
}

// 1000 values, and 37: less than one block of threads.
TEST_F(SelfCheck, SerialSmall) {
  ASSERT_NO_FATAL_FAILURE(check_serial(1000, 8, 901));
  ASSERT_NO_FATAL_FAILURE(check_serial(37, 16, 902));
}

// 2^20 + 3 values (4 MiB and a bit).
TEST_F(SelfCheck, SerialMillion) { check_serial((std::size_t{1} << 20) + 3, 8, 903); }

// 1000 values over 2 streams, and 37 over 3.
TEST_F(SelfCheck, PipelinedSmall) {
  ASSERT_NO_FATAL_FAILURE(check_pipelined(1000, 8, 2, 904));
  ASSERT_NO_FATAL_FAILURE(check_pipelined(37, 16, 3, 905));
}

// 2^22 + 5 values (16 MiB and a bit) over 4 streams: several chunks, the last one shorter.
TEST_F(SelfCheck, PipelinedMillions) { check_pipelined((std::size_t{1} << 22) + 5, 8, 4, 906); }

// n == 0: success with null pointers and with real ones, host_out untouched.
TEST_F(SelfCheck, EmptyInputs) {
  const lab09::StreamSet streams(2);
  ASSERT_TRUE(cudalabs::call_and_wait(lab09::describe_call("process_serial", 0, 8, 0), true, [&] {
    return student::process_serial(nullptr, nullptr, nullptr, nullptr, 0, 8, streams[0]);
  }));
  ASSERT_TRUE(cudalabs::call_and_wait(lab09::describe_call("process_pipelined", 0, 8, 2), true, [&] {
    return student::process_pipelined(nullptr, nullptr, nullptr, nullptr, 0, 8, streams.data(), 2);
  }));
  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  lab09::GuardedHostArray in(sentinel, 0), out(sentinel, 0);
  cudalabs::GuardedArray<float> dev_in(5, 0), dev_out(5, 0);
  ASSERT_TRUE(cudalabs::call_and_wait(lab09::describe_call("process_pipelined", 0, 8, 2), true, [&] {
    return student::process_pipelined(in.data(), out.data(), dev_in.data(), dev_out.data(), 0, 8, streams.data(), 2);
  }));
  EXPECT_TRUE(cudalabs::bit_identical(sentinel, out.values(), "process_pipelined with n = 0", "host_out"));
}

// --- Timing preview (no points) ---------------------------------------------------------------
// process_pipelined over 4 streams at the graded size, 2^25 floats (128 MiB each way) in pinned
// memory, with the grade's checks (cudalabs/performance_preview.hpp), against the slowest of its
// stages, each run alone over the whole array as the grade runs them; only the transform is
// yours here, not the reference's (yours is given complete: the same kernel). `rounds` is picked
// on your GPU, with your transform, so that the transform alone takes 1.25x the copy in
// (pipeline_rounds.cuh). Every sample has a new input, made on the GPU from the sample's seed and
// copied into host_in, and host_out poisoned; host_out is then spot-checked on the CPU (all 2^25
// would take too long a sample): its first and last elements and 4096 others drawn from the seed,
// against the transform of the inputs made again from the seed (host_in is not read, so a call
// that changed it gains nothing).

class Preview : public cudalabs::GpuTest {};

constexpr std::size_t kPreviewElements = std::size_t{1} << 25;
constexpr int kPreviewStreams = 4;
constexpr int kCheckedElements = 4096;

// The preview's arrays, as the graded case has them, and what prepare and verify need.
struct PreviewArrays {
  std::size_t n;
  std::size_t bytes;
  cudalabs::PinnedHostBuffer<float> host_in, host_out;
  cudalabs::DeviceBuffer<float> dev_in, dev_out;  // the call's scratch
  cudalabs::DeviceBuffer<float> input, poison;    // a round's input on its way to host_in; host_out's poison

  explicit PreviewArrays(std::size_t count)
      : n(count), bytes(count * sizeof(float)), host_in(count), host_out(count), dev_in(count), dev_out(count),
        input(count), poison(count) {
    poison.fill_bytes(cudalabs::kPoisonByte);
  }

  // A round's input into host_in (made on the GPU: the host would take too long) and poison into
  // host_out, in stream order before the call.
  void prepare(std::uint64_t seed, cudaStream_t stream) {
    cudalabs::fill_uniform_floats(input.data(), n, seed, lab09::kLow, lab09::kHigh, stream);
    CUDALABS_CHECK(cudaMemcpyAsync(host_in.data(), input.data(), bytes, cudaMemcpyDeviceToHost, stream));
    CUDALABS_CHECK(cudaMemcpyAsync(host_out.data(), poison.data(), bytes, cudaMemcpyDeviceToHost, stream));
  }

  // "" when host_out holds the transform at the first and last elements and kCheckedElements
  // others drawn from the seed; element i's input is made again from (seed, i), as prepare's
  // generator made it.
  std::string spot_check(std::uint64_t seed, int rounds) const {
    CUDALABS_CHECK(cudaDeviceSynchronize());  // host_out is read by the host: every copy must be done
    const cudalabs::element::FloatRange range =
        cudalabs::element::float_range(lab09::kLow, lab09::kHigh, "Preview.pipelined_4streams");
    std::vector<std::size_t> indices{0, n - 1};
    for (int k = 0; k < kCheckedElements; ++k) {
      indices.push_back(static_cast<std::size_t>(cudalabs::timing::round_seed(seed, 100 + k) % n));
    }
    std::vector<float> expected, actual;
    expected.reserve(indices.size());
    actual.reserve(indices.size());
    for (std::size_t i : indices) {
      expected.push_back(lab09::cpu_signed_square_root(cudalabs::element::uniform_float(range, seed, i), rounds));
      actual.push_back(host_out[i]);
    }
    const cudalabs::CompareReport report = cudalabs::compare_floats(expected, actual, tolerance());
    if (report.ok()) return "";
    std::string where = " (checked elements, in order:";
    for (std::size_t k = 0; k < indices.size() && k < 8; ++k) where += " " + std::to_string(indices[k]);
    return report.to_string("process_pipelined of 2^25 values over 4 streams: host_out at sampled elements") +
           where + " ...)";
  }
};

TEST_F(Preview, pipelined_4streams) {
  PreviewArrays arrays(kPreviewElements);
  const lab09::StreamSet streams(kPreviewStreams);
  // Calibrated with your transform: the self-check has no other. It is given complete; should it
  // say it is not (cudaErrorNotYetImplemented), nothing can be timed.
  int rounds = 0;
  try {
    rounds = lab09::rounds_for_kernel_share(&student::transform, student::kMaxRounds, arrays.host_in.data(),
                                            arrays.dev_in.data(), arrays.dev_out.data(), arrays.n);
  } catch (const cudalabs::CudaError& error) {
    if (error.code() != cudaErrorNotYetImplemented) throw;
    GTEST_SKIP() << "not timed: transform returned cudaErrorNotYetImplemented while rounds were calibrated (a "
                    "TODO(student) left in transform, which streams.cu gives complete)";
  }
  std::cout << "[ rounds   ] " << rounds << " (your transform alone ~1.25x the copy in alone on this GPU)\n";

  cudalabs::PreviewWork work;
  work.workload.prepare = [&](std::uint64_t seed, cudaStream_t stream) { arrays.prepare(seed, stream); };
  work.workload.verify = [&](std::uint64_t seed, cudaStream_t) { return arrays.spot_check(seed, rounds); };
  work.workload.student = [&](cudaStream_t) {
    return student::process_pipelined(arrays.host_in.data(), arrays.host_out.data(), arrays.dev_in.data(),
                                      arrays.dev_out.data(), arrays.n, rounds, streams.data(), kPreviewStreams);
  };
  work.workload.side_streams = streams.all();
  // The stages alone run before the timed calls, so one of the call's streams can carry the copy
  // out of "both copies at once".
  lab09::CopiesBothWays both_copies(arrays.dev_in.data(), arrays.host_in.data(), arrays.host_out.data(),
                                    arrays.dev_out.data(), arrays.bytes, streams[1]);
  work.stages = lab09::pipeline_stages(arrays.dev_in.data(), arrays.host_in.data(), arrays.host_out.data(),
                                        arrays.dev_out.data(), arrays.n, rounds, &student::transform, both_copies);
  cudalabs::run_performance_preview("pipelined_4streams", work);
}

}  // namespace
