// A judge whose reference runs in process (labgrade sets CUDALABS_REFERENCE_IN_JUDGE for runs that
// time nothing: a batch's first parts, sanitizer runs) must refuse to time: a ratio needs both
// sides timed in runners alike. Host-only, in a binary of its own, since registering as a judge
// lasts for the process. The order is the one a harness sees: the variable is set before main,
// something may ask before the judge registers (static initialisation), and the answer must
// still be yes once it has.
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudalabs/remote/judge.hpp"
#include "cudalabs/result_stream.hpp"

namespace cudalabs::remote::detail {
void register_judge(const char* lab_id);  // what a grade harness's thunks call before main
}

namespace {

using namespace cudalabs::remote;

TEST(JudgeMode, AReferenceInTheJudgeIsAskedAfterRegistrationAndRefusesToTime) {
  ASSERT_EQ(::setenv(cudalabs::kReferenceInJudgeVariable, "1", 1), 0);
  EXPECT_FALSE(judge_mode());
  EXPECT_FALSE(reference_in_judge()) << "not a judge yet";
  EXPECT_FALSE(solution_runs_in_judge());

  detail::register_judge("01_vector_add");
  ASSERT_TRUE(judge_mode());
  EXPECT_TRUE(reference_in_judge()) << "an answer given before registration must not stick";
  EXPECT_TRUE(solution_runs_in_judge());
  try {
    TimingPin pin;
    FAIL() << "TimingPin timed in a judge whose reference runs in process";
  } catch (const std::logic_error& refused) {
    EXPECT_NE(std::string(refused.what()).find(cudalabs::kReferenceInJudgeVariable), std::string::npos)
        << refused.what();
  }
}

// A judge that times nothing narrows its own CUDA queues (kJudgeCudaQueuesVariable) and nobody
// else's: not a timed judge's, not over an operator's own CUDA_DEVICE_MAX_CONNECTIONS, never with
// a value CUDA would not take; and the runners it starts get the environment without it.
TEST(JudgeMode, OnlyAnUntimedJudgeNarrowsItsOwnCudaQueues) {
  EXPECT_EQ(cuda_queues_to_set("1", nullptr, true), "1");
  EXPECT_EQ(cuda_queues_to_set("32", nullptr, true), "32");
  EXPECT_EQ(cuda_queues_to_set("1", nullptr, false), "") << "a judge that times must keep the default queues";
  EXPECT_EQ(cuda_queues_to_set("1", "8", true), "") << "the operator's own setting stands";
  EXPECT_EQ(cuda_queues_to_set(nullptr, nullptr, true), "") << "labgrade did not ask";
  for (const char* bad : {"", "0", "33", "-1", "1x", " 1", "100"}) {
    EXPECT_EQ(cuda_queues_to_set(bad, nullptr, true), "") << "'" << bad << "'";
  }

  // A judge whose reference runs in it (ctest runs each test in a process of its own).
  ASSERT_EQ(::setenv(cudalabs::kReferenceInJudgeVariable, "1", 1), 0);
  if (!judge_mode()) detail::register_judge("01_vector_add");
  ASSERT_EQ(::unsetenv(cudalabs::kCudaQueuesVariable), 0);
  ASSERT_EQ(::setenv(cudalabs::kJudgeCudaQueuesVariable, "1", 1), 0);
  ASSERT_TRUE(reference_in_judge());
  narrow_own_cuda_queues();
  const char* set = std::getenv(cudalabs::kCudaQueuesVariable);
  ASSERT_NE(set, nullptr);
  EXPECT_STREQ(set, "1");
}

TEST(JudgeMode, ARunnerStartsWithoutWhatIsTheJudgesAlone) {
  std::string queues = std::string(cudalabs::kCudaQueuesVariable) + "=1";
  std::string confine = std::string(cudalabs::kConfineVariable) + "=1";
  std::string launcher = std::string(cudalabs::kStudentRunnerLauncherVariable) + "=compute-sanitizer";
  std::string look_alike = std::string(cudalabs::kCudaQueuesVariable) + "_NOT=2";
  std::string path = "PATH=/usr/bin";
  std::string untimed = std::string(cudalabs::kReferenceInJudgeVariable) + "=1";
  std::string asked = std::string(cudalabs::kJudgeCudaQueuesVariable) + "=1";
  std::vector<char*> environment{queues.data(),     confine.data(), launcher.data(), untimed.data(),
                                 look_alike.data(), asked.data(),   path.data(),     nullptr};

  const std::vector<std::string> narrowed = runner_environment(environment.data(), true, true);
  EXPECT_EQ(narrowed, (std::vector<std::string>{look_alike, path, confine}));
  const std::vector<std::string> operators = runner_environment(environment.data(), false, false);
  EXPECT_EQ(operators, (std::vector<std::string>{queues, look_alike, path}))
      << "a CUDA_DEVICE_MAX_CONNECTIONS the judge did not set is the operator's, for every process";
}

}  // namespace
