// The runner protocol's argument codec (cudalabs/remote/judge.hpp encodes, runner.hpp decodes),
// host-only: values and streams round-trip, null pointers stay null, a request that does not fit
// the function is refused, and the judge refuses host memory a runner could not see. The calls
// themselves, through real runners on a GPU, are covered by every lab's grade (grader/tests/cli).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/remote/judge.hpp"
#include "cudalabs/remote/runner.hpp"
#include "cudalabs/remote/stream_words.hpp"

namespace {

using namespace cudalabs::remote;

// What the runner's table would call: records what it was given.
struct Seen {
  float alpha = 0;
  std::size_t n = 0;
  int rounds = 0;
  const float* in = nullptr;
  cudaStream_t stream = nullptr;
  const cudaStream_t* streams = nullptr;
};
Seen seen;

cudaError_t scaled(float alpha, const float* in, std::size_t n, int rounds, cudaStream_t stream) {
  seen = {alpha, n, rounds, in, stream, nullptr};
  return cudaErrorInvalidValue;
}

cudaError_t pipelined(const cudaStream_t* streams, int count) {
  seen.streams = streams;
  seen.rounds = count;
  return cudaSuccess;
}

std::size_t workspace_bytes(std::size_t n) { return 3 * n + 1; }

class FakeMemory final : public RunnerMemory {
 public:
  void* resolve(const Argument&) override { throw std::invalid_argument("no memory in this test"); }
  cudaStream_t stream() override { return reinterpret_cast<cudaStream_t>(0x5157); }
  const cudaStream_t* streams() override { return streams_; }
  cudaStream_t streams_[kRunnerStreams] = {};
};

TEST(RunnerProtocol, ValuesStreamsAndNullPointersRoundTrip) {
  ASSERT_FALSE(judge_mode()) << "this test binary is not a judge";
  detail::CallBuilder call = detail::begin_call("scaled");
  detail::add_argument(call, 1.75f);
  detail::add_argument(call, static_cast<const float*>(nullptr));
  detail::add_argument(call, std::size_t{1} << 40);
  detail::add_argument(call, -3);
  detail::add_argument(call, static_cast<cudaStream_t>(nullptr));
  FakeMemory memory;
  const std::uint64_t raw = serve<&scaled>(call.request, memory);
  EXPECT_EQ(seen.alpha, 1.75f);
  EXPECT_EQ(seen.in, nullptr);
  EXPECT_EQ(seen.n, std::size_t{1} << 40);
  EXPECT_EQ(seen.rounds, -3);
  EXPECT_EQ(seen.stream, memory.stream()) << "the runner's own stream replaces the judge's";
  EXPECT_EQ(static_cast<cudaError_t>(raw), cudaErrorInvalidValue);
  EXPECT_TRUE(call.outputs.empty());
}

TEST(RunnerProtocol, AStreamArrayIsTheRunnersAndANullOneStaysNull) {
  FakeMemory memory;
  const cudaStream_t judges[2] = {};
  detail::CallBuilder given = detail::begin_call("pipelined");
  detail::add_argument(given, static_cast<const cudaStream_t*>(judges));
  detail::add_argument(given, 2);
  serve<&pipelined>(given.request, memory);
  EXPECT_EQ(seen.streams, memory.streams());
  EXPECT_EQ(seen.rounds, 2);

  detail::CallBuilder null = detail::begin_call("pipelined");
  detail::add_argument(null, static_cast<const cudaStream_t*>(nullptr));
  detail::add_argument(null, 2);
  serve<&pipelined>(null.request, memory);
  EXPECT_EQ(seen.streams, nullptr) << "an invalid argument must reach the implementation, which must refuse it";
}

TEST(RunnerProtocol, AReturnedSizeComesBackWhole) {
  FakeMemory memory;
  detail::CallBuilder call = detail::begin_call("workspace_bytes");
  detail::add_argument(call, std::size_t{5000000000});
  EXPECT_EQ(serve<&workspace_bytes>(call.request, memory), 15000000001u);
}

TEST(RunnerProtocol, ARequestThatDoesNotFitTheFunctionIsRefused) {
  FakeMemory memory;
  detail::CallBuilder too_few = detail::begin_call("scaled");
  detail::add_argument(too_few, 1.0f);
  EXPECT_THROW(serve<&scaled>(too_few.request, memory), std::invalid_argument);

  detail::CallBuilder wrong_kind = detail::begin_call("scaled");
  detail::add_argument(wrong_kind, static_cast<cudaStream_t>(nullptr));  // a stream where a float goes
  detail::add_argument(wrong_kind, static_cast<const float*>(nullptr));
  detail::add_argument(wrong_kind, std::size_t{1});
  detail::add_argument(wrong_kind, 1);
  detail::add_argument(wrong_kind, static_cast<cudaStream_t>(nullptr));
  EXPECT_THROW(serve<&scaled>(wrong_kind.request, memory), std::invalid_argument);
}

TEST(RunnerProtocol, HostMemoryARunnerCannotSeeIsASuiteBug) {
  std::vector<float> pageable(16);
  detail::CallBuilder call = detail::begin_call("scaled");
  detail::add_argument(call, 1.0f);
  try {
    detail::add_argument(call, static_cast<const float*>(pageable.data()));
    FAIL() << "pageable host memory was accepted";
  } catch (const std::logic_error& error) {
    EXPECT_NE(std::string(error.what()).find("host memory a runner cannot see"), std::string::npos) << error.what();
  }
}

TEST(RunnerProtocol, OutsideAJudgeNoCallIsSent) {
  detail::CallBuilder call = detail::begin_call("scaled");
  EXPECT_THROW(detail::finish_call(Side::student, call), std::exception);
}

// A gated window's steps out of order are the engine's bug, said at once (nothing is sent, no
// runner is left holding its streams); with no window under way, giving one up or settling one is
// nothing. Outside a judge nothing is gated.
TEST(GatedWindow, StepsOutOfOrderAreRefusedAndNothingUnderWayIsNothing) {
  EXPECT_FALSE(gated_windows());
  EXPECT_THROW(static_cast<void>(end_gated_window_arming()), std::logic_error);
  EXPECT_THROW(open_gated_window(nullptr), std::logic_error);
  EXPECT_THROW(finish_gated_window(), std::logic_error);
  EXPECT_NO_THROW(abandon_gated_window());
  EXPECT_NO_THROW(settle_gated_window());
}

// The stream words are the driver's, found through the runtime: where there is no driver they
// fail with an error, never a crash or a link failure (CI machines have no GPU).
TEST(GatedWindow, StreamWordsFailCleanlyWithoutADriver) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    GTEST_SKIP() << "a CUDA device is present: the stream words work here (every gated grade uses them)";
  }
  static_cast<void>(cudaGetLastError());
  std::uint32_t word = 0;
  EXPECT_NE(wait_for_word(nullptr, &word, 1), cudaSuccess);
  EXPECT_NE(write_word(nullptr, &word, 1), cudaSuccess);
}

}  // namespace
