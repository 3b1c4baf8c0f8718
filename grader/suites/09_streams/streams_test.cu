// Lab 09 hidden correctness suite: process_serial and process_pipelined against the CPU's
// transform, on pinned host arrays and device scratch with guard zones, waiting only for the
// streams each call was given (as its contract says the caller does): work queued anywhere else
// shows up as output not yet written.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/cuda_check.hpp"
#include "cudalabs/device_buffer.hpp"
#include "cudalabs/device_compare.hpp"
#include "cudalabs/device_generators.hpp"
#include "cudalabs/gpu_test.hpp"
#include "cudalabs/remote/judge.hpp"
#include "cudalabs/lab_settings.hpp"
#include "implementations.cuh"

namespace {

class Serial : public cudalabs::GpuTest {};
class Pipelined : public cudalabs::GpuTest {};

cudalabs::Tolerance tolerance() { return cudalabs::lab_tolerance("transform"); }

void check_serial(std::size_t n, int rounds, std::uint64_t seed, std::size_t offset = 0) {
  SCOPED_TRACE("process_serial of " + std::to_string(n) + " values, " + std::to_string(rounds) + " rounds, offset " +
               std::to_string(offset) + ", seed " + std::to_string(seed));
  const std::vector<float> values = lab09::make_values(n, seed);
  const lab09::PipelineRun run = lab09::run_serial(&student::process_serial, "process_serial", values, rounds, offset);
  lab09::expect_transformed(run, "process_serial", values, rounds, tolerance());
}

void check_pipelined(std::size_t n, int rounds, int stream_count, std::uint64_t seed, std::size_t offset = 0) {
  SCOPED_TRACE("process_pipelined of " + std::to_string(n) + " values, " + std::to_string(rounds) + " rounds, " +
               std::to_string(stream_count) + " streams, offset " + std::to_string(offset) + ", seed " +
               std::to_string(seed));
  const std::vector<float> values = lab09::make_values(n, seed);
  const lab09::PipelineRun run =
      lab09::run_pipelined(&student::process_pipelined, "process_pipelined", values, rounds, stream_count, offset);
  lab09::expect_transformed(run, "process_pipelined", values, rounds, tolerance());
}

// Sizes no chunking divides evenly: primes, one past and one short of powers of two, and a
// few million (several of any reasonable chunk, the last one partial).
const std::vector<std::size_t> kOddSizes{2, 3, 31, 127, 257, 1023, 4099, 65537, 1000003, (std::size_t{1} << 21) + 1,
                                         3000017};

// A call that must return without waiting for its work: a long one (the transform of 2^24
// values at the most rounds takes tens of milliseconds even on the fastest GPUs), after which at
// least one of its streams must still be busy.
template <class Call>
void expect_returns_before_done(const char* name, int stream_count, Call&& call) {
  const std::size_t n = std::size_t{1} << 24;
  const std::vector<float> values = lab09::make_values(n, 9090);
  lab09::GuardedHostArray host_in(values, 0), host_out(n, 0);
  cudalabs::DeviceBuffer<float> dev_in(n), dev_out(n);
  const lab09::StreamSet streams(stream_count);
  const std::string what = lab09::describe_call(name, n, student::kMaxRounds, stream_count);
  ASSERT_TRUE(cudalabs::returned_success(
      what, call(host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), n, streams), false));
  // In a grade the call ran in a runner process, which says whether its work still ran when it
  // returned (cudalabs/remote/judge.hpp); run in process, the streams say it.
  bool busy = cudalabs::remote::judge_mode() && cudalabs::remote::last_student_call_returned_while_busy();
  for (cudaStream_t stream : streams.all()) {
    const cudaError_t state = cudaStreamQuery(stream);
    if (state == cudaErrorNotReady) busy = true;
    else if (state != cudaSuccess) CUDALABS_CHECK(state);
  }
  ASSERT_TRUE(lab09::wait_for_streams(what, streams));
  EXPECT_TRUE(busy) << what << " returned only after all of its work had finished: queue the copies and the "
                    << "kernel and return at once (no cudaStreamSynchronize or cudaDeviceSynchronize inside); "
                    << "the caller synchronizes when it needs the result, and meanwhile the CPU can prepare the "
                    << "next batch";
  ASSERT_TRUE(cudalabs::finished_cleanly(what, lab09::kFaultHint));
  // The long call still computed the right thing (checked at a few places: the CPU transform of
  // all 2^24 values at 4096 rounds would take longer than the rest of the suite).
  for (std::size_t i : {std::size_t{0}, n / 3, n / 2 + 7, n - 1}) {
    EXPECT_EQ(host_out.data()[i], lab09::cpu_signed_square_root(values[i], student::kMaxRounds)) << what << " at " << i;
  }
}

// The largest size, 2^26 floats (256 MiB each way), made and checked on the GPU: the input
// generated there and copied to host_in, the expected output the reference transform's of it (itself
// checked against the CPU at a few thousand places), host_out compared on the device. `call`
// queues the function under test and returns its status; `streams` are the ones it was given.
template <class Call>
void check_largest(const char* name, const lab09::StreamSet& streams, Call&& call) {
  const std::size_t n = student::kMaxElements;
  const int rounds = 8;
  lab09::GuardedHostArray host_in(n, 0), host_out(n, 0);
  cudalabs::DeviceBuffer<float> dev_in(n), dev_out(n), input(n), expected(n), got(n);
  cudalabs::fill_uniform_floats(input.data(), n, 9400, lab09::kLow, lab09::kHigh);
  CUDALABS_CHECK(cudaMemcpy(host_in.data(), input.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  const std::string what = lab09::describe_call(name, n, rounds, streams.size());
  ASSERT_TRUE(cudalabs::returned_success(
      what, call(host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), n, rounds), false));
  ASSERT_TRUE(lab09::wait_for_streams(what, streams));
  CUDALABS_CHECK(cudaMemcpy(got.data(), host_out.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_TRUE(cudalabs::finished_cleanly(what, lab09::kFaultHint));

  // The reference, spot-checked on the CPU.
  CUDALABS_CHECK(solution::transform(input.data(), expected.data(), n, rounds, nullptr));
  CUDALABS_CHECK(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < n; i += n / 4099) {
    float reference = 0;
    CUDALABS_CHECK(cudaMemcpy(&reference, expected.data() + i, sizeof reference, cudaMemcpyDeviceToHost));
    ASSERT_EQ(reference, lab09::cpu_signed_square_root(host_in.data()[i], rounds))
        << "reference transform disagrees with the CPU at " << i << ": this is a grader bug";
  }
  EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats_on_device(expected.data(), got.data(), n, tolerance()),
                                "host_out[i] = transform(host_in[i])"))
      << what;
  EXPECT_TRUE(host_out.guards_intact(name, "host_out"));
  EXPECT_TRUE(host_in.guards_intact(name, "host_in"));
}

// Invalid arguments: cudaErrorInvalidValue and nothing written to host_out.
template <class Call>
void expect_rejected(const std::string& what, Call&& call) {
  const std::vector<float> sentinel{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
  lab09::GuardedHostArray in(sentinel, 0), out(sentinel, 0);
  cudalabs::GuardedArray<float> dev_in(5, 0), dev_out(5, 0);
  EXPECT_TRUE(lab09::rejected(what, call(in.data(), out.data(), dev_in.data(), dev_out.data())));
  CUDALABS_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(cudalabs::bit_identical(sentinel, out.values(), what, "host_out"));
}

// --- process_serial -------------------------------------------------------------------------------

TEST_F(Serial, ZeroSize) {
  const lab09::StreamSet streams(1);
  ASSERT_TRUE(cudalabs::call_and_wait(lab09::describe_call("process_serial", 0, 8, 0), true, [&] {
    return student::process_serial(nullptr, nullptr, nullptr, nullptr, 0, 8, streams[0]);
  }));
}

TEST_F(Serial, SizeOneAndTiny) {
  for (std::size_t n : {1, 2, 5, 32, 33, 255, 256, 257}) ASSERT_NO_FATAL_FAILURE(check_serial(n, 8, 9100 + n));
}

TEST_F(Serial, OddSizes) {
  for (std::size_t n : kOddSizes) ASSERT_NO_FATAL_FAILURE(check_serial(n, 8, 9200 + n));
}

// Arrays 1 to 3 floats into their allocations: not 16-byte aligned.
TEST_F(Serial, Misaligned) {
  for (std::size_t offset : {1, 2, 3}) ASSERT_NO_FATAL_FAILURE(check_serial(100003, 8, 9300 + offset, offset));
}

TEST_F(Serial, Largest) {
  const lab09::StreamSet streams(1);
  check_largest("process_serial", streams,
                [&](const float* in, float* out, float* d_in, float* d_out, std::size_t n, int rounds) {
                  return student::process_serial(in, out, d_in, d_out, n, rounds, streams[0]);
                });
}

TEST_F(Serial, InvalidArgumentsRejected) {
  const lab09::StreamSet streams(1);
  for (const auto& [n, rounds] : {std::pair<std::size_t, int>{student::kMaxElements + 1, 8}, {5, 0}, {5, -1},
                                  {5, student::kMaxRounds + 1}}) {
    expect_rejected(lab09::describe_call("process_serial", n, rounds, 0),
                    [&, n = n, rounds = rounds](const float* in, float* out, float* d_in, float* d_out) {
                      return student::process_serial(in, out, d_in, d_out, n, rounds, streams[0]);
                    });
  }
}

TEST_F(Serial, ReturnsWithoutWaiting) {
  expect_returns_before_done("process_serial", 1,
                             [](const float* in, float* out, float* d_in, float* d_out, std::size_t n,
                                const lab09::StreamSet& streams) {
                               return student::process_serial(in, out, d_in, d_out, n, student::kMaxRounds, streams[0]);
                             });
}

// --- process_pipelined --------------------------------------------------------------------------

TEST_F(Pipelined, ZeroSize) {
  const lab09::StreamSet streams(3);
  ASSERT_TRUE(cudalabs::call_and_wait(lab09::describe_call("process_pipelined", 0, 8, 3), true, [&] {
    return student::process_pipelined(nullptr, nullptr, nullptr, nullptr, 0, 8, streams.data(), 3);
  }));
}

TEST_F(Pipelined, SizeOneAndTiny) {
  for (std::size_t n : {1, 2, 5, 32, 33, 255, 256, 257}) ASSERT_NO_FATAL_FAILURE(check_pipelined(n, 8, 2, 9500 + n));
}

// Every odd size with 3 streams (chunks never divide evenly among them); with the other stream
// counts, the sizes up to a million (the few-million ones cost most of the CPU's reference time
// and add no new kind of chunk boundary).
TEST_F(Pipelined, OddSizesEveryStreamCount) {
  for (int streams : {1, 2, 3, 4, 7}) {
    for (std::size_t n : kOddSizes) {
      if (streams != 3 && n > 1100000) continue;
      ASSERT_NO_FATAL_FAILURE(check_pipelined(n, 8, streams, 9600 + n * 10 + streams));
    }
  }
}

// Fewer elements than streams: some streams get nothing (an empty chunk must not be launched).
TEST_F(Pipelined, FewerElementsThanStreams) {
  for (std::size_t n : {1, 3, 7}) ASSERT_NO_FATAL_FAILURE(check_pipelined(n, 8, 8, 9700 + n));
}

TEST_F(Pipelined, SixteenStreams) {
  ASSERT_NO_FATAL_FAILURE(check_pipelined(1000003, 8, student::kMaxStreams, 9750));
  ASSERT_NO_FATAL_FAILURE(check_pipelined(17, 8, student::kMaxStreams, 9751));
}

TEST_F(Pipelined, Misaligned) {
  for (std::size_t offset : {1, 2, 3}) ASSERT_NO_FATAL_FAILURE(check_pipelined(1000003, 8, 3, 9800 + offset, offset));
}

TEST_F(Pipelined, Largest) {
  const lab09::StreamSet streams(4);
  check_largest("process_pipelined", streams,
                [&](const float* in, float* out, float* d_in, float* d_out, std::size_t n, int rounds) {
                  return student::process_pipelined(in, out, d_in, d_out, n, rounds, streams.data(), 4);
                });
}

TEST_F(Pipelined, InvalidArgumentsRejected) {
  const lab09::StreamSet streams(student::kMaxStreams + 1);
  struct Case {
    std::size_t n;
    int rounds;
    const cudaStream_t* streams;
    int count;
  };
  const Case cases[] = {{student::kMaxElements + 1, 8, streams.data(), 2},
                        {5, 0, streams.data(), 2},
                        {5, student::kMaxRounds + 1, streams.data(), 2},
                        {5, 8, streams.data(), 0},
                        {5, 8, streams.data(), -3},
                        {5, 8, streams.data(), student::kMaxStreams + 1},
                        {5, 8, nullptr, 2}};
  for (const Case& c : cases) {
    std::string what = lab09::describe_call("process_pipelined", c.n, c.rounds, c.count);
    if (c.streams == nullptr) what += " with streams == nullptr";
    expect_rejected(what, [&](const float* in, float* out, float* d_in, float* d_out) {
      return student::process_pipelined(in, out, d_in, d_out, c.n, c.rounds, c.streams, c.count);
    });
  }
}

TEST_F(Pipelined, ReturnsWithoutWaiting) {
  expect_returns_before_done("process_pipelined", 4,
                             [](const float* in, float* out, float* d_in, float* d_out, std::size_t n,
                                const lab09::StreamSet& streams) {
                               return student::process_pipelined(in, out, d_in, d_out, n, student::kMaxRounds,
                                                                 streams.data(), streams.size());
                             });
}

// The same streams and arrays for several calls in a row, as a program processing batches does:
// each call's result must be complete when its streams are, and must not depend on the last.
TEST_F(Pipelined, StreamsReusedAcrossCalls) {
  const std::size_t n = 1500007;
  const lab09::StreamSet streams(3);
  lab09::GuardedHostArray host_in(n, 0), host_out(n, 0);
  cudalabs::GuardedArray<float> dev_in(n, 0), dev_out(n, 0);
  for (int call = 0; call < 3; ++call) {
    const int rounds = 4 + 4 * call;
    const std::vector<float> values = lab09::make_values(n, 9900 + static_cast<std::uint64_t>(call));
    std::copy(values.begin(), values.end(), host_in.data());
    const std::string what = lab09::describe_call("process_pipelined", n, rounds, 3) + ", call " +
                             std::to_string(call + 1) + " of 3 on the same streams and arrays";
    ASSERT_TRUE(cudalabs::returned_success(
        what, student::process_pipelined(host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), n, rounds,
                                         streams.data(), 3),
        false));
    ASSERT_TRUE(lab09::wait_for_streams(what, streams));
    EXPECT_TRUE(cudalabs::matches(
        cudalabs::compare_floats(lab09::cpu_transform(values, rounds), host_out.values(), tolerance()), what));
    ASSERT_TRUE(cudalabs::finished_cleanly(what, lab09::kFaultHint));
  }
  EXPECT_TRUE(host_out.guards_intact("process_pipelined", "host_out"));
}

}  // namespace
