// A judge whose reference runs in process (labgrade sets CUDALABS_REFERENCE_IN_JUDGE for runs that
// time nothing: a batch's first parts, sanitizer runs) must refuse to time: a ratio needs both
// sides timed in runners alike. Host-only, in a binary of its own, since registering as a judge
// lasts for the process. The order is the one a harness sees: the variable is set before main,
// something may ask before the judge registers (static initialisation), and the answer must
// still be yes once it has.
#include <cstdlib>
#include <stdexcept>
#include <string>

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

}  // namespace
