// Lab 09 public self-check: small cases you can read, run and debug.
//   ./cudalabs check 09_streams
// The grader runs these too, plus hidden cases (sizes 0 and 1, primes and sizes that are not
// multiples of any chunk or block size, fewer elements than streams, 1 to 16 streams, arrays not
// 16-byte aligned, the largest size, invalid arguments, and whether your functions return without
// waiting), and times process_pipelined against the slowest of its stages; see README.md.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/gpu_test.hpp"
#include "cudalabs/lab_settings.hpp"
#include "lab09_test_support.cuh"

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

}  // namespace
